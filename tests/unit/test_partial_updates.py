"""
Nested records in an update (docs/semantics.md, "Nested records in an update").

A mapping for a nested record changes the keys it names and keeps the stored value's other
fields, at every depth; a record value replaces the stored one whole; a create still fills what
a mapping leaves out with the defaults. A refused change leaves the store as it was.
"""

from __future__ import annotations

from typing import Any

import attrs
import pytest

from slotwise import Location, Resource, Scheduler, Service, Workspace
from slotwise.errors import FieldRequired, OutOfRange, UnexpectedField, ValidationError
from slotwise.model import BookingWindow, DayWindow, LocationSettings, ResourceOptions
from slotwise.operations._inputs import converter
from slotwise.operations._partial import resolved


def _stored(scheduler: Scheduler, company_id: str) -> list[Any]:
    """The company's locations, resources and services, as the store holds them."""
    with scheduler.store.read() as reader:
        return [
            record
            for kind in (Location, Resource, Service)
            for record in reader.find(kind, company_id=company_id)
        ]


@pytest.fixture
def settled(ws: Workspace, location: Location) -> Location:
    """The location with settings, an address and business hours of its own."""
    return ws.locations.update(
        location.id,
        settings=LocationSettings(
            booking_timer_mins=5,
            booking_policy="No refunds",
            booking_window=BookingWindow(book_ahead_unit="weeks", book_ahead_value=4),
        ),
        address={"address_line1": "1 Main St", "city": "Springfield", "postal_code": "12345"},
        business_hours={"tue": {"is_24_hours": True}},
    )


def test_a_mapping_changes_only_the_keys_it_names(ws: Workspace, settled: Location):
    """settings={"late_cancel_hours": 2} keeps the timer, the policy and the booking window."""
    updated = ws.locations.update(settled.id, settings={"late_cancel_hours": 2})

    assert 2 == updated.settings.late_cancel_hours
    assert (5, "No refunds", BookingWindow(book_ahead_unit="weeks", book_ahead_value=4)) == (
        updated.settings.booking_timer_mins,
        updated.settings.booking_policy,
        updated.settings.booking_window,
    )
    assert updated == ws.locations.get(settled.id)


def test_nested_mappings_keep_their_siblings_at_every_depth(ws: Workspace, settled: Location):
    """A booking window's value, a day's hours and an address's postal code, each alone."""
    updated = ws.locations.update(
        settled.id,
        settings={"booking_window": {"book_ahead_value": 8}},
        address={"postal_code": "99999"},
        business_hours={"mon": {"is_open": True, "start_time": 700, "end_time": 1700}},
    )

    assert BookingWindow(book_ahead_unit="weeks", book_ahead_value=8) == (
        updated.settings.booking_window
    )
    assert ("1 Main St", "Springfield", "99999") == (
        updated.address.address_line1,
        updated.address.city,
        updated.address.postal_code,
    )
    assert (True, 700, 1700) == (
        updated.business_hours.mon.is_open,
        updated.business_hours.mon.start_time,
        updated.business_hours.mon.end_time,
    )
    assert settled.business_hours.tue == updated.business_hours.tue
    assert "No refunds" == updated.settings.booking_policy


def test_a_record_value_replaces_the_stored_one_whole(ws: Workspace, settled: Location):
    """settings=LocationSettings(...) is the whole settings: what it leaves out is the default."""
    updated = ws.locations.update(settled.id, settings=LocationSettings(late_cancel_hours=2))

    assert LocationSettings(late_cancel_hours=2) == updated.settings


def test_weekly_hours_keep_the_days_not_named(ws: Workspace, location: Location):
    """A service's availability={"mon": ...} keeps Tuesday to Saturday as they were."""
    service = ws.services.create(
        name="Massage",
        duration=60,
        reason="r",
        availability={day: {"start_time": 900, "end_time": 1700} for day in ("mon", "tue", "sat")},
    )

    updated = ws.services.update(
        service.id, availability={"mon": {"start_time": 1000, "end_time": 1200}}
    )

    assert DayWindow(start_time=1000, end_time=1200) == updated.availability.mon
    assert (service.availability.tue, service.availability.sat) == (
        updated.availability.tue,
        updated.availability.sat,
    )


def test_resource_options_and_phones_keep_their_other_fields(ws: Workspace, location: Location):
    """options={"sort_key": 9} keeps the colour; phone={"business_phone": ...} keeps the mobile."""
    resource = ws.resources.create(
        name="Ana",
        reason="r",
        options={"display_color": "#ff0000", "sort_key": 5, "gender": "f"},
        phone={"mobile_phone": "5551234567", "business_phone": "5557654321"},
    )

    updated = ws.resources.update(
        resource.id, options={"sort_key": 9}, phone={"business_phone": "5550000000"}
    )
    (bulk,) = ws.resources.update_many([(resource.id, {"options": {"gender": "m"}})])

    assert ("#ff0000", 9, "f") == (
        updated.options.display_color,
        updated.options.sort_key,
        updated.options.gender,
    )
    assert ("5551234567", "5550000000") == (
        updated.phone.mobile_phone,
        updated.phone.business_phone,
    )
    assert ResourceOptions(display_color="#ff0000", sort_key=9, gender="m") == bulk.options


