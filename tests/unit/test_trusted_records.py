"""
Trusted constructors (``slotwise.model._trusted``): the records a booking builds without their
checks are the records the validating constructors build, and what a caller sends is still
refused with the validators' own errors.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from slotwise import Company, Location, Scheduler, Workspace
from slotwise.errors import SlotwiseError
from slotwise.model import (
    Appointment,
    AppointmentStatus,
    AuditEntry,
    FieldValue,
    Operation,
    Principal,
    Resource,
    Service,
)
from slotwise.model._shared import _SEEN
from slotwise.model._trusted import is_record_instant, trusted_constructor
from slotwise.model.appointments import (
    stored_custom_fields,
    trusted_appointment,
    trusted_appointment_builder,
)
from slotwise.model.events import trusted_audit_entry
from slotwise.storage.memory import MemoryStore
from slotwise.testing import SequentialIds
from tests.strategies import utc_instants

NY = ZoneInfo("America/New_York")
START = datetime(2026, 1, 6, 15, 0, tzinfo=UTC)  # Tuesday 10:00 in New York


def _text(max_size: int) -> st.SearchStrategy[str]:
    return st.text(max_size=max_size)


def _maybe(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.none() | strategy


_IDS = st.text(min_size=1, max_size=12)
_FIELD_VALUES = st.lists(
    st.builds(
        FieldValue, name=st.text(min_size=1, max_size=64).filter(str.strip), value=_text(100)
    ),
    max_size=3,
).map(tuple)


@st.composite
def appointment_values(draw: st.DrawFn) -> dict[str, Any]:
    """Draw every field of a valid appointment, in the form the record stores it."""
    start = draw(utc_instants())
    hold = draw(_maybe(utc_instants()))
    return {
        "id": draw(_IDS),
        "company_id": draw(_IDS),
        "location_id": draw(_IDS),
        "calendar_id": draw(_maybe(_IDS)),
        "service_id": draw(_IDS),
        "resource_ids": tuple(draw(st.lists(_IDS, max_size=3))),
        "customer_id": draw(_maybe(_IDS)),
        "status": draw(st.sampled_from(AppointmentStatus)),
        "start": start,
        "end": start + timedelta(minutes=draw(st.integers(1, 600))),
        "group_size": draw(st.integers(1, 10_000)),
        "created_at": draw(utc_instants()),
        "hold_expires_at": hold,
        "last_modified_at": draw(_maybe(utc_instants())),
        "last_modified_by": draw(_maybe(_text(300))),
        "rescheduled_id": draw(_maybe(_IDS)),
        "confirmation_number": draw(_maybe(_IDS)),
        "booked_by": draw(_maybe(_text(255))),
        "online_booking": draw(st.booleans()),
        "confirmed": draw(st.booleans()),
        "email": draw(_maybe(_text(255))),
        "first_name": draw(_maybe(_text(255))),
        "last_name": draw(_maybe(_text(255))),
        "phone": draw(_maybe(st.text(min_size=7, max_size=15))),
        "phone_type": draw(_maybe(_text(32))),
        "phone_ext": draw(_maybe(_text(10))),
        "customer_message": draw(_maybe(_text(4000))),
        "location_text": draw(_maybe(_text(255))),
        "latitude": draw(_maybe(_text(20))),
        "longitude": draw(_maybe(_text(20))),
        "payment_charge_id": draw(_maybe(_IDS)),
        "payment_refund_id": draw(_maybe(_IDS)),
        "payment_status": draw(st.integers(0, 100)),
        "custom_fields": draw(
            st.dictionaries(st.sampled_from([f"field{n}" for n in range(1, 11)]), _text(50))
        ),
        "appointment_booking_fields": draw(_FIELD_VALUES),
        "customer_booking_fields": draw(_FIELD_VALUES),
        "meeting_url": draw(_maybe(st.sampled_from(["https://meet.example/a", "http://x.io/b"]))),
        "meeting_error": draw(_maybe(_text(500))),
        "idempotency_key": draw(_maybe(_text(255))),
        "idempotency_fingerprint": draw(_maybe(st.text(alphabet="0123456789abcdef", max_size=32))),
    }


def _trusted_values(values: dict[str, Any]) -> dict[str, Any]:
    """Return *values* as a booking hands them to the trusted constructor."""
    return {**values, "custom_fields": stored_custom_fields(values["custom_fields"])}


class TestTrustedAppointment:
    @given(appointment_values())
    def test_same_record_as_the_validating_constructor(self, values: dict[str, Any]):
        """From the same valid values both constructors build equal records, reprs and layout."""
        validated = Appointment(**values)

        trusted = trusted_appointment(**_trusted_values(values))

        assert validated == trusted
        assert repr(validated) == repr(trusted)
        assert hash(validated) == hash(trusted)
        assert validated._rare == trusted._rare  # type: ignore[attr-defined]

    @given(appointment_values())
    def test_stored_values_rebuild_the_record(self, values: dict[str, Any]):
        """A record's own field values (as a new customer's booking rebuilds it) give it back."""
        validated = Appointment(**values)

        rebuilt = trusted_appointment(**attrs.asdict(validated, recurse=False))

        assert validated == rebuilt
        assert repr(validated) == repr(rebuilt)

    @given(appointment_values(), st.data())
    def test_a_mapping_of_some_fields_gives_the_same_record(
        self, values: dict[str, Any], data: st.DataObject
    ):
        """Built from a mapping of some fields (the others at their defaults), the record is the one
        the validating constructor builds from those fields."""
        optional = sorted(
            field.name for field in attrs.fields(Appointment) if field.default is not attrs.NOTHING
        )
        left_out = data.draw(
            st.sets(st.sampled_from(optional).filter(lambda name: name != "custom_fields"))
        )
        given_values = {name: value for name, value in values.items() if name not in left_out}
        validated = Appointment(**given_values)

        trusted = trusted_appointment_builder(tuple(given_values))(_trusted_values(given_values))

        assert validated == trusted
        assert repr(validated) == repr(trusted)
        assert validated._rare == trusted._rare  # type: ignore[attr-defined]

    def test_defaults_are_the_validating_constructors(self):
        """Fields left out take the values the validating constructor stores for them."""
        required: dict[str, Any] = {
            "id": "a",
            "company_id": "c",
            "location_id": "l",
            "service_id": "s",
            "status": AppointmentStatus.BOOKED,
            "start": START,
            "end": START + timedelta(minutes=30),
            "created_at": START,
        }
        validated = Appointment(**required)

        trusted = trusted_appointment(**required, custom_fields=stored_custom_fields(None))

        assert validated == trusted
        assert repr(validated) == repr(trusted)
        assert validated._rare is trusted._rare is None  # type: ignore[attr-defined]

    def test_instants_and_resources_are_shared(self):
        """The trusted constructor keeps the memory sharing of equal instants and resource ids."""
        _SEEN.clear()
        values: dict[str, Any] = {
            "id": "a",
            "company_id": "c",
            "location_id": "l",
            "service_id": "s",
            "status": AppointmentStatus.BOOKED,
            "created_at": START,
            "custom_fields": stored_custom_fields(None),
        }
        first = Appointment(
            **values, start=START, end=START + timedelta(minutes=30), resource_ids=["r1", "r2"]
        )

        second = trusted_appointment(
            **values,
            start=START.replace(),
            end=START + timedelta(minutes=30),
            resource_ids=("r1", "r2"),
        )

        assert first.start is second.start
        assert first.end is second.end
        assert first.resource_ids is second.resource_ids


class TestTrustedAuditEntry:
    @given(
        id=_IDS,
        operation=st.sampled_from(Operation),
        modified_on=utc_instants(),
        modified_by=_maybe(_text(255)),
        before=_maybe(st.sampled_from(AppointmentStatus)),
        after=_maybe(st.sampled_from(AppointmentStatus)),
    )
    def test_same_record_as_the_validating_constructor(
        self, id, operation, modified_on, modified_by, before, after
    ):
        """From the same valid values both constructors build equal audit entries and reprs."""
        values = {
            "id": id,
            "company_id": "c",
            "location_id": "l",
            "appointment_id": "a",
            "operation": operation,
            "modified_on": modified_on,
            "modified_by": modified_by,
            "status_before": before,
            "status_after": after,
        }

        trusted = trusted_audit_entry(**values)

        assert AuditEntry(**values) == trusted
        assert repr(AuditEntry(**values)) == repr(trusted)


class TestTrustedConstructor:
    def test_refuses_a_class_with_a_post_init_hook(self):
        """A record whose post-init hook checks something gets no trusted constructor."""
        with pytest.raises(TypeError, match="__attrs_post_init__"):
            trusted_constructor(Principal)

    def test_a_mapping_constructor_refuses_unknown_or_missing_fields(self):
        """Given fields must be the record's, and must include those with a factory default."""
        everything = tuple(field.name for field in attrs.fields(Appointment))
        with pytest.raises(TypeError, match="no fields"):
            trusted_constructor(Appointment, given=(*everything, "colour"))
        all_but_one = tuple(name for name in everything if name != "custom_fields")
        with pytest.raises(TypeError, match="custom_fields has no plain default"):
            trusted_constructor(Appointment, given=all_but_one)

    def test_refuses_unknown_kept_conversions(self):
        """A conversion kept for a field the record does not have is a mistake, refused."""
        with pytest.raises(TypeError, match="no fields"):
            trusted_constructor(AuditEntry, keep={"start": str})

    @pytest.mark.parametrize(
        ("value", "expected"),
        [
            (START, True),
            (START.astimezone(NY), False),
            (datetime(9999, 1, 1, tzinfo=UTC), False),
            (datetime(1899, 12, 31, tzinfo=UTC), False),
            (START.replace(tzinfo=None), False),
            ("2026-01-06", False),
        ],
    )
    def test_record_instants(self, value: object, expected: bool):
        """Only aware UTC datetimes within decision 36's years are stored as they are."""
        assert expected is is_record_instant(value)


