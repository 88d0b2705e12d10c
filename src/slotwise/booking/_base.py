"""
The ground every appointment operation stands on (a part of ``AppointmentOperations``): the unit
of work that holds the locks of the resources it touches and grows them when it must, the
principal's checks of the records a call names, and the audit entry and event of each change.
"""

from __future__ import annotations

import builtins
import hashlib
import json
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Final, Literal, TypeVar, cast

import attrs

from slotwise._time import to_utc, zone
from slotwise.availability.busy import BusyIntervals, NoBusyTime, fetch_busy_time
from slotwise.availability.query import AvailabilityQuery
from slotwise.availability.snapshot import (
    appointment_range,
    candidate_resources,
)
from slotwise.errors import (
    ConflictError,
    InvalidFormat,
    InvalidReference,
    InvalidTimeRange,
    NotFound,
    PastAppointment,
)
from slotwise.model import (
    Appointment,
    AppointmentStatus,
    AuditEntry,
    Company,
    Customer,
    FieldValue,
    Location,
    Operation,
    Resource,
    Service,
    Trigger,
)
from slotwise.model._checks import INSTANT_YEARS, id_list
from slotwise.model.events import trusted_audit_entry
from slotwise.operations._context import Context
from slotwise.operations.customers import (
    split_name,
)
from slotwise.operations.meetings import NoMeetingLinks
from slotwise.storage.outbox import append_appointment_event
from slotwise.storage.protocol import Reader, Transaction

from .transitions import Outcome

T = TypeVar("T")

CompleteBooking = Literal["IN", "BK", "RS"]
"""How far ``create`` takes a new appointment: a hold (``IN``), booked or reserved."""
_CREATE_OPERATIONS: dict[str | None, Operation] = {
    None: Operation.CREATE_HOLD,
    "IN": Operation.CREATE_HOLD,
    "BK": Operation.CREATE_BOOKED,
    "RS": Operation.CREATE_RESERVED,
}
_BK = AppointmentStatus.BOOKED
_RS = AppointmentStatus.RESERVED
_IN = AppointmentStatus.INITIAL
logger = logging.getLogger("slotwise.appointments")
"""Every appointment change: id, operation, status before and after (INFO)."""

_RELOCK_ATTEMPTS = 5
_KEY_MAX = 255
FieldValues = Iterable[FieldValue | Mapping[str, str]]
"""Booking-field values: ``FieldValue`` records or ``{"name": ..., "value": ...}`` mappings."""


_MODIFIED_BY: Final = attrs.fields(AuditEntry).modified_by
_check_modified_by: Final = cast(Callable[..., None], _MODIFIED_BY.validator)
"""``AuditEntry.modified_by``'s validator, found once (``check_sent``, for every change)."""


class _Relock(Exception):
    """The unit of work needs locks it does not hold; it rolls back and runs again with them."""

    def __init__(self, locks: Iterable[str]) -> None:
        super().__init__("more locks needed")
        self.locks = frozenset(locks)


_resource_lock: Callable[[str], str] = "resource:{}".format
"""
Return the lock of one resource's appointments (``resource:<id>``): a method of ``str``, so
``set(map(_resource_lock, ids))`` makes a call's locks without a Python call per id.
"""


def _require_resource_locks(resource_ids: Iterable[str], held: frozenset[str]) -> None:
    """Raise ``_Relock`` unless the unit of work holds the lock of every one of *resource_ids*."""
    needed = set(map(_resource_lock, resource_ids))
    if not needed <= held:
        raise _Relock(needed)


def _idempotency_lock(company_id: str, key: str) -> str:
    return f"idempotency:{company_id}:{key}"


def _instant(value: object, *, field: str) -> datetime:
    if not isinstance(value, datetime):
        raise InvalidFormat(field=field, expected="an aware datetime", value=value)
    return to_utc(value, field=field)


