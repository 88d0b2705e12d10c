"""
The appointment state machine against a plain Python model (STYLE rule 33, issue 4 "Prove it").

Random programs of create (hold, booked, reserved; one resource, both, or the round robin; group
sizes), book, reserve, confirm, undo, cancel, reschedule, no-show, delete, clock advances and
sweeps run against ``Workspace.appointments`` on a ``MemoryStore``, and against :class:`Model`,
which predicts each outcome (the new record, or the typed refusal) from docs/appointments.md.
Operations are tried in every status, so the refusals of the table (``InvalidTransition``) and
the documented ones (``PastAppointment``, ``AppointmentNotStarted``, ``HoldExpired``,
``SlotUnavailable``, ``CapacityExceeded``, ``GroupSizeExceeded``, ``InconsistentFields`` for a
length other than the service's, ``FieldRequired``, ``NotFound``, ``Unauthorized``) are exercised
too.

After every step:

* the store's appointments equal the model's (same ids, order, status, times, resources, group,
  hold expiry, confirmation, customer details, reschedule link);
* no resource is ever over its booking limit or capacity: at every instant, the active
  appointments occupying it (``[start, end + padding)``) are all of one service (decision 8a),
  number at most the booking limit, and their people fit that service's capacity;
* every status change seen in the store, and every audit entry, is a pair of the transition
  table, and each appointment's audit trail is exactly the model's;
* the outbox holds one appointment event per transition that emits one (decision 27), in order,
  and one ``CustomerCreated`` per first booking of an e-mail address.

The business is small on purpose so that programs collide: one New York location open around the
clock, two resources, bookings per slot 2, a 30-minute service without groups ("cut") and a
30-minute service with 15 minutes of padding, capacity 3 and groups of up to 2 ("group"), and
twelve 15-minute grid points from 10:00 UTC, with the clock starting at 09:45 UTC. A second
and a third machine run the same programs on New York's fall-back night (the grid crossing the
repeated hour) and spring-forward night (the grid jumping the missing hour).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

import attrs
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    invariant,
    multiple,
    precondition,
    rule,
)

from slotwise import BusinessHours, Scheduler, Workspace
from slotwise.booking.transitions import DELETED, TRANSITIONS
from slotwise.errors import (
    AppointmentNotStarted,
    CapacityExceeded,
    FieldRequired,
    GroupSizeExceeded,
    HoldExpired,
    InconsistentFields,
    InvalidTransition,
    NotFound,
    PastAppointment,
    SlotUnavailable,
    Unauthorized,
)
from slotwise.model import (
    Appointment,
    AppointmentStatus,
    AuditEntry,
    Customer,
    Operation,
    OutboxEvent,
    Trigger,
)
from slotwise.storage.memory import MemoryStore
from slotwise.testing import ManualClock, SequentialIds

T = TypeVar("T")

IN, BK, RS = AppointmentStatus.INITIAL, AppointmentStatus.BOOKED, AppointmentStatus.RESERVED
CN, RE, NS = AppointmentStatus.CANCELLED, AppointmentStatus.RESCHEDULED, AppointmentStatus.NO_SHOW
FINAL = (CN, RE, NS)

CLOCK_START = datetime(2026, 1, 5, 9, 45, tzinfo=UTC)
FIRST_SLOT = datetime(2026, 1, 5, 10, 0, tzinfo=UTC)
GRID = 12
STEP = timedelta(minutes=15)
DURATION = timedelta(minutes=30)
HOLD = timedelta(minutes=10)
BOOKINGS_PER_SLOT = 2


@attrs.frozen
class ServiceRule:
    """What the model knows of a service: padding, capacity and largest group."""

    padding: timedelta
    capacity: int
    max_group: int


SERVICES = {
    # Without max_capacity the capacity is the booking limit (decision 9); no groups: 1 person.
    "cut": ServiceRule(padding=timedelta(0), capacity=BOOKINGS_PER_SLOT, max_group=1),
    "group": ServiceRule(padding=timedelta(minutes=15), capacity=3, max_group=2),
}
SERVICE_KEYS = tuple(SERVICES)

SHAPES = ("grid", "grid", "grid", "grid", "grid", "off-grid", "short")
"""How a drawn time is placed: on the grid, 7 minutes off it, or 20 minutes long."""

NAMED = ((0,), (1,), (0, 1), ())
"""Resources a booking names, as indexes into the two resources; () lets the round robin pick."""

PEOPLE: tuple[tuple[str, str] | None, ...] = (
    None,
    ("Ann Lee", "ann@example.com"),
    ("Bo Li", "BO@example.com"),
    # Ann again, with her address in other letters: the same customer (decision 19).
    ("Ann Marie de Vries", "ANN@Example.com"),
    ("Cy", "cy@example.com"),
)

OPERATIONS = (
    "book",
    "reserve",
    "confirm",
    "undo",
    "cancel",
    "reschedule",
    "no_show",
    "delete",
    "foreign",
)
"""What the ``operate`` rule may do to any appointment; "foreign" is another company's cancel."""

