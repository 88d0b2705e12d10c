"""Location operations: create, bulk create, update, get, list, holidays, scope, reminders."""

from __future__ import annotations

from datetime import date

import pytest

from slotwise import (
    BusinessHours,
    Calendar,
    DayHours,
    DuplicateRecord,
    FieldTooLong,
    Holiday,
    InconsistentFields,
    InvalidTimeZone,
    LocationSettings,
    NotFound,
    OutOfRange,
    Reminder,
    ReminderSchedule,
    SettingsScope,
    Unauthorized,
    Workspace,
)


class TestCreate:
    def test_first_location_is_primary_with_a_calendar(self, ws: Workspace):
        """The first location is primary and gets a primary calendar with bookings_per_slot 1."""
        location = ws.locations.create(name="Downtown")

        assert location.is_primary
        assert location.timezone == "America/New_York"
        with ws.locations._ctx.store.read() as reader:
            calendar = reader.get(Calendar, location.primary_calendar_id or "")
        assert calendar is not None
        assert (calendar.bookings_per_slot, calendar.primary) == (1, True)

    def test_second_location_is_not_primary(self, ws: Workspace):
        """Only the company's first location is primary."""
        ws.locations.create(name="Downtown")

        second = ws.locations.create(name="Uptown", timezone="America/Chicago")

        assert (second.is_primary, second.timezone) == (False, "America/Chicago")

    def test_name_limit_boundary(self, ws: Workspace):
        """A 50-character name is accepted; 51 characters are refused (spec: Limits)."""
        assert ws.locations.create(name="x" * 50).name == "x" * 50
        with pytest.raises(FieldTooLong) as info:
            ws.locations.create(name="y" * 51)

        assert (info.value.field, info.value.limit, info.value.requested) == ("name", 50, 51)

    def test_duplicate_friendly_id_is_refused(self, ws: Workspace):
        """Friendly ids are unique within a company."""
        ws.locations.create(name="A", friendly_id="main")

        with pytest.raises(DuplicateRecord):
            ws.locations.create(name="B", friendly_id="main")

    def test_bulk_create_is_all_or_nothing(self, ws: Workspace):
        """A bulk create with one invalid location creates none."""
        with pytest.raises(FieldTooLong):
            ws.locations.create_many([{"name": "Fine"}, {"name": "z" * 51}])

        assert ws.locations.list().total == 0

    def test_bulk_create_names_the_refused_location(self, ws: Workspace):
        """A location refused after the call boundary is named by its place: locations[1]."""
        with pytest.raises(InvalidTimeZone) as info:
            ws.locations.create_many([{"name": "Fine"}, {"name": "Moon", "timezone": "Mars/Base"}])

        assert "locations[1].timezone" == info.value.field
        assert info.value.message.startswith("locations[1].timezone must be")

    def test_is_24_hours_is_normalised(self, ws: Workspace):
        """A 24-hour day is stored open 0..2400 whatever times were sent."""
        hours = BusinessHours(
            mon=DayHours(is_open=False, start_time=900, end_time=1000, is_24_hours=True)
        )

        location = ws.locations.create(name="Gym", business_hours=hours)

        assert location.business_hours.mon == DayHours(
            is_open=True, start_time=0, end_time=2400, is_24_hours=True
        )


class TestListAndGet:
    def test_filters_and_paging(self, ws: Workspace):
        """Name filters ignore case and match parts; pages report totals and hasMore."""
        for name in ("North Side", "South Side", "Airport"):
            ws.locations.create(name=name)

        page = ws.locations.list(name="side", limit=1)

        assert [loc.name for loc in page.data] == ["North Side"]
        assert (page.total, page.count, page.has_more) == (2, 1, True)

    def test_other_company_is_unauthorized(self, ws: Workspace, other_ws: Workspace):
        """A location of another company raises Unauthorized."""
        theirs = other_ws.locations.list().data[0]

        with pytest.raises(Unauthorized):
            ws.locations.get(theirs.id)

    def test_missing_location_is_not_found(self, ws: Workspace):
        """An unknown id raises NotFound."""
        with pytest.raises(NotFound):
            ws.locations.get("nope")