def _span(start: object, end: object) -> tuple[datetime, datetime]:
    """Return a new time's start and end in UTC; the end must come after the start."""
    if start.__class__ is end.__class__ is datetime and start.tzinfo is end.tzinfo is UTC:
        start_utc, end_utc = start, end  # UTC already (what the boundary hands over)
    else:
        start_utc, end_utc = _instant(start, field="start"), _instant(end, field="end")
    if end_utc <= start_utc:
        # Quoted as sent: the caller's own offsets, not UTC.
        raise InvalidTimeRange(field="end", start=start, end=end, names=("start", "end"))
    return start_utc, end_utc


def _wall_times(reader: Reader, location_id: str, *instants: datetime) -> list[datetime]:
    """
    Return *instants* in the location's zone, as errors quote them (the wire's local time,
    decision 43); as they are should the location be gone.
    """
    location = reader.get(Location, location_id)
    if location is None:
        return list(instants)
    tz = zone(location.timezone)
    return [instant.astimezone(tz) for instant in instants]


def _past(
    reader: Reader, operation: object, location_id: str, start: datetime, now: datetime
) -> PastAppointment:
    """Return the error refusing *operation* of an appointment starting before now."""
    start, now = _wall_times(reader, location_id, start, now)
    return PastAppointment(operation=operation, start=start, now=now)


def _named(resource_id: str | None, resource_ids: Sequence[str] | str | None) -> tuple[str, ...]:
    """Return the resources a call names: ``resource_id`` first, then ``resource_ids``, once each."""
    named = [resource_id] if resource_id else []
    if resource_ids is not None and resource_ids != ():  # () names none: nothing to split
        # The spec sends resourceIds as one comma-separated string; an empty member is refused.
        named += id_list(resource_ids, field="resource_ids")
    for rid in named:
        if not isinstance(rid, str) or not rid:
            raise InvalidFormat(field="resource_ids", expected="resource ids", value=rid)
    return tuple(dict.fromkeys(named))


def _field_values(values: FieldValues, *, field: str) -> tuple[FieldValue, ...]:
    found: list[FieldValue] = []
    for value in values:
        if isinstance(value, FieldValue):
            found.append(value)
        elif isinstance(value, Mapping) and set(value) <= {"name", "value"}:
            found.append(FieldValue(name=value.get("name", ""), value=value.get("value", "")))
        else:
            raise InvalidFormat(field=field, expected="name/value pairs", value=value)
    return tuple(found)


@attrs.frozen(kw_only=True)
class _Details:
    """Customer details sent with a create, book or reserve call (``None``: not sent)."""

    email: str | None = None
    first_name: str | None = None
    last_name: str | None = None
    phone: str | None = None
    phone_type: str | None = None
    phone_ext: str | None = None
    customer_message: str | None = None

    @classmethod
    def of(cls, *, email: str | None, name: str | None, **others: str | None) -> _Details:
        """Return the details a call sent: its name split, its e-mail stripped."""
        if email is None and name is None:
            for value in others.values():
                if value is not None:
                    break
            else:
                return _NO_DETAILS
        first = last = None
        if name is not None:
            first, last = split_name(name)
        if email is not None:
            if not isinstance(email, str):
                raise InvalidFormat(field="email", expected="an e-mail address", value=email)
            email = email.strip()
        return cls(email=email, first_name=first, last_name=last, **others)


_NO_DETAILS = _Details()
"""The details of a call that sent none (most bookings of a known customer)."""


def _kept(outcome: Outcome) -> AppointmentStatus:
    """Return the status an operation that keeps its record leads to (narrows the outcome)."""
    if not isinstance(outcome, AppointmentStatus):
        raise TypeError(f"the transition table deletes the record here: {outcome!r}")
    return outcome