def _refusal(**bad: Any) -> tuple[type[SlotwiseError], str | None, str]:
    """Return the error the validating Appointment constructor raises for the values *bad*."""
    with pytest.raises(SlotwiseError) as caught:
        Appointment(
            id="a",
            company_id="c",
            location_id="l",
            service_id="s",
            status=AppointmentStatus.BOOKED,
            start=START,
            end=START + timedelta(minutes=30),
            created_at=START,
            **bad,
        )
    return type(caught.value), getattr(caught.value, "field", None), str(caught.value)


def _refused(ws: Workspace, service: Service, resource: Resource, **sent: Any) -> tuple[Any, ...]:
    """Return the error a booking of *sent* raises, after checking it left the store alone."""
    store = ws.appointments._ctx.store
    with store.read() as reader:
        before = reader.find(Appointment, company_id=None), reader.find(AuditEntry, company_id=None)
    with pytest.raises(SlotwiseError) as caught:
        ws.appointments.create(
            service.id,
            START,
            START + timedelta(minutes=30),
            resource_id=resource.id,
            complete_booking="BK",
            **sent,
        )
    with store.read() as reader:
        after = reader.find(Appointment, company_id=None), reader.find(AuditEntry, company_id=None)
    assert before == after
    return type(caught.value), getattr(caught.value, "field", None), str(caught.value)