OPERATION_OF = {
    "book": Operation.BOOK,
    "reserve": Operation.RESERVE,
    "confirm": Operation.CONFIRM,
    "undo": Operation.UNDO_CONFIRM,
    "cancel": Operation.CANCEL,
    "reschedule": Operation.RESCHEDULE,
    "no_show": Operation.NO_SHOW,
    "delete": Operation.DELETE,
}
"""The table operation of each name in OPERATIONS (what InvalidTransition names)."""

APPOINTMENT_TRIGGERS = frozenset(
    {
        Trigger.BOOKING_CONFIRMATION,
        Trigger.RESCHEDULE_CONFIRMATION,
        Trigger.CANCEL_RESERVATION_CONFIRMATION,
    }
)
CUSTOMER_TRIGGERS = frozenset({Trigger.CUSTOMER_CREATED, Trigger.CUSTOMER_UPDATED})


def split(name: str) -> tuple[str, str | None]:
    """Split a full name as the spec says: the first word, then every later word."""
    first, *rest = name.split()
    return first, " ".join(rest) or None


def slot_times(first_slot: datetime, slot: int, shape: str) -> tuple[datetime, datetime]:
    """Return the start and end of grid point *slot* (from *first_slot*) placed as *shape* says."""
    start = first_slot + slot * STEP
    if shape == "off-grid":
        start += timedelta(minutes=7)
    end = start + (timedelta(minutes=20) if shape == "short" else DURATION)
    return start, end


@attrs.define
class Expected:
    """The model's appointment: what the store must hold for it."""

    id: str
    service: str
    resources: tuple[str, ...]
    status: AppointmentStatus
    start: datetime
    end: datetime
    group: int
    hold_expires_at: datetime | None
    email: str | None
    first_name: str | None
    last_name: str | None
    customer: str | None
    """The folded e-mail of its customer record, if it has one."""
    confirmed: bool = False
    rescheduled_id: str | None = None
    checked: int = 0
    """When its slot was last checked (a counter): the limit invariant trusts the last one."""

    def active(self, now: datetime) -> bool:
        """Tell whether it takes capacity at *now* (decision 8)."""
        if self.status is IN:
            return self.hold_expires_at is not None and now < self.hold_expires_at
        return self.status in (BK, RS, NS)

    def view(self) -> tuple[Any, ...]:
        """Return the fields compared with the store."""
        return (
            self.id,
            self.service,
            self.resources,
            self.status,
            self.start,
            self.end,
            self.group,
            self.hold_expires_at,
            self.email,
            self.first_name,
            self.last_name,
            self.customer,
            self.confirmed,
            self.rescheduled_id,
        )


class Refused(Exception):
    """Raised inside the model: the operation must fail with ``error``."""

    def __init__(self, error: type[Exception]) -> None:
        super().__init__(error.__name__)
        self.error = error


@attrs.define
class Model:
    """A plain-Python account of the appointments, events and audit trail (docs/appointments.md)."""

    now: datetime
    first_slot: datetime
    appointments: dict[str, Expected] = attrs.field(factory=dict)
    customers: set[str] = attrs.field(factory=set)
    events: list[tuple[Trigger, str]] = attrs.field(factory=list)
    customer_events: list[str] = attrs.field(factory=list)
    audit: dict[str, list[tuple[Operation, AppointmentStatus | None, AppointmentStatus | None]]] = (
        attrs.field(factory=dict)
    )
    checks: int = 0

    def ids_in(self, *statuses: AppointmentStatus) -> list[str]:
        """Return the ids of appointments in one of *statuses*, in creation order."""
        return [a.id for a in self.appointments.values() if a.status in statuses]

    # -- the slot check -------------------------------------------------------------------------

    def offer(
        self, resource: str, service: str, start: datetime, exclude: str | None
    ) -> tuple[int, int] | None:
        """
        Return (available bookings, available capacity) of *resource* at *start*, or None.

        Decisions 7-9: the candidate ``[start, start + duration + padding)`` against the active
        appointments occupying ``[start, end + their padding)``; offered when both are >= 1.
        Decision 8a: an appointment of the other service leaves no room at all.
        """
        rule_ = SERVICES[service]
        low, high = start, start + DURATION + rule_.padding
        occupying = [
            a
            for a in self.appointments.values()
            if a.id != exclude
            and resource in a.resources
            and a.active(self.now)
            and a.start < high
            and a.end + SERVICES[a.service].padding > low
        ]
        if any(a.service != service for a in occupying):
            return None
        spans = [(a.start, a.end + SERVICES[a.service].padding, a.group) for a in occupying]
        points = {low} | {span[0] for span in spans if low <= span[0] < high}
        count = max((sum(1 for s, e, _ in spans if s <= p < e) for p in points), default=0)
        people = max((sum(g for s, e, g in spans if s <= p < e) for p in points), default=0)
        bookings, capacity = BOOKINGS_PER_SLOT - count, rule_.capacity - people
        if bookings >= 1 and capacity >= 1:
            return bookings, capacity
        return None

    def check_slot(
        self,
        service: str,
        start: datetime,
        end: datetime,
        named: tuple[str, ...],
        group: int,
        everyone: tuple[str, ...],
        exclude: str | None,
    ) -> tuple[str, ...] | set[tuple[str, ...]]:
        """
        Judge a time as the listing would; return the resources taken (or the round robin's choices).

        Raises:
            Refused: with InconsistentFields, SlotUnavailable or CapacityExceeded.
        """
        if end - start != DURATION:
            # Decision 16: only duration_select services take another length.
            raise Refused(InconsistentFields)
        if (start - self.first_slot) % STEP != timedelta(0):
            raise Refused(SlotUnavailable)
        if named:
            offers = [self.offer(rid, service, start, exclude) for rid in named]
            if any(offer is None for offer in offers):
                raise Refused(SlotUnavailable)
            # Multi-resource slots carry the tightest figures (decision 13).
            if min(offer[1] for offer in offers if offer is not None) < group:
                raise Refused(CapacityExceeded)
            return named
        free = {rid: self.offer(rid, service, start, exclude) for rid in everyone}
        offered = {rid: offer for rid, offer in free.items() if offer is not None}
        if not offered:
            raise Refused(SlotUnavailable)
        fits: set[tuple[str, ...]] = {(rid,) for rid, offer in offered.items() if offer[1] >= group}
        if not fits:
            raise Refused(CapacityExceeded)
        return fits

    def check_group(self, service: str, group: int) -> None:
        """Raise Refused(GroupSizeExceeded) above the service's group size (decision 26)."""
        if group > SERVICES[service].max_group:
            raise Refused(GroupSizeExceeded)

    # -- bookkeeping ----------------------------------------------------------------------------

    def record(
        self,
        appointment_id: str,
        operation: Operation,
        before: AppointmentStatus | None,
        after: AppointmentStatus | None,
    ) -> None:
        """Append an expected audit entry."""
        self.audit.setdefault(appointment_id, []).append((operation, before, after))

    def customer_for(self, email: str) -> str:
        """Return the folded address of the customer of *email*, expecting CustomerCreated once."""
        folded = email.casefold()
        if folded not in self.customers:
            self.customers.add(folded)
            self.customer_events.append(folded)
        return folded

    def checked(self) -> int:
        """Return a new slot-check number."""
        self.checks += 1
        return self.checks


