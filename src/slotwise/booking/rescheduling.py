"""
Rescheduling (a part of ``AppointmentOperations``): the old record becomes RE and a new booked
one takes the new slot in the same unit of work, never counted against itself (decision 23).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import attrs

from slotwise.model import (
    Appointment,
    Customer,
    Operation,
    Service,
    Trigger,
)
from slotwise.operations._boundary import operations
from slotwise.operations.locations import settings_in_force
from slotwise.storage.protocol import Transaction

from ._base import (
    _kept,
    _named,
    _past,
    _require_resource_locks,
    _resource_lock,
    _span,
)
from .checks import (
    BookingChecks,
    _check_customer_limits,
    _check_group_size,
    _usable_at,
)
from .feeds import (
    _drop_unsent_reminders,
    _queue_reminders,
)
from .transitions import transition

__all__ = ["AppointmentRescheduling"]


@operations
class AppointmentRescheduling(BookingChecks):
    """Moving a booked appointment to another time, resource or service."""

    def reschedule(
        self,
        appointment_id: str,
        /,
        *,
        start: datetime,
        end: datetime,
        resource_id: str | None = None,
        resource_ids: Sequence[str] | str | None = None,
        service_id: str | None = None,
    ) -> Appointment:
        """
        Move a booked appointment (decision 23); returns the new appointment.

        Spec: PUT /consumer/v1/appointments/{id}/reschedule. Only BK, not in the past, at the
        same location; time, resources and service may change (resources default to the old
        ones). The new time is checked like :meth:`create`'s, not counting the old record. The
        old record becomes RE; the new one is BK with ``rescheduled_id`` = the old id and the
        old customer details, fields and ``confirmed``. Unsent reminders move to the new time
        (reminders due before now are not queued); fires the reschedule event.

        Raises:
            NotFound, Unauthorized: for an unknown or foreign appointment, service or resource.
            InvalidTransition: when the appointment is not BK.
            PastAppointment: when the old or the new start is before now.
            the validation errors of :meth:`create` for the new time, resources and service.
        """
        ctx = self._ctx
        start, end = _span(start, end)
        current = self._peek(appointment_id)
        if resource_id is None and resource_ids is None:
            named = current.resource_ids
        else:
            named = _named(resource_id, resource_ids)
        locks = {_resource_lock(rid) for rid in (*current.resource_ids, *named)}
        busy = self._prepare(
            locks, current.location_id, service_id or current.service_id, named, start
        )

        def unit(tx: Transaction, held: frozenset[str]) -> Appointment:
            now = ctx.clock.now()
            old = self._own(tx, appointment_id, held)
            old_status = _kept(transition(old.status, Operation.RESCHEDULE))
            new_status = _kept(transition(None, Operation.RESCHEDULE))
            if old.start < now:
                raise _past(tx, Operation.RESCHEDULE, old.location_id, old.start, now)
            if start < now:
                raise _past(tx, Operation.RESCHEDULE, old.location_id, start, now)
            location = self._location_of(tx, old)
            service = ctx.owned(tx, Service, service_id or old.service_id, field="service_id")
            _usable_at(service, location)
            resources = self._resources(tx, named, location, service)
            size = _check_group_size(service, old.group_size)
            settings = settings_in_force(tx, location)
            taken = self._check_slot(
                tx,
                location=location,
                settings=settings,
                service=service,
                resources=resources,
                start=start,
                end=end,
                group_size=size,
                now=now,
                exclude_id=old.id,
                busy=busy,
            )
            _require_resource_locks(taken, held)
            if old.customer_id is not None:
                _check_customer_limits(
                    tx,
                    customer_id=old.customer_id,
                    service=service,
                    location=location,
                    settings=settings,
                    start=start,
                    resource_ids=taken,
                    now=now,
                    exclude_id=old.id,
                )
            moved = attrs.evolve(
                old, status=old_status, last_modified_at=now, last_modified_by=ctx.principal.user
            )
            new = attrs.evolve(
                old,
                id=ctx.ids.new_id(),
                service_id=service.id,
                resource_ids=taken,
                status=new_status,
                start=start,
                end=end,
                created_at=now,
                hold_expires_at=None,
                last_modified_at=now,
                last_modified_by=ctx.principal.user,
                rescheduled_id=old.id,
                idempotency_key=None,
                idempotency_fingerprint=None,
            )
            tx.update(moved)
            tx.insert(new)
            _drop_unsent_reminders(tx, old.id)
            self._audit(tx, moved, Operation.RESCHEDULE, old.status, old_status, now)
            self._audit(tx, new, Operation.RESCHEDULE, None, new_status, now)
            customer = tx.get(Customer, new.customer_id) if new.customer_id else None
            self._event(
                tx,
                Trigger.RESCHEDULE_CONFIRMATION,
                new,
                now,
                customer=customer,
                previous=moved,
            )
            _queue_reminders(ctx, tx, new, location, now)
            return new

        return self._run(locks, unit)
