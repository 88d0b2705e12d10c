"""
The one transition table of appointments: ``(status, operation) -> next status``.

Every appointment operation asks :func:`transition` before it changes anything (decision 25);
a pair missing from :data:`TRANSITIONS` raises :class:`~slotwise.errors.InvalidTransition`
naming the status and the operation. Conditions that depend on time or data (a cancel in the
past, a no-show before the start, an expired hold) are checked by the operations after the
table allowed the pair.

============  ==================  ===========  =================================================
From          Operation           To           Decision
============  ==================  ===========  =================================================
(new)         ``CREATE_HOLD``     IN           19: hold for the location's booking timer
(new)         ``CREATE_BOOKED``   BK           19: booking event, reminders
(new)         ``CREATE_RESERVED`` RS           19: reminders, no booking event
(new)         ``RESCHEDULE``      BK           23: the new record of a reschedule
IN            ``BOOK``            BK           20: an expired hold re-validates
IN            ``RESERVE``         RS           21
IN            ``DELETE``          (deleted)    24: only IN is deleted
IN            ``EXPIRE``          (deleted)    20: the sweep of expired holds
RS            ``CONFIRM``         BK           21: sets ``confirmed``, booking event
BK            ``CONFIRM``         BK           21: sets ``confirmed``
BK            ``UNDO_CONFIRM``    BK           21: clears ``confirmed``
BK            ``CANCEL``          CN           22: not in the past
RS            ``CANCEL``          CN           22: not in the past
BK            ``RESCHEDULE``      RE           23: not in the past
BK            ``NO_SHOW``         NS           24: once the start has passed
============  ==================  ===========  =================================================

CN, RE and NS are final: no operation leaves them.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from types import MappingProxyType
from typing import Final, Literal

from slotwise.errors import InvalidTransition
from slotwise.model import AppointmentStatus, Operation

__all__ = ["DELETED", "TRANSITIONS", "Deleted", "Operation", "Outcome", "transition"]


class Deleted(enum.Enum):
    """The outcome of an operation that removes the appointment record for good."""

    DELETED = "deleted"

    def __repr__(self) -> str:
        return "DELETED"


DELETED: Final = Deleted.DELETED
"""The record is removed (``delete`` and ``expire`` of an IN hold)."""

Outcome = AppointmentStatus | Literal[Deleted.DELETED]
"""What an allowed operation leads to: a status, or :data:`DELETED`."""

_IN = AppointmentStatus.INITIAL
_BK = AppointmentStatus.BOOKED
_RS = AppointmentStatus.RESERVED
_CN = AppointmentStatus.CANCELLED
_RE = AppointmentStatus.RESCHEDULED
_NS = AppointmentStatus.NO_SHOW

TRANSITIONS: Final[Mapping[tuple[AppointmentStatus | None, Operation], Outcome]] = MappingProxyType(
    {
        (None, Operation.CREATE_HOLD): _IN,
        (None, Operation.CREATE_BOOKED): _BK,
        (None, Operation.CREATE_RESERVED): _RS,
        (None, Operation.RESCHEDULE): _BK,
        (_IN, Operation.BOOK): _BK,
        (_IN, Operation.RESERVE): _RS,
        (_IN, Operation.DELETE): DELETED,
        (_IN, Operation.EXPIRE): DELETED,
        (_RS, Operation.CONFIRM): _BK,
        (_BK, Operation.CONFIRM): _BK,
        (_BK, Operation.UNDO_CONFIRM): _BK,
        (_BK, Operation.CANCEL): _CN,
        (_RS, Operation.CANCEL): _CN,
        (_BK, Operation.RESCHEDULE): _RE,
        (_BK, Operation.NO_SHOW): _NS,
    }
)
"""
Every allowed ``(status, operation)`` pair and its outcome; ``None`` is "not created yet".

.. versionadded:: 0.1
"""


def transition(status: AppointmentStatus | None, operation: Operation) -> Outcome:
    """
    Return what *operation* does to an appointment in *status* (``None``: a new appointment).

    Raises:
        InvalidTransition: when the table has no such pair; it names the status and the
            operation.

    .. versionadded:: 0.1
    """
    try:
        return TRANSITIONS[(status, operation)]
    except KeyError:
        raise InvalidTransition(status=status, operation=operation) from None
