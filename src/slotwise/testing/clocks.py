"""
Deterministic stand-ins for the real clock and id source.
"""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

from slotwise._time import ensure_aware
from slotwise.errors import OutOfRange

__all__ = ["ManualClock", "SequentialIds", "SequentialTokens"]


class ManualClock:
    """
    A clock that stands still until told to move, and never moves backwards.

    .. versionadded:: 0.1
    """

    def __init__(self, start: datetime) -> None:
        self._now = ensure_aware(start, field="start").astimezone(UTC)

    def __repr__(self) -> str:
        return f"ManualClock({self._now!r})"

    def now(self) -> datetime:
        """Return the clock's current instant, in UTC."""
        return self._now

    def advance(self, delta: timedelta) -> datetime:
        """
        Move the clock forward by *delta* and return the new instant.

        Raises:
            OutOfRange: when *delta* is negative.
        """
        if delta < timedelta(0):
            raise OutOfRange(
                field="delta", allowed="at least 0 (clocks never go backwards)", requested=delta
            )
        self._now += delta
        return self._now

    def set(self, instant: datetime) -> datetime:
        """
        Move the clock to *instant*.

        Raises:
            OutOfRange: when *instant* is before the current instant.
        """
        return self.advance(ensure_aware(instant, field="instant").astimezone(UTC) - self._now)


class SequentialIds:
    """
    Ids ``prefix + 1``, ``prefix + 2``, ... in order.

    .. versionadded:: 0.1
    """

    def __init__(self, prefix: str = "", *, start: int = 1) -> None:
        self._prefix = prefix
        # itertools.count's next() is atomic in CPython, so threads never share an id.
        self._counter = itertools.count(start)

    def __repr__(self) -> str:
        return f"SequentialIds({self._prefix!r})"

    def new_id(self) -> str:
        """Return the next id."""
        return f"{self._prefix}{next(self._counter)}"


class SequentialTokens:
    """
    API token secrets for tests: ``sw_test_`` and a zero-padded counter, 40 characters each.

    Pass it as ``Scheduler(token_source=SequentialTokens())`` so issued tokens are predictable
    (production tokens are 32 random bytes from :mod:`secrets`).

    .. versionadded:: 0.1
    """

    def __init__(self, *, start: int = 1) -> None:
        self._counter = itertools.count(start)

    def __repr__(self) -> str:
        return "SequentialTokens()"

    def __call__(self) -> str:
        """Return the next token."""
        return f"sw_test_{next(self._counter):032d}"
