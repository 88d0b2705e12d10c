"""
Changing an appointment's status (a part of ``AppointmentOperations``): confirm and undo,
cancel, no-show, delete a hold, and sweep expired holds (decisions 21-25).
"""

from __future__ import annotations

from datetime import datetime

import attrs

from slotwise.errors import (
    AppointmentNotStarted,
)
from slotwise.model import (
    Appointment,
    Operation,
    Trigger,
)
from slotwise.operations._boundary import operations
from slotwise.storage.protocol import Transaction

from ._base import (
    _IN,
    _RS,
    _kept,
    _past,
    _resource_lock,
    _wall_times,
)
from .checks import (
    BookingChecks,
)
from .feeds import (
    _SWEEP_BATCH,
    _drop_unsent_reminders,
)
from .transitions import transition

__all__ = ["AppointmentChanges"]


@operations
class AppointmentChanges(BookingChecks):
    """Status changes of existing appointments, and the sweep of expired holds."""

    def confirm(self, appointment_id: str, /) -> Appointment:
        """
        Confirm an appointment (decision 21): RS → BK with a booking event; BK stays BK.

        Spec: PUT /consumer/v1/appointments/{id}/confirm. Sets ``confirmed``. Confirming a
        confirmed BK appointment changes nothing and records nothing (PUT is idempotent).
        Reminders queued when it was reserved stay queued.

        Raises:
            NotFound, Unauthorized: for an unknown or foreign appointment.
            InvalidTransition: when the appointment is neither RS nor BK.
        """
        ctx = self._ctx

        def change(tx: Transaction, appointment: Appointment, now: datetime) -> Appointment:
            status = _kept(transition(appointment.status, Operation.CONFIRM))
            if appointment.status is status and appointment.confirmed:
                return appointment
            updated = attrs.evolve(
                appointment,
                status=status,
                confirmed=True,
                last_modified_at=now,
                last_modified_by=ctx.principal.user,
            )
            tx.update(updated)
            self._audit(tx, updated, Operation.CONFIRM, appointment.status, status, now)
            if appointment.status is _RS:
                self._event(tx, Trigger.BOOKING_CONFIRMATION, updated, now)
            return updated

        return self._with_meeting_link(self._change(appointment_id, change))

    def undo_confirm(self, appointment_id: str, /) -> Appointment:
        """
        Clear ``confirmed`` of a booked appointment (decision 21); it stays BK.

        Undoing an unconfirmed appointment changes nothing and records nothing.

        Raises:
            NotFound, Unauthorized: for an unknown or foreign appointment.
            InvalidTransition: when the appointment is not BK.
        """
        ctx = self._ctx

        def change(tx: Transaction, appointment: Appointment, now: datetime) -> Appointment:
            status = _kept(transition(appointment.status, Operation.UNDO_CONFIRM))
            if not appointment.confirmed:
                return appointment
            updated = attrs.evolve(
                appointment,
                status=status,
                confirmed=False,
                last_modified_at=now,
                last_modified_by=ctx.principal.user,
            )
            tx.update(updated)
            self._audit(tx, updated, Operation.UNDO_CONFIRM, appointment.status, status, now)
            return updated

        return self._change(appointment_id, change)

    def cancel(self, appointment_id: str, /) -> Appointment:
        """
        Cancel a booked or reserved appointment: BK/RS → CN (decision 22).

        Spec: PUT /consumer/v1/appointments/{id}/cancel. Frees its capacity, removes its
        unsent reminders and fires the cancellation event.

        Raises:
            NotFound, Unauthorized: for an unknown or foreign appointment.
            InvalidTransition: when the appointment is not BK or RS.
            PastAppointment: when it starts before now.
        """
        ctx = self._ctx

        def change(tx: Transaction, appointment: Appointment, now: datetime) -> Appointment:
            status = _kept(transition(appointment.status, Operation.CANCEL))
            if appointment.start < now:
                raise _past(tx, Operation.CANCEL, appointment.location_id, appointment.start, now)
            updated = attrs.evolve(
                appointment,
                status=status,
                last_modified_at=now,
                last_modified_by=ctx.principal.user,
            )
            tx.update(updated)
            _drop_unsent_reminders(tx, appointment.id)
            self._audit(tx, updated, Operation.CANCEL, appointment.status, status, now)
            self._event(tx, Trigger.CANCEL_RESERVATION_CONFIRMATION, updated, now)
            return updated

        return self._change(appointment_id, change)

    def no_show(self, appointment_id: str, /) -> Appointment:
        """
        Record that the customer did not come: BK → NS, once the start has passed (decision 24).

        Spec: PUT /consumer/v1/appointments/{id}/noshow. The appointment keeps its capacity.

        Raises:
            NotFound, Unauthorized: for an unknown or foreign appointment.
            InvalidTransition: when the appointment is not BK.
            AppointmentNotStarted: when its start is still ahead.
        """
        ctx = self._ctx

        def change(tx: Transaction, appointment: Appointment, now: datetime) -> Appointment:
            status = _kept(transition(appointment.status, Operation.NO_SHOW))
            if now < appointment.start:
                (start,) = _wall_times(tx, appointment.location_id, appointment.start)
                raise AppointmentNotStarted(appointment_id=appointment.id, start=start)
            updated = attrs.evolve(
                appointment,
                status=status,
                last_modified_at=now,
                last_modified_by=ctx.principal.user,
            )
            tx.update(updated)
            self._audit(tx, updated, Operation.NO_SHOW, appointment.status, status, now)
            return updated

        return self._change(appointment_id, change)

    def delete(self, appointment_id: str, /) -> Appointment:
        """
        Delete a hold for good (spec: DELETE /consumer/v1/appointments/{id}; only IN).

        Its audit history stays (see :meth:`history`).

        Returns:
            The appointment as it was.

        Raises:
            NotFound, Unauthorized: for an unknown or foreign appointment.
            InvalidTransition: when the appointment is not IN.
        """

        def change(tx: Transaction, appointment: Appointment, now: datetime) -> Appointment:
            transition(appointment.status, Operation.DELETE)
            tx.delete(Appointment, appointment.id)
            self._audit(tx, appointment, Operation.DELETE, appointment.status, None, now)
            return appointment

        return self._change(appointment_id, change)

    def sweep_expired_holds(self) -> int:
        """
        Delete every expired hold of the principal's locations; return how many were deleted.

        Idempotent: a second sweep finds nothing to delete. Expired holds never count against
        capacity anyway (decision 8), so sweeping is housekeeping, not a condition of
        correctness. Each deletion is recorded with the operation ``EXPIRE``.
        """
        ctx = self._ctx
        deleted = 0
        while True:
            with ctx.store.read() as reader:
                # The store keeps only the principal's locations (decision 37), so every
                # hold of the batch is usable and the batch size bounds the work.
                batch = reader.expired_holds(
                    company_id=ctx.company_id,
                    location_ids=ctx.location_ids,
                    now=ctx.clock.now(),
                    limit=_SWEEP_BATCH,
                )
            if not batch:
                return deleted
            locks = {_resource_lock(rid) for hold in batch for rid in hold.resource_ids}
            with ctx.store.transaction(locks=sorted(locks)) as tx:
                now = ctx.clock.now()
                for hold in batch:
                    current = tx.get(Appointment, hold.id)
                    if (
                        current is None
                        or current.status is not _IN
                        or current.hold_expires_at is None
                        or now < current.hold_expires_at
                    ):
                        continue
                    transition(current.status, Operation.EXPIRE)
                    tx.delete(Appointment, current.id)
                    self._audit(tx, current, Operation.EXPIRE, current.status, None, now)
                    deleted += 1
            if len(batch) < _SWEEP_BATCH:
                return deleted