_DETAILS = {"name": "Ann Lee", "email": "ann@example.com"}
LONG = "x" * 256


class TestSentValuesStillChecked:
    @pytest.mark.parametrize(
        ("sent", "bad"),
        [
            ({"booked_by": LONG}, {"booked_by": LONG}),
            ({"custom_fields": {"nope": "x"}}, {"custom_fields": {"nope": "x"}}),
            ({"custom_fields": {"field1": LONG * 16}}, {"custom_fields": {"field1": LONG * 16}}),
            ({"name": "A" * 256}, {"first_name": "A" * 256}),
            ({"name": "Ann " + LONG}, {"last_name": LONG}),
            ({"phone": "123"}, {"phone": "123"}),
            ({"phone": "1" * 16}, {"phone": "1" * 16}),
            ({"phone": ""}, {"phone": ""}),
            # The constructor converts custom fields before it validates anything.
            (
                {"booked_by": LONG, "custom_fields": {"nope": "x"}},
                {"booked_by": LONG, "custom_fields": {"nope": "x"}},
            ),
            # Validators run in field order: booked_by before the customer's details.
            (
                {"booked_by": LONG, "name": "A" * 256, "phone": "1"},
                {"booked_by": LONG, "first_name": "A" * 256, "phone": "1"},
            ),
            ({"name": "A" * 256, "phone": "1"}, {"first_name": "A" * 256, "phone": "1"}),
        ],
    )
    def test_refused_as_the_validating_constructor_refuses(
        self,
        ws: Workspace,
        location: Location,
        service: Service,
        resource: Resource,
        sent: dict[str, Any],
        bad: dict[str, Any],
    ):
        """
        A bad value sent with a booking (of the kind the boundary takes) gets the appointment
        validator's own error.
        """
        assert _refusal(**bad) == _refused(ws, service, resource, **{**_DETAILS, **sent})

    def test_email_stored_as_text_is_checked(
        self, ws: Workspace, location: Location, service: Service, resource: Resource
    ):
        """With notifications off the e-mail sent is text, refused above 255 characters."""
        ws.company.update(notifications_disabled=True)

        assert _refusal(email=LONG) == _refused(ws, service, resource, name="Ann", email=LONG)

    def test_a_blank_phone_falls_back_to_the_customers(
        self, ws: Workspace, location: Location, service: Service, resource: Resource
    ):
        """A phone sent blank for a known customer is not the record's: the customer's is kept."""
        customer = ws.customers.create(first_name="Bo", email="bo@example.com", phone="5550100")

        booked = ws.appointments.create(
            service.id,
            START,
            START + timedelta(minutes=30),
            resource_id=resource.id,
            customer_id=customer.id,
            phone="",
            complete_booking="BK",
        )

        assert ("5550100", "Bo", "bo@example.com") == (
            booked.phone,
            booked.first_name,
            booked.email,
        )

    def test_principal_user_checked_by_the_audit_entry(
        self,
        scheduler: Scheduler,
        company: Company,
        ws: Workspace,
        location: Location,
        service: Service,
    ):
        """An over-long principal user is refused by the audit entry's validator, nothing kept."""
        resource = ws.resources.create(name="Ana", reason="r")
        named = scheduler.as_principal(Principal(company_id=company.id, user=LONG))
        with pytest.raises(SlotwiseError) as expected:
            AuditEntry(
                id="e",
                company_id="c",
                location_id="l",
                appointment_id="a",
                operation=Operation.CREATE_BOOKED,
                modified_on=START,
                modified_by=LONG,
            )

        refused = _refused(named, service, resource, **_DETAILS)

        assert (type(expected.value), "modified_by", str(expected.value)) == refused