class World:
    """The system under test: a scheduler with one location, two services, two resources."""

    def __init__(self, clock_start: datetime) -> None:
        self.clock = ManualClock(clock_start)
        self.store = MemoryStore()
        scheduler = Scheduler(self.store, clock=self.clock, ids=SequentialIds())
        company = scheduler.create_company(name="Acme", timezone="America/New_York")
        self.ws: Workspace = scheduler.for_company(company.id)
        location = self.ws.locations.create(name="Downtown", business_hours=BusinessHours.always())
        assert location.primary_calendar_id is not None
        self.ws.calendars.update(location.primary_calendar_id, bookings_per_slot=BOOKINGS_PER_SLOT)
        cut = self.ws.services.create(name="Cut", duration=30, reason="r")
        group = self.ws.services.create(
            name="Group",
            duration=30,
            padding=15,
            max_capacity=SERVICES["group"].capacity,
            max_group_size=SERVICES["group"].max_group,
            reason="r",
        )
        self.service_ids = {"cut": cut.id, "group": group.id}
        self.service_keys = {cut.id: "cut", group.id: "group"}
        self.resources = tuple(
            self.ws.resources.create(name=name, reason="r").id for name in ("Ana", "Bea")
        )
        other = scheduler.create_company(name="Other", timezone="Europe/London")
        self.other: Workspace = scheduler.for_company(other.id)
        self.other.locations.create(name="Elsewhere")