def _fingerprint(request: Mapping[str, object]) -> str:
    """Return a digest of a create request, to tell a retry from a different request."""
    text = json.dumps(request, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


class AppointmentBase:
    """
    What every appointment operation runs on: one unit of work holding the locks of the
    resources it touches, the principal's checks of what it names, and the audit entry and
    event each change writes.
    """

    _ctx: Context

    def _run(self, locks: Iterable[str], unit: Callable[[Transaction, frozenset[str]], T]) -> T:
        """Run *unit* in one unit of work holding *locks*, growing them when it asks."""
        held = frozenset(locks)
        for _ in range(_RELOCK_ATTEMPTS):
            try:
                with self._ctx.store.transaction(locks=sorted(held)) as tx:
                    return unit(tx, held)
            except _Relock as more:
                held |= more.locks
        raise ConflictError("the resources of this booking kept changing; try again")

    def _with_meeting_link(self, appointment: Appointment) -> Appointment:
        """
        Ask the meeting-link provider for a booked appointment's link; store it, or why not.

        Runs after the booking's unit of work committed (no lock is held while the host's
        service answers); a failure is recorded in ``meeting_error`` and the booking stands
        (spec: Events 3, ``slotwise.operations.meetings``).
        """
        ctx = self._ctx
        if isinstance(ctx.meeting_links, NoMeetingLinks):
            # The default provider makes no link: nothing to read (a unit of work, three round
            # trips on a SQL store) and nothing to store. Asked first: it is the usual case,
            # and the link fields are kept out of the record's slots (each read is a call).
            return appointment
        if (
            appointment.status is not AppointmentStatus.BOOKED
            or appointment.meeting_url is not None
            or appointment.meeting_error is not None
        ):
            return appointment
        with ctx.store.read() as reader:
            company = reader.get(Company, appointment.company_id)
        if company is None or company.meeting_webhook_url is None:
            return appointment
        link: str | None = None
        error: str | None = None
        try:
            link = ctx.meeting_links.meeting_url(appointment, company)
            if link is not None:
                attrs.evolve(appointment, meeting_url=link)  # an http(s) URL, or InvalidFormat
        except Exception as failure:  # the host's service: whatever it raises, the booking stands
            link, error = None, f"{type(failure).__name__}: {failure}"[:500]
        if link is None and error is None:
            return appointment
        with ctx.store.transaction() as tx:
            current = tx.get(Appointment, appointment.id)
            if current is None:
                return appointment
            updated = attrs.evolve(current, meeting_url=link, meeting_error=error)
            tx.update(updated)
        return updated

    def _change(
        self,
        appointment_id: str,
        change: Callable[[Transaction, Appointment, datetime], Appointment],
    ) -> Appointment:
        """Run *change* on one appointment in a unit of work holding its resources' locks."""
        current = self._peek(appointment_id)
        locks = {_resource_lock(rid) for rid in current.resource_ids}

        def unit(tx: Transaction, held: frozenset[str]) -> Appointment:
            appointment = self._own(tx, appointment_id, held)
            return change(tx, appointment, self._ctx.clock.now())

        return self._run(locks, unit)

    def _peek(self, appointment_id: str) -> Appointment:
        """Read an appointment to learn the locks its unit of work needs (checked again inside)."""
        with self._ctx.store.read() as reader:
            return self._ctx.owned(reader, Appointment, appointment_id, field="appointment_id")

    def _own(self, tx: Transaction, appointment_id: str, held: frozenset[str]) -> Appointment:
        appointment = self._ctx.owned(tx, Appointment, appointment_id, field="appointment_id")
        _require_resource_locks(appointment.resource_ids, held)
        return appointment

    def _prepare(
        self,
        locks: set[str],
        location_id: str | None,
        service_id: str,
        named: Sequence[str],
        start: datetime,
    ) -> dict[str, BusyIntervals] | None:
        """
        Read what must be known before the unit of work: candidate locks and external busy time.

        Without a named resource, every candidate's lock is added to *locks* (the round robin
        picks inside the unit of work). External busy time is fetched here, outside every lock,
        as the availability operations do; most hosts have no provider and skip this read.
        """
        ctx = self._ctx
        external = not isinstance(ctx.busy_provider, NoBusyTime)
        if named and not external:
            return None
        with ctx.store.read() as reader:
            location = ctx.location(reader, location_id)
            service = ctx.owned(reader, Service, service_id, field="service_id")
            day = start.astimezone(zone(location.timezone)).date()
            if named:
                # Only the principal's own resources; the unit of work refuses the others.
                found = [reader.get(Resource, rid) for rid in named]
                resources = [r for r in found if r is not None and r.company_id == ctx.company_id]
            else:
                query = AvailabilityQuery(service_id=service.id, start_date=day, end_date=day)
                resources = candidate_resources(reader, query, location=location, service=service)
        locks.update(_resource_lock(resource.id) for resource in resources)
        if not external:
            return None
        low, high = appointment_range(location, day, day)
        return dict(fetch_busy_time(ctx.busy_provider, resources, low, high))

    def _resources(
        self, tx: Transaction, named: Sequence[str], location: Location, service: Service
    ) -> builtins.list[Resource]:
        """Check each named resource: the principal's, at the location, taking the service."""
        resources = []
        for rid in named:
            field = "resource_id" if rid == named[0] else "resource_ids"
            resource = self._ctx.owned(tx, Resource, rid, field=field)
            if resource.location_id != location.id:
                raise InvalidReference(
                    f"resource {rid!r} does not work at location {location.id!r}", field=field
                )
            if not resource.takes_service(service.id):
                raise InvalidReference(
                    f"resource {rid!r} does not take service {service.id!r}", field=field
                )
            resources.append(resource)
        return resources

    @staticmethod
    def _resource(reader: Reader, resource_id: str) -> Resource:
        resource = reader.get(Resource, resource_id)
        if resource is None:
            raise NotFound(kind="Resource", record_id=resource_id)
        return resource

    @staticmethod
    def _location_of(reader: Reader, appointment: Appointment) -> Location:
        location = reader.get(Location, appointment.location_id)
        if location is None:
            raise NotFound(kind="Location", record_id=appointment.location_id)
        return location

    def _place(self, reader: Reader, appointment: Appointment) -> tuple[Location, Service]:
        location = self._location_of(reader, appointment)
        service = reader.get(Service, appointment.service_id)
        if service is None:
            raise NotFound(kind="Service", record_id=appointment.service_id)
        return location, service

    def _audit(
        self,
        tx: Transaction,
        appointment: Appointment,
        operation: Operation,
        before: AppointmentStatus | None,
        after: AppointmentStatus | None,
        now: datetime,
    ) -> None:
        if logger.isEnabledFor(logging.INFO):  # the arguments cost enum lookups: only when read
            logger.info(
                "appointment %s: %s %s -> %s (company %s)",
                appointment.id,
                operation.value,
                before.value if before is not None else "-",
                after.value if after is not None else "deleted",
                appointment.company_id,
            )
        user = self._ctx.principal.user
        # Known valid: the appointment's own ids, members, and (when it is an instant a record
        # keeps as it is) the clock's; else the validating constructor converts or refuses it.
        build: Callable[..., AuditEntry] = AuditEntry
        if (  # is_record_instant(now), inline (every change writes an audit entry)
            now.__class__ is datetime
            and now.tzinfo is UTC
            and INSTANT_YEARS[0] <= now.year <= INSTANT_YEARS[1]
        ):
            build = trusted_audit_entry
            # The principal's user is the one value no check has seen (Principal takes any).
            if user is not None:
                _check_modified_by(None, _MODIFIED_BY, user)
        # batched.insert_new, inline (every change writes one): the store's own where it has one.
        insert = getattr(tx, "insert_new", None) or tx.insert
        insert(
            build(
                id=self._ctx.ids.new_id(),
                company_id=appointment.company_id,
                location_id=appointment.location_id,
                appointment_id=appointment.id,
                operation=operation,
                modified_on=now,
                modified_by=user,
                status_before=before,
                status_after=after,
            ),
        )

    def _event(
        self,
        tx: Transaction,
        trigger: Trigger,
        appointment: Appointment,
        now: datetime,
        *,
        customer: Customer | None = None,
        previous: Appointment | None = None,
        resources: Sequence[Resource] | None = None,
    ) -> None:
        """
        Append *trigger*'s outbox event of *appointment* in *tx*; *customer* and *resources*,
        when the caller has them (*resources*: the appointment's own, in its order), are not
        read again.
        """
        if customer is None and appointment.customer_id is not None:
            customer = tx.get(Customer, appointment.customer_id)
        if resources is None:
            resources = [r for rid in appointment.resource_ids if (r := tx.get(Resource, rid))]
        append_appointment_event(
            tx, self._ctx.ids, now, trigger, appointment, customer, resources, previous
        )
