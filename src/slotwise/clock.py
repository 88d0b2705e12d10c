"""
The two sources of non-determinism, made explicit: the current instant and new record ids.

``Scheduler`` takes a :class:`Clock` and an :class:`IdGenerator`; nothing else in slotwise
reads the system clock or draws random numbers. Tests use ``slotwise.testing.ManualClock`` and
``slotwise.testing.SequentialIds``.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Protocol

__all__ = ["Clock", "IdGenerator", "SystemClock", "UUIDIds"]


class Clock(Protocol):
    """
    Tells the current instant.

    .. versionadded:: 0.1
    """

    def now(self) -> datetime:
        """
        Return the current instant as an aware datetime in UTC.
        """
        ...


class IdGenerator(Protocol):
    """
    Makes identifiers for new records.

    .. versionadded:: 0.1
    """

    def new_id(self) -> str:
        """
        Return an identifier never returned before by this generator.
        """
        ...


class SystemClock:
    """
    The real clock: :meth:`now` reads the operating system's time in UTC.

    .. versionadded:: 0.1
    """

    def now(self) -> datetime:
        """Return the system's current instant in UTC."""
        return datetime.now(UTC)  # clock-ok: the one deliberate read of the real clock

    def __repr__(self) -> str:
        return "SystemClock()"


class UUIDIds:
    """
    Random UUID4 identifiers as 32 lowercase hex digits.

    .. versionadded:: 0.1
    """

    def new_id(self) -> str:
        """Return a fresh random identifier."""
        return uuid.uuid4().hex  # clock-ok: the default id source; inject SequentialIds to pin it

    def __repr__(self) -> str:
        return "UUIDIds()"