class AppointmentMachine(RuleBasedStateMachine):
    """Random programs of appointment operations, each checked against :class:`Model`."""

    appointments = Bundle("appointments")
    clock_start = CLOCK_START
    first_slot = FIRST_SLOT

    def __init__(self) -> None:
        super().__init__()
        self.world = World(self.clock_start)
        self.model = Model(now=self.clock_start, first_slot=self.first_slot)
        self.seen: dict[str, AppointmentStatus] = {}

    # -- helpers --------------------------------------------------------------------------------

    def expect(self, predict: Callable[[], T], call: Callable[[], Appointment]) -> tuple[T, Any]:
        """
        Run *predict* on the model and *call* on the system; they must agree on refusals.

        Returns the prediction and the system's result when both succeed. A refusal must be of
        exactly the predicted class.
        """
        try:
            prediction = predict()
        except Refused as refused:
            expected = refused.error
        else:
            return prediction, call()
        with pytest.raises(expected) as info:
            call()
        # Exactly the predicted class, not a subclass of it.
        assert expected is type(info.value), repr(info.value)
        return None, None  # type: ignore[return-value]

    def named_ids(self, named: tuple[int, ...]) -> tuple[str, ...]:
        """Return the resource ids of the indexes *named*."""
        return tuple(self.world.resources[n] for n in named)

    def expired_holds(self) -> list[str]:
        """Return the ids of IN holds whose timer ran out."""
        now = self.model.now
        return [
            a.id
            for a in self.model.appointments.values()
            if a.status is IN and a.hold_expires_at is not None and now >= a.hold_expires_at
        ]

    def expected(self, appointment_id: str) -> Expected:
        """Return the model's appointment, or raise Refused(NotFound) when there is none."""
        found = self.model.appointments.get(appointment_id)
        if found is None:
            raise Refused(NotFound)
        return found

    # -- create ---------------------------------------------------------------------------------

    def create_one(
        self,
        service: str,
        slot: int,
        shape: str,
        named: tuple[int, ...],
        group: int,
        complete: str | None,
        person: tuple[str, str] | None,
    ) -> Any:
        """Create a hold, booking or reservation; the model predicts the record or the refusal."""
        model = self.model
        start, end = slot_times(self.first_slot, slot, shape)
        resources = self.named_ids(named)
        status = {None: IN, "IN": IN, "BK": BK, "RS": RS}[complete]
        details: dict[str, str] = {}
        if person is not None:
            details = {"name": person[0], "email": person[1]}

        def predict() -> tuple[str, ...] | set[tuple[str, ...]]:
            # The order of checks of AppointmentOperations.create.
            if start < model.now:
                raise Refused(PastAppointment)
            model.check_group(service, group)
            if status is not IN and person is None:
                raise Refused(FieldRequired)
            return model.check_slot(
                service, start, end, resources, group, self.world.resources, exclude=None
            )

        taken, made = self.expect(
            predict,
            lambda: self.world.ws.appointments.create(
                self.world.service_ids[service],
                start,
                end,
                resource_ids=resources,
                group_size=group,
                complete_booking=complete,  # type: ignore[arg-type]
                **details,  # type: ignore[arg-type]
            ),
        )
        if made is None:
            return multiple()
        if isinstance(taken, set):
            assert made.resource_ids in taken, (made.resource_ids, taken)
        else:
            assert taken == made.resource_ids
        first, last = split(person[0]) if person else (None, None)
        customer = None
        if status is not IN and person is not None:
            customer = model.customer_for(person[1])
        model.appointments[made.id] = Expected(
            id=made.id,
            service=service,
            resources=made.resource_ids,
            status=status,
            start=start,
            end=end,
            group=group,
            hold_expires_at=model.now + HOLD if status is IN else None,
            email=person[1] if person else None,
            first_name=first,
            last_name=last,
            customer=customer,
            checked=model.checked(),
        )
        operation = {IN: Operation.CREATE_HOLD, BK: Operation.CREATE_BOOKED}.get(
            status, Operation.CREATE_RESERVED
        )
        model.record(made.id, operation, None, status)
        if status is BK:
            model.events.append((Trigger.BOOKING_CONFIRMATION, made.id))
        return made.id

    @rule(
        target=appointments,
        service=st.sampled_from(SERVICE_KEYS),
        slot=st.integers(0, GRID - 1),
        shape=st.sampled_from(SHAPES),
        named=st.sampled_from(NAMED),
        group=st.sampled_from((1, 1, 1, 2, 2, 3)),
        complete=st.sampled_from((None, "IN", "BK", "RS")),
        person=st.sampled_from(PEOPLE),
    )
    def create(
        self,
        service: str,
        slot: int,
        shape: str,
        named: tuple[int, ...],
        group: int,
        complete: str | None,
        person: tuple[str, str] | None,
    ) -> Any:
        """Create anything: any time shape, group size, completion and customer details."""
        return self.create_one(service, slot, shape, named, group, complete, person)

    @rule(
        target=appointments,
        service=st.sampled_from(SERVICE_KEYS),
        slot=st.integers(0, GRID - 1),
        named=st.sampled_from(NAMED),
        group=st.sampled_from((1, 1, 2)),
        person=st.sampled_from(PEOPLE),
    )
    def create_hold(
        self,
        service: str,
        slot: int,
        named: tuple[int, ...],
        group: int,
        person: tuple[str, str] | None,
    ) -> Any:
        """Hold a grid time, with or without customer details."""
        group = min(group, SERVICES[service].max_group)
        return self.create_one(service, slot, "grid", named, group, None, person)

    @rule(
        target=appointments,
        service=st.sampled_from(SERVICE_KEYS),
        slot=st.integers(0, GRID - 1),
        named=st.sampled_from(NAMED),
        group=st.sampled_from((1, 1, 2)),
        complete=st.sampled_from(("BK", "BK", "RS")),
        person=st.sampled_from(PEOPLE[1:]),
    )
    def create_booking(
        self,
        service: str,
        slot: int,
        named: tuple[int, ...],
        group: int,
        complete: str,
        person: tuple[str, str],
    ) -> Any:
        """Book or reserve a grid time at once, for a customer."""
        group = min(group, SERVICES[service].max_group)
        return self.create_one(service, slot, "grid", named, group, complete, person)

    @precondition(lambda self: self.expired_holds())
    @rule(target=appointments, data=st.data(), person=st.sampled_from(PEOPLE[1:]))
    def book_over_an_expired_hold(self, data: st.DataObject, person: tuple[str, str]) -> Any:
        """Book the time of an expired hold: it no longer counts (decision 8)."""
        hold = self.model.appointments[data.draw(st.sampled_from(self.expired_holds()))]
        named = tuple(self.world.resources.index(rid) for rid in hold.resources)
        slot = (hold.start - self.first_slot) // STEP
        return self.create_one(hold.service, slot, "grid", named, hold.group, "BK", person)

    # -- book and reserve -----------------------------------------------------------------------

    def complete(self, appointment_id: str, person: tuple[str, str] | None, reserve: bool) -> None:
        """Book (or reserve) a hold; the model predicts details, re-validation and refusals."""
        model = self.model
        after = RS if reserve else BK
        details: dict[str, str] = {}
        if person is not None:
            details = {"name": person[0], "email": person[1]}

        def predict() -> tuple[Expected, bool]:
            hold = self.expected(appointment_id)
            if hold.status is not IN:
                raise Refused(InvalidTransition)
            if hold.start < model.now:
                raise Refused(PastAppointment)
            # Details sent replace the hold's; without them the hold's own are used.
            first: str | None
            email: str | None
            if person is not None:
                first, last = split(person[0])
                email = person[1]
            else:
                first, last, email = hold.first_name, hold.last_name, hold.email
            if first is None or email is None:
                raise Refused(FieldRequired)
            assert hold.hold_expires_at is not None
            expired = model.now >= hold.hold_expires_at
            if expired:
                # Decision 20: an expired hold is re-validated, not counting itself.
                try:
                    model.check_slot(
                        hold.service,
                        hold.start,
                        hold.end,
                        hold.resources,
                        hold.group,
                        self.world.resources,
                        exclude=hold.id,
                    )
                except Refused as refused:
                    if refused.error is CapacityExceeded:
                        raise  # still offered, for fewer: BOOKING-138, not an expiry
                    raise Refused(HoldExpired) from None
            updated = attrs.evolve(
                hold,
                status=after,
                hold_expires_at=None,
                email=email,
                first_name=first,
                last_name=last,
                customer=email.casefold(),
            )
            return updated, expired

        ops = self.world.ws.appointments
        call = ops.reserve if reserve else ops.book
        prediction, _ = self.expect(predict, lambda: call(appointment_id, **details))
        if prediction is None:
            return
        updated, expired = prediction
        assert updated.email is not None
        model.customer_for(updated.email)
        if expired:
            updated.checked = model.checked()
        model.appointments[appointment_id] = updated
        model.record(appointment_id, Operation.RESERVE if reserve else Operation.BOOK, IN, after)
        if not reserve:
            model.events.append((Trigger.BOOKING_CONFIRMATION, appointment_id))

    @precondition(lambda self: self.model.ids_in(IN))
    @rule(data=st.data(), person=st.sampled_from(PEOPLE), reserve=st.booleans())
    def complete_a_hold(self, data: st.DataObject, person: tuple[str, str] | None, reserve: bool):
        """Book or reserve a hold (live or expired)."""
        appointment_id = data.draw(st.sampled_from(self.model.ids_in(IN)))
        self.complete(appointment_id, person, reserve=reserve)

    @precondition(lambda self: self.expired_holds())
    @rule(data=st.data(), person=st.sampled_from(PEOPLE), reserve=st.booleans())
    def complete_an_expired_hold(
        self, data: st.DataObject, person: tuple[str, str] | None, reserve: bool
    ) -> None:
        """
        Book or reserve an expired hold: booked if its time is still free, CapacityExceeded when
        it is offered with room for fewer than the hold's group, else HoldExpired.
        """
        appointment_id = data.draw(st.sampled_from(self.expired_holds()))
        self.complete(appointment_id, person, reserve=reserve)

    # -- confirm and undo -----------------------------------------------------------------------

    def confirm_one(self, appointment_id: str) -> None:
        """Confirm: RS -> BK with an event; BK sets confirmed once; others refused."""
        model = self.model

        def predict() -> Expected:
            found = self.expected(appointment_id)
            if found.status not in (RS, BK):
                raise Refused(InvalidTransition)
            return found

        found, result = self.expect(
            predict, lambda: self.world.ws.appointments.confirm(appointment_id)
        )
        if found is None:
            return
        assert (BK, True) == (result.status, result.confirmed)
        if found.status is BK and found.confirmed:
            return  # nothing changes, nothing is recorded (docs: "no change when already set")
        model.record(appointment_id, Operation.CONFIRM, found.status, BK)
        if found.status is RS:
            model.events.append((Trigger.BOOKING_CONFIRMATION, appointment_id))
        found.status, found.confirmed = BK, True

    def undo_one(self, appointment_id: str) -> None:
        """Undo a confirmation: BK clears confirmed (once); others refused."""

        def predict() -> Expected:
            found = self.expected(appointment_id)
            if found.status is not BK:
                raise Refused(InvalidTransition)
            return found

        found, result = self.expect(
            predict, lambda: self.world.ws.appointments.undo_confirm(appointment_id)
        )
        if found is None:
            return
        assert (BK, False) == (result.status, result.confirmed)
        if found.confirmed:
            self.model.record(appointment_id, Operation.UNDO_CONFIRM, BK, BK)
            found.confirmed = False

    @precondition(lambda self: self.model.ids_in(BK, RS))
    @rule(data=st.data(), undo=st.booleans())
    def confirm_or_undo_a_booking(self, data: st.DataObject, undo: bool) -> None:
        """Confirm a reservation or booking, or undo a booking's confirmation."""
        appointment_id = data.draw(st.sampled_from(self.model.ids_in(BK, RS)))
        if undo:
            self.undo_one(appointment_id)
        else:
            self.confirm_one(appointment_id)

    # -- cancel, no-show, delete ----------------------------------------------------------------

    def cancel_one(self, appointment_id: str) -> None:
        """Cancel: BK/RS -> CN unless started, with an event; others refused."""
        model = self.model

        def predict() -> Expected:
            found = self.expected(appointment_id)
            if found.status not in (BK, RS):
                raise Refused(InvalidTransition)
            if found.start < model.now:
                raise Refused(PastAppointment)
            return found

        found, _ = self.expect(predict, lambda: self.world.ws.appointments.cancel(appointment_id))
        if found is None:
            return
        model.record(appointment_id, Operation.CANCEL, found.status, CN)
        model.events.append((Trigger.CANCEL_RESERVATION_CONFIRMATION, appointment_id))
        found.status = CN

    @precondition(lambda self: self.model.ids_in(BK, RS))
    @rule(data=st.data())
    def cancel_a_booking(self, data: st.DataObject) -> None:
        """Cancel a booked or reserved appointment (refused once it started)."""
        self.cancel_one(data.draw(st.sampled_from(self.model.ids_in(BK, RS))))

    def no_show_one(self, appointment_id: str) -> None:
        """No-show: BK -> NS from the start on; others refused."""
        model = self.model

        def predict() -> Expected:
            found = self.expected(appointment_id)
            if found.status is not BK:
                raise Refused(InvalidTransition)
            if model.now < found.start:
                raise Refused(AppointmentNotStarted)
            return found

        found, _ = self.expect(predict, lambda: self.world.ws.appointments.no_show(appointment_id))
        if found is None:
            return
        model.record(appointment_id, Operation.NO_SHOW, BK, NS)
        found.status = NS

    @precondition(lambda self: self.model.ids_in(BK))
    @rule(data=st.data())
    def no_show_a_booking(self, data: st.DataObject) -> None:
        """Record a no-show of a booked appointment (refused before its start)."""
        self.no_show_one(data.draw(st.sampled_from(self.model.ids_in(BK))))

    def delete_one(self, appointment_id: str) -> None:
        """Delete: IN holds are removed for good (expired or not); others refused."""

        def predict() -> Expected:
            found = self.expected(appointment_id)
            if found.status is not IN:
                raise Refused(InvalidTransition)
            return found

        found, _ = self.expect(predict, lambda: self.world.ws.appointments.delete(appointment_id))
        if found is None:
            return
        self.model.record(appointment_id, Operation.DELETE, IN, None)
        del self.model.appointments[appointment_id]

    @precondition(lambda self: self.model.ids_in(IN))
    @rule(data=st.data())
    def delete_a_hold(self, data: st.DataObject) -> None:
        """Delete a hold."""
        self.delete_one(data.draw(st.sampled_from(self.model.ids_in(IN))))

    # -- reschedule -----------------------------------------------------------------------------

    def reschedule_one(
        self,
        appointment_id: str,
        slot: int,
        shape: str,
        named: tuple[int, ...] | None,
        service: str | None,
    ) -> Any:
        """Reschedule: BK -> RE plus a new BK; the model predicts the new record or the refusal."""
        model = self.model
        start, end = slot_times(self.first_slot, slot, shape)
        resources = None if named is None else self.named_ids(named)
        fields: dict[str, Any] = {}
        if resources is not None:
            fields["resource_ids"] = resources
        if service is not None:
            fields["service_id"] = self.world.service_ids[service]

        def predict() -> tuple[Expected, tuple[str, ...] | set[tuple[str, ...]]]:
            old = self.expected(appointment_id)
            if old.status is not BK:
                raise Refused(InvalidTransition)
            if old.start < model.now or start < model.now:
                raise Refused(PastAppointment)
            new_service = service or old.service
            model.check_group(new_service, old.group)
            named_now = old.resources if resources is None else resources
            # Decision 23: the capacity check ignores the old record.
            taken = model.check_slot(
                new_service, start, end, named_now, old.group, self.world.resources, exclude=old.id
            )
            return old, taken

        prediction, new = self.expect(
            predict,
            lambda: self.world.ws.appointments.reschedule(
                appointment_id, start=start, end=end, **fields
            ),
        )
        if new is None:
            return multiple()
        old, taken = prediction
        if isinstance(taken, set):
            assert new.resource_ids in taken, (new.resource_ids, taken)
        else:
            assert taken == new.resource_ids
        model.appointments[new.id] = attrs.evolve(
            old,
            id=new.id,
            service=service or old.service,
            resources=new.resource_ids,
            start=start,
            end=end,
            rescheduled_id=old.id,
            checked=model.checked(),
        )
        old.status = RE
        model.record(old.id, Operation.RESCHEDULE, BK, RE)
        model.record(new.id, Operation.RESCHEDULE, None, BK)
        model.events.append((Trigger.RESCHEDULE_CONFIRMATION, new.id))
        return new.id

    @precondition(lambda self: self.model.ids_in(BK))
    @rule(
        target=appointments,
        data=st.data(),
        slot=st.integers(0, GRID - 1),
        shape=st.sampled_from(SHAPES),
        named=st.none() | st.sampled_from(NAMED),
        service=st.none() | st.sampled_from(SERVICE_KEYS),
    )
    def reschedule_a_booking(
        self,
        data: st.DataObject,
        slot: int,
        shape: str,
        named: tuple[int, ...] | None,
        service: str | None,
    ) -> Any:
        """Reschedule a booked appointment to a drawn time, resources and service."""
        appointment_id = data.draw(st.sampled_from(self.model.ids_in(BK)))
        return self.reschedule_one(appointment_id, slot, shape, named, service)

    # -- any operation on any appointment -------------------------------------------------------

    @rule(
        target=appointments,
        appointment_id=appointments,
        operation=st.sampled_from(OPERATIONS),
        slot=st.integers(0, GRID - 1),
        person=st.sampled_from(PEOPLE),
    )
    def operate(
        self, appointment_id: str, operation: str, slot: int, person: tuple[str, str] | None
    ) -> Any:
        """
        Apply any operation to any appointment, in whatever status (or deleted) it is.

        Most land outside the table (InvalidTransition) or on a deleted hold (NotFound).
        """
        if operation == "reschedule":
            return self.reschedule_one(appointment_id, slot, "grid", None, None)
        if operation == "foreign":
            # Decision 30: another company may not touch it (a deleted one is simply not found).
            expected = Unauthorized if appointment_id in self.model.appointments else NotFound
            with pytest.raises(expected):
                self.world.other.appointments.cancel(appointment_id)
        elif operation in ("book", "reserve"):
            self.complete(appointment_id, person, reserve=operation == "reserve")
        else:
            calls: dict[str, Callable[[str], None]] = {
                "confirm": self.confirm_one,
                "undo": self.undo_one,
                "cancel": self.cancel_one,
                "no_show": self.no_show_one,
                "delete": self.delete_one,
            }
            calls[operation](appointment_id)
        return multiple()

    @precondition(lambda self: self.model.ids_in(*FINAL))
    @rule(data=st.data(), operation=st.sampled_from(OPERATIONS[:-1]))
    def final_records_refuse_everything(self, data: st.DataObject, operation: str) -> None:
        """CN, RE and NS are final: every operation raises InvalidTransition naming the status."""
        appointment_id = data.draw(st.sampled_from(self.model.ids_in(*FINAL)))
        ops = self.world.ws.appointments
        start = self.first_slot + (GRID - 1) * STEP
        calls: dict[str, Callable[[], object]] = {
            "book": lambda: ops.book(appointment_id, name="Bo Li", email="bo@example.com"),
            "reserve": lambda: ops.reserve(appointment_id, name="Bo Li", email="bo@example.com"),
            "confirm": lambda: ops.confirm(appointment_id),
            "undo": lambda: ops.undo_confirm(appointment_id),
            "cancel": lambda: ops.cancel(appointment_id),
            "reschedule": lambda: ops.reschedule(appointment_id, start=start, end=start + DURATION),
            "no_show": lambda: ops.no_show(appointment_id),
            "delete": lambda: ops.delete(appointment_id),
        }
        with pytest.raises(InvalidTransition) as info:
            calls[operation]()

        assert (self.model.appointments[appointment_id].status, OPERATION_OF[operation]) == (
            info.value.status,
            info.value.operation,
        )

    # -- time -----------------------------------------------------------------------------------

    @rule(minutes=st.sampled_from((1, 5, 9, 10, 11, 15, 30, 45)))
    def advance(self, minutes: int) -> None:
        """Move the clock forward (around the 10-minute hold timer, and past starts)."""
        self.model.now = self.world.clock.advance(timedelta(minutes=minutes))

    @rule()
    def sweep_expired_holds(self) -> None:
        """Sweep: expired holds are deleted (EXPIRE), live ones stay; a second sweep finds none."""
        model = self.model
        expired = self.expired_holds()

        swept = self.world.ws.appointments.sweep_expired_holds()

        assert len(expired) == swept
        assert 0 == self.world.ws.appointments.sweep_expired_holds()
        for appointment_id in expired:
            model.record(appointment_id, Operation.EXPIRE, IN, None)
            del model.appointments[appointment_id]

    # -- invariants -----------------------------------------------------------------------------

    def read(self) -> tuple[list[Appointment], dict[str, str], list[AuditEntry], list[OutboxEvent]]:
        """Return the store's appointments, customers (id -> folded e-mail), audit and outbox."""
        with self.world.store.read() as reader:
            return (
                reader.find(Appointment, company_id=None),
                {c.id: (c.email or "").casefold() for c in reader.find(Customer, company_id=None)},
                reader.find(AuditEntry, company_id=None),
                reader.find(OutboxEvent, company_id=None),
            )

    @invariant()
    def store_equals_model(self) -> None:
        """The store holds exactly the model's appointments, in creation order."""
        stored, customers, _, _ = self.read()
        keys = self.world.service_keys
        actual = [
            (
                a.id,
                keys[a.service_id],
                a.resource_ids,
                a.status,
                a.start,
                a.end,
                a.group_size,
                a.hold_expires_at,
                a.email,
                a.first_name,
                a.last_name,
                customers[a.customer_id] if a.customer_id is not None else None,
                a.confirmed,
                a.rescheduled_id,
            )
            for a in stored
        ]
        expected = [a.view() for a in self.model.appointments.values()]
        assert expected == actual
        assert sorted(self.model.customers) == sorted(customers.values())

    @invariant()
    def no_resource_over_its_limits(self) -> None:
        """At every instant each resource's active appointments fit the booking limit and capacity."""
        stored, _, _, _ = self.read()
        now = self.world.clock.now()
        keys = self.world.service_keys
        for resource_id in self.world.resources:
            spans = [
                (
                    a.start,
                    a.end + SERVICES[keys[a.service_id]].padding,
                    a.group_size,
                    self.model.appointments[a.id].checked,
                    keys[a.service_id],
                )
                for a in stored
                if resource_id in a.resource_ids and a.is_active(now)
            ]
            for point in {span[0] for span in spans}:
                here = [span for span in spans if span[0] <= point < span[1]]
                # Decision 8a: a resource serves one service at a time.
                assert len({span[4] for span in here}) == 1, (resource_id, point, here)
                # The booking checked last saw all the others: its service's limits must hold.
                last = max(here, key=lambda span: span[3])
                people = sum(span[2] for span in here)
                assert len(here) <= BOOKINGS_PER_SLOT, (resource_id, point, here)
                assert people <= SERVICES[last[4]].capacity, (resource_id, point, here)

    @invariant()
    def statuses_follow_the_table(self) -> None:
        """Every status change seen in the store and every audit entry is a pair of the table."""
        stored, _, audit, _ = self.read()
        current = {a.id: a.status for a in stored}
        for appointment_id in self.seen.keys() | current.keys():
            before, after = self.seen.get(appointment_id), current.get(appointment_id)
            if appointment_id in self.seen and before is after:
                continue
            outcome = DELETED if after is None else after
            assert any(
                TRANSITIONS.get((before, operation)) == outcome for operation in Operation
            ), (appointment_id, before, after)
        self.seen = current
        trails: dict[str, list[tuple[Operation, Any, Any]]] = {}
        for entry in audit:
            outcome = DELETED if entry.status_after is None else entry.status_after
            assert outcome == TRANSITIONS.get((entry.status_before, entry.operation)), entry
            trails.setdefault(entry.appointment_id, []).append(
                (entry.operation, entry.status_before, entry.status_after)
            )
        assert self.model.audit == trails

    @invariant()
    def one_event_per_transition(self) -> None:
        """The outbox holds the expected appointment events in order, and one per new customer."""
        _, customers, _, events = self.read()
        ordered = sorted(events, key=lambda event: event.sequence)
        assert len({event.sequence for event in events}) == len(events)
        appointment_events = [
            (event.trigger, event.entity_id)
            for event in ordered
            if event.trigger in APPOINTMENT_TRIGGERS
        ]
        customer_events = [
            (event.trigger, customers[event.entity_id])
            for event in ordered
            if event.trigger in CUSTOMER_TRIGGERS
        ]
        assert self.model.events == appointment_events
        expected = [(Trigger.CUSTOMER_CREATED, email) for email in self.model.customer_events]
        assert expected == customer_events