class _ZonedClock:
    """A host clock answering in New York time (aware, not UTC)."""

    def __init__(self, now: datetime) -> None:
        self._now = now

    def now(self) -> datetime:
        """Return the instant in New York time."""
        return self._now.astimezone(NY)


class TestOtherInstants:
    def test_a_clock_in_another_zone_gets_the_validating_constructor(self):
        """Instants not in UTC are converted as before: the records keep them in UTC."""
        now = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
        zoned = Scheduler(MemoryStore(), clock=_ZonedClock(now), ids=SequentialIds())
        company = zoned.create_company(name="Acme", timezone="America/New_York")
        ws = zoned.for_company(company.id)
        ws.locations.create(name="Downtown")
        service = ws.services.create(name="Cut", duration=30, reason="r")
        resource = ws.resources.create(name="Ana", reason="r")

        booked = ws.appointments.create(
            service.id,
            START.astimezone(NY),
            START + timedelta(minutes=30),
            resource_id=resource.id,
            complete_booking="BK",
            **_DETAILS,
        )

        assert (now, UTC, START, UTC) == (
            booked.created_at,
            booked.created_at.tzinfo,
            booked.start,
            booked.start.tzinfo,
        )
        with ws.appointments._ctx.store.read() as reader:
            (entry,) = reader.find(AuditEntry, company_id=None)
        assert (now, UTC) == (entry.modified_on, entry.modified_on.tzinfo)
