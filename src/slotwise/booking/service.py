"""
Appointment operations: the state machine that never overbooks (decisions 19-28).

Every mutating call is one unit of work holding the lock ``"resource:<id>"`` of each resource
it touches (storage protocol: Isolation), and inside it:

1. the tenant checks (decision 30) and :func:`~slotwise.booking.transitions.transition`, so an
   operation outside the table raises ``InvalidTransition`` before anything else;
2. the rules of the operation (service at the location, resources at the location taking the
   service, past dates, group size, customer details and limits);
3. for a new time, the slot check by **the availability engine itself**: the same
   ``read_snapshot`` and calculator the listing uses (``bookable_at``: the listing's slots of
   the appointment's location date that start then, without building the response), for its
   resources, must offer exactly that start, end and resources with enough capacity;
4. the writes: the appointment, an audit entry per changed record, outbox events and queued
   reminders.

A refused operation raises before its first write, or its unit of work rolls back, so the store
is left as it was.
"""

from __future__ import annotations

import attrs

from slotwise.operations._boundary import operations
from slotwise.operations._context import Context

from ._base import CompleteBooking
from .changes import AppointmentChanges
from .completion import AppointmentCompletion
from .creation import AppointmentCreation
from .feeds import OutboxOperations, ReminderOperations
from .reads import AppointmentReads
from .rescheduling import AppointmentRescheduling

__all__ = [
    "AppointmentOperations",
    "CompleteBooking",
    "OutboxOperations",
    "ReminderOperations",
]


@operations
@attrs.frozen
class AppointmentOperations(
    AppointmentCreation,
    AppointmentCompletion,
    AppointmentChanges,
    AppointmentRescheduling,
    AppointmentReads,
):
    """
    Appointments of the principal's locations (spec: Consumer interface: appointments).

    Datetimes must be aware (naive ones raise ``NaiveDatetime``); appointments store UTC.
    ``docs/appointments.md`` has the lifecycle and the transition table.

    .. versionadded:: 0.1
    """

    _ctx: Context