class FallBackAppointmentMachine(AppointmentMachine):
    """
    The same programs on the night New York falls back (Sunday 2026-11-01).

    The grid runs from 01:00 EDT (05:00 UTC) through the repeated hour (01:00-01:45 EST is
    06:00-06:45 UTC) to 02:45 EST, in absolute 15-minute steps from local midnight.
    """

    clock_start = datetime(2026, 11, 1, 4, 45, tzinfo=UTC)
    first_slot = datetime(2026, 11, 1, 5, 0, tzinfo=UTC)


class SpringForwardAppointmentMachine(AppointmentMachine):
    """
    The same programs on the night New York springs forward (Sunday 2026-03-08).

    The grid runs from 01:00 EST (06:00 UTC) over the missing hour: 01:45 EST (06:45 UTC) is
    followed by 03:00 EDT (07:00 UTC).
    """

    clock_start = datetime(2026, 3, 8, 5, 45, tzinfo=UTC)
    first_slot = datetime(2026, 3, 8, 6, 0, tzinfo=UTC)


# CI: at least 200 programs of 50 steps; a profile asking for more (deep: 10,000) gets more.
PROGRAMS = settings(max_examples=max(200, settings().max_examples), stateful_step_count=50)

TestAppointmentMachine = AppointmentMachine.TestCase
TestAppointmentMachine.settings = PROGRAMS

TestFallBackAppointmentMachine = FallBackAppointmentMachine.TestCase
TestFallBackAppointmentMachine.settings = PROGRAMS

TestSpringForwardAppointmentMachine = SpringForwardAppointmentMachine.TestCase
TestSpringForwardAppointmentMachine.settings = PROGRAMS