def test_a_nested_record_not_stored_yet_is_made_from_the_mapping(ws: Workspace, location: Location):
    """A service without a booking window gets one of the given fields and the defaults."""
    service = ws.services.create(name="Massage", duration=60, reason="r")
    assert service.booking_window is None

    updated = ws.services.update(service.id, booking_window={"book_ahead_value": 3})

    assert BookingWindow(book_ahead_value=3) == updated.booking_window


def test_creates_fill_what_a_mapping_leaves_out_with_defaults(ws: Workspace):
    """A create takes a mapping as the whole record, as before."""
    created = ws.locations.create(name="Uptown", settings={"late_cancel_hours": 2})

    assert LocationSettings(late_cancel_hours=2) == created.settings


@pytest.mark.parametrize(
    ("changes", "error", "field"),
    [
        ({"settings": {"booking_timer_mins": 0}}, OutOfRange, "booking_timer_mins"),
        (
            {"settings": {"booking_window": {"book_ahead_value": 999}}},
            OutOfRange,
            "book_ahead_value",
        ),
        ({"settings": {"colour": "red"}}, UnexpectedField, "settings.colour"),
        ({"business_hours": {"mon": {"start_time": "nine"}}}, ValidationError, "start_time"),
    ],
)
def test_a_refused_part_changes_nothing(
    scheduler: Scheduler,
    ws: Workspace,
    settled: Location,
    changes: dict[str, Any],
    error: type[Exception],
    field: str | None,
):
    """A value a nested record refuses, at any depth, is an error and the store is unchanged."""
    before = _stored(scheduler, settled.company_id)

    with pytest.raises(error) as caught:
        ws.locations.update(settled.id, **changes)

    if field is not None:
        assert field in str(caught.value)
    assert before == _stored(scheduler, settled.company_id)


@attrs.frozen(kw_only=True)
class _Inner:
    """A nested record with a required field."""

    code: str
    size: int = 1


@attrs.frozen(kw_only=True)
class _Outer:
    """A record holding an optional :class:`_Inner`."""

    inner: _Inner | None = None


def test_a_record_made_in_part_without_a_stored_one_needs_its_required_fields():
    """With nothing stored to keep, a part missing a required field is FieldRequired by path."""
    convert = converter(_Inner | None, name="inner", partial=True)
    part = convert({"size": 3}, "inner")

    with pytest.raises(FieldRequired) as caught:
        resolved(_Outer(), {"inner": part})
    kept = resolved(_Outer(inner=_Inner(code="a")), {"inner": part})

    assert "inner.code" == caught.value.field
    assert {"inner": _Inner(code="a", size=3)} == kept


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda ws, loc: ws.locations.update(loc, settings={"booking_timer_mins": 0}),
         "settings.booking_timer_mins"),
        (lambda ws, loc: ws.locations.update(
            loc, settings={"booking_window": {"book_ahead_value": 999}}),
         "settings.booking_window.book_ahead_value"),
        (lambda ws, loc: ws.locations.update(
            loc, business_hours={"wed": {"is_open": True, "start_time": 2500, "end_time": 2600}}),
         "business_hours.wed.start_time"),
        (lambda ws, loc: ws.locations.create(name="X", settings={"booking_timer_mins": 0}),
         "settings.booking_timer_mins"),
        (lambda ws, loc: ws.locations.update(
            loc, business_hours={"wed": {"is_open": True, "start_time": 1800, "end_time": 1700}}),
         "business_hours.wed.start_time"),
    ],
    ids=["update", "two deep", "a day", "create", "a day's range"],
)  # fmt: skip
def test_a_nested_refusal_names_the_whole_path(
    ws: Workspace, settled: Location, call: Any, field: str
):
    """A nested record's validator names its own field; the caller reads the path it wrote."""
    with pytest.raises(ValidationError) as refused:
        call(ws, settled.id)

    assert field == refused.value.field  # type: ignore[attr-defined]
    assert str(refused.value).startswith(field)


def test_a_day_is_given_whole(ws: Workspace, settled: Location):
    """A day's hours are one value: a 24-hour Tuesday set to 09:00-17:00 is 09:00-17:00."""
    assert settled.business_hours.tue.is_24_hours

    updated = ws.locations.update(
        settled.id, business_hours={"tue": {"is_open": True, "start_time": 900, "end_time": 1700}}
    )

    assert (True, 900, 1700, False) == (
        updated.business_hours.tue.is_open,
        updated.business_hours.tue.start_time,
        updated.business_hours.tue.end_time,
        updated.business_hours.tue.is_24_hours,
    )
    assert settled.business_hours.mon == updated.business_hours.mon


def test_a_repeat_rule_is_given_whole(ws: Workspace, location: Location):
    """A weekly block made monthly: the new rule alone, not the old weekdays kept on it."""
    from datetime import date

    resource = ws.resources.create(name="Ana", reason="r")
    block = ws.resources.create_block(
        resource.id,
        start_date=date(2026, 12, 1),
        end_date="never",
        start_time=1200,
        end_time=1300,
        reason="Lunch",
        repeat={"frequency": "W", "weekdays": "135"},
    )

    monthly = ws.resources.update_block(block.id, repeat={"frequency": "M", "month_day": 15})

    assert monthly.repeat is not None
    assert (15, frozenset()) == (monthly.repeat.month_day, monthly.repeat.weekdays)