class TestSettings:
    def test_holidays_replace(self, ws: Workspace):
        """Setting holidays replaces the list, sorted by date."""
        location = ws.locations.create(name="Downtown")

        updated = ws.locations.set_holidays(
            location.id, [Holiday(date=date(2026, 12, 25)), Holiday(date=date(2026, 1, 1))]
        )

        assert [h.date for h in updated.holidays] == [date(2026, 1, 1), date(2026, 12, 25)]

    def test_company_scope_uses_primary_settings(self, ws: Workspace):
        """A location with company scope follows the primary location's settings."""
        ws.locations.create(name="HQ", settings=LocationSettings(booking_timer_mins=25))
        branch = ws.locations.create(name="Branch")

        ws.locations.set_settings_scope(branch.id, SettingsScope.COMPANY)

        assert ws.locations.effective_settings(branch.id).booking_timer_mins == 25

    def test_reminder_order_is_validated(self, ws: Workspace):
        """The second reminder must come closer to the start than the first (decision 28)."""
        location = ws.locations.create(name="Downtown")
        good = ReminderSchedule(
            email_first=Reminder(unit="days", value=1), email_second=Reminder(unit="hours", value=2)
        )

        assert ws.locations.set_reminders(location.id, good) == good
        with pytest.raises(InconsistentFields):
            ReminderSchedule(
                email_first=Reminder(unit="hours", value=2),
                email_second=Reminder(unit="days", value=1),
            )

    def test_deprecated_settings_list_carries_business_id(self, ws: Workspace):
        """The deprecated settings list returns businessId equal to locationId (decision 33)."""
        location = ws.locations.create(name="Downtown")

        with pytest.warns(DeprecationWarning, match="deprecated GET /consumer/v1/settings"):
            entry = ws.locations.settings_list().data[0]

        assert (entry.location_id, entry.business_id) == (location.id, location.id)
        assert entry.settings == location.settings

    def test_location_restricted_principal_sees_only_its_locations(self, scheduler, company):
        """A principal limited to one location lists only it and cannot read the other."""
        ws = scheduler.for_company(company.id)
        first = ws.locations.create(name="First")
        second = ws.locations.create(name="Second")
        limited = scheduler.for_company(company.id, location_ids=frozenset({second.id}))

        assert [loc.id for loc in limited.locations.list().data] == [second.id]
        with pytest.raises(Unauthorized):
            limited.locations.get(first.id)

    def test_services_at_location(self, ws: Workspace):
        """A new location has no services yet."""
        location = ws.locations.create(name="Downtown")

        assert ws.locations.services(location.id).total == 0

    def test_nearest_to_orders_by_distance(self, ws: Workspace):
        """nearest_to orders by great-circle distance, locations without coordinates last."""
        ws.locations.create(name="Nowhere")
        ws.locations.create(name="London", latitude=51.5, longitude=-0.12)
        ws.locations.create(name="Paris", latitude=48.85, longitude=2.35)

        page = ws.locations.list(nearest_to=(48.0, 2.0))

        assert [loc.name for loc in page.data] == ["Paris", "London", "Nowhere"]

    @pytest.mark.parametrize(
        ("point", "field"),
        [((91, 0), "nearest_to[0]"), ((-90.5, 0), "nearest_to[0]"), ((0, 181), "nearest_to[1]")],
    )
    def test_nearest_to_off_the_globe_is_refused(
        self, ws: Workspace, point: tuple[float, float], field: str
    ):
        """A latitude off -90..90 or a longitude off -180..180 is OutOfRange naming its place."""
        with pytest.raises(OutOfRange) as info:
            ws.locations.list(nearest_to=point)

        assert field == info.value.field

    def test_nearest_to_at_the_poles_and_the_date_line(self, ws: Workspace):
        """The ends of the ranges are points on the globe: (90, 180) and (-90, -180) are read."""
        ws.locations.create(name="London", latitude=51.5, longitude=-0.12)

        assert 1 == ws.locations.list(nearest_to=(90, 180)).total
        assert 1 == ws.locations.list(nearest_to=(-90, -180)).total

    @pytest.mark.parametrize("changes", [{"latitude": 91}, {"longitude": -180.01}])
    def test_coordinates_off_the_globe_are_refused(self, ws: Workspace, changes: dict[str, float]):
        """create and update refuse a coordinate off the globe, naming it; nothing changes."""
        with pytest.raises(OutOfRange) as created:
            ws.locations.create(name="Atlantis", **changes)  # type: ignore[arg-type]
        location = ws.locations.create(name="Downtown", latitude=40.7, longitude=-74.0)
        with pytest.raises(OutOfRange) as updated:
            ws.locations.update(location.id, **changes)  # type: ignore[arg-type]

        (field,) = changes
        assert (field, field) == (created.value.field, updated.value.field)
        assert (location,) == ws.locations.list().data
