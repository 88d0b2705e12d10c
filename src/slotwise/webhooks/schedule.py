"""
When a failed delivery is tried again (decision 38): a fixed schedule with deterministic jitter.

Attempt 1 is made as soon as the event is there; after a failure, attempt *n* + 1 follows
attempt *n* by ``RETRY_DELAYS[n]`` (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h), each spread by
+-20% so that receivers coming back up are not hit by every sender at once. The spread is drawn
from a generator seeded with the event id and the attempt number: the same delivery is always
rescheduled the same way (no hidden randomness). A ``Retry-After`` from the receiver that asks
for a longer wait is honoured, up to a day. After the eighth attempt the delivery has failed.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Final

__all__ = ["JITTER", "MAX_RETRY_AFTER", "RETRY_DELAYS", "next_attempt_at"]

RETRY_DELAYS: Final = (
    timedelta(0),
    timedelta(seconds=5),
    timedelta(minutes=5),
    timedelta(minutes=30),
    timedelta(hours=2),
    timedelta(hours=5),
    timedelta(hours=10),
    timedelta(hours=10),
)
"""The wait before attempt 1, 2, ... 8 (decision 38); attempt 1 waits for nothing."""

JITTER: Final = 0.2
MAX_RETRY_AFTER: Final = timedelta(days=1)


def next_attempt_at(
    attempts: int,
    failed_at: datetime,
    *,
    event_id: str,
    retry_after: timedelta | None = None,
) -> datetime | None:
    """
    Return when to try again after *attempts* attempts, the last failing at *failed_at*.

    ``None`` means no attempt is left: the delivery has failed for good (it stays listed and can
    be redelivered by call).

    Args:
        attempts: how many attempts were made (1 after the first).
        failed_at: when the last attempt failed.
        event_id: seeds the jitter, so the same delivery is rescheduled the same way.
        retry_after: the receiver's ``Retry-After``, honoured when longer (at most a day).
    """
    if attempts < 1:
        raise ValueError(f"attempts must be at least 1, got {attempts}")
    if attempts >= len(RETRY_DELAYS):
        return None
    delay = RETRY_DELAYS[attempts]
    # Seeded by the delivery and the attempt: the same inputs give the same time.
    spread = random.Random(f"{event_id}:{attempts}").uniform(-JITTER, JITTER)  # clock-ok
    wait = delay * (1 + spread)
    if retry_after is not None and retry_after > wait:
        wait = min(retry_after, MAX_RETRY_AFTER)
    return failed_at + wait
