"""Calendar operations: create, get, list, update and calendar blocks."""

from __future__ import annotations

from datetime import date

import pytest

from slotwise import (
    BlockTarget,
    Company,
    DayWindow,
    InvalidChoice,
    InvalidDateRange,
    InvalidTimeRange,
    Location,
    NotFound,
    OutOfRange,
    RepeatRule,
    Scheduler,
    Unauthorized,
    WeeklyHours,
    Workspace,
)
from slotwise.model import OPEN_END, SLOT_INTERVALS

JAN = date(2026, 1, 1)
FEB = date(2026, 2, 1)


@pytest.fixture
def branch(ws: Workspace, location: Location) -> Location:
    """A second, non-primary location of the company."""
    return ws.locations.create(name="Uptown")


class TestCreate:
    def test_defaults_to_primary_location_and_24x7(self, ws: Workspace, location: Location):
        """Without location or availability, a calendar is at the primary location and open 24x7."""
        calendar = ws.calendars.create(name="Rooms")

        assert (calendar.location_id, calendar.primary) == (location.id, False)
        assert WeeklyHours.always() == calendar.availability
        assert (calendar.bookings_per_slot, calendar.interval) == (1, 15)

    def test_none_availability_means_24x7(self, ws: Workspace, location: Location):
        """Passing availability None is the same as omitting it."""
        calendar = ws.calendars.create(name="Rooms", availability=None)

        assert WeeklyHours.always() == calendar.availability

    def test_given_fields_are_kept(self, ws: Workspace, branch: Location):
        """A named location, availability, interval and booking limit are stored as given."""
        hours = WeeklyHours(mon=DayWindow(start_time=800, end_time=1200))

        calendar = ws.calendars.create(
            name="Mornings",
            location_id=branch.id,
            availability=hours,
            interval=30,
            bookings_per_slot=3,
            type="service",
        )

        assert calendar == ws.calendars.get(calendar.id)
        assert (branch.id, hours, 30, 3, "service") == (
            calendar.location_id,
            calendar.availability,
            calendar.interval,
            calendar.bookings_per_slot,
            calendar.type,
        )

    def test_without_any_location_is_not_found(self, ws: Workspace):
        """A company with no location yet cannot get a calendar."""
        with pytest.raises(NotFound):
            ws.calendars.create(name="Rooms")

    @pytest.mark.parametrize("bookings_per_slot", [1, 20])
    def test_bookings_per_slot_limits_accepted(
        self, ws: Workspace, location: Location, bookings_per_slot: int
    ):
        """bookings_per_slot 1 and 20 (the bounds) are accepted."""
        calendar = ws.calendars.create(name="Rooms", bookings_per_slot=bookings_per_slot)

        assert bookings_per_slot == calendar.bookings_per_slot

    @pytest.mark.parametrize("bookings_per_slot", [0, 21])
    def test_bookings_per_slot_outside_refused(
        self, ws: Workspace, location: Location, bookings_per_slot: int
    ):
        """bookings_per_slot 0 and 21 are refused and nothing is stored."""
        before = ws.calendars.list()

        with pytest.raises(OutOfRange) as info:
            ws.calendars.create(name="Rooms", bookings_per_slot=bookings_per_slot)

        assert info.value.field == "bookings_per_slot"
        assert before == ws.calendars.list()

    @pytest.mark.parametrize("interval", SLOT_INTERVALS)
    def test_allowed_intervals_accepted(self, ws: Workspace, location: Location, interval: int):
        """Every allowed slot interval (1, 5, 10, 15, 20, 30, 60) is accepted."""
        assert interval == ws.calendars.create(name="Grid", interval=interval).interval

    @pytest.mark.parametrize("interval", [0, 2, 45, 61, 90])
    def test_other_intervals_refused(self, ws: Workspace, location: Location, interval: int):
        """Intervals that are not allowed slot steps are refused and nothing is stored."""
        before = ws.calendars.list()

        with pytest.raises(InvalidChoice) as info:
            ws.calendars.create(name="Grid", interval=interval)

        assert info.value.field == "interval"
        assert before == ws.calendars.list()

    def test_other_company_location_is_unauthorized(
        self, ws: Workspace, location: Location, other_ws: Workspace
    ):
        """A calendar cannot be created at another company's location."""
        theirs = other_ws.locations.list().data[0]

        with pytest.raises(Unauthorized):
            ws.calendars.create(name="Sneaky", location_id=theirs.id)


class TestGetAndList:
    def test_get_returns_primary_calendar(self, ws: Workspace, location: Location):
        """The location's primary calendar can be read by its id."""
        calendar = ws.calendars.get(location.primary_calendar_id or "")

        assert (True, location.id) == (calendar.primary, calendar.location_id)

    def test_list_defaults_to_primary_location(
        self, ws: Workspace, location: Location, branch: Location
    ):
        """Without location_id, the primary location's calendars are listed in creation order."""
        extra = ws.calendars.create(name="Extra")
        ws.calendars.create(name="Branch extra", location_id=branch.id)

        page = ws.calendars.list()

        assert [location.primary_calendar_id, extra.id] == [c.id for c in page.data]
        assert page.url == "/setup/v1/calendars"

    def test_list_named_location(self, ws: Workspace, location: Location, branch: Location):
        """A location_id lists that location's calendars only."""
        extra = ws.calendars.create(name="Branch extra", location_id=branch.id)

        page = ws.calendars.list(location_id=branch.id)

        assert [branch.primary_calendar_id, extra.id] == [c.id for c in page.data]

    def test_list_paging(self, ws: Workspace, location: Location):
        """Pages honour offset and limit and report the total."""
        for name in ("A", "B", "C"):
            ws.calendars.create(name=name)

        page = ws.calendars.list(offset=1, limit=2)

        assert ([c.name for c in page.data], page.total, page.has_more) == (["A", "B"], 4, True)

    @pytest.mark.parametrize("limit", [0, 101])
    def test_list_limit_outside_refused(self, ws: Workspace, location: Location, limit: int):
        """Limits outside 1..100 are refused (decision 31)."""
        with pytest.raises(OutOfRange):
            ws.calendars.list(limit=limit)

    def test_missing_calendar_is_not_found(self, ws: Workspace, location: Location):
        """An unknown calendar id raises NotFound."""
        with pytest.raises(NotFound):
            ws.calendars.get("nope")

    def test_other_company_calendar_is_unauthorized(
        self, ws: Workspace, location: Location, other_ws: Workspace
    ):
        """Another company's calendars cannot be read or listed."""
        theirs = other_ws.calendars.list().data[0]

        with pytest.raises(Unauthorized):
            ws.calendars.get(theirs.id)
        with pytest.raises(Unauthorized):
            ws.calendars.list(location_id=theirs.location_id)

    def test_restricted_principal_cannot_see_other_location(
        self, scheduler: Scheduler, company: Company, location: Location, branch: Location
    ):
        """A principal limited to one location cannot read another location's calendar."""
        limited = scheduler.for_company(company.id, location_ids=frozenset({branch.id}))

        with pytest.raises(Unauthorized):
            limited.calendars.get(location.primary_calendar_id or "")
        assert (
            branch.primary_calendar_id == limited.calendars.get(branch.primary_calendar_id or "").id
        )


class TestUpdate:
    def test_changes_only_named_fields(self, ws: Workspace, location: Location):
        """An update changes the given fields and keeps the rest."""
        calendar = ws.calendars.create(name="Rooms", interval=30)

        updated = ws.calendars.update(calendar.id, bookings_per_slot=4, name="Big rooms")

        assert (updated.bookings_per_slot, updated.name, updated.interval) == (4, "Big rooms", 30)
        assert updated == ws.calendars.get(calendar.id)

    def test_availability_and_interval(self, ws: Workspace, location: Location):
        """Availability and interval can be changed."""
        hours = WeeklyHours.every_day(DayWindow(start_time=600, end_time=2000))

        updated = ws.calendars.update(
            location.primary_calendar_id or "", availability=hours, interval=5
        )

        assert (hours, 5) == (updated.availability, updated.interval)

    @pytest.mark.parametrize("bookings_per_slot", [1, 20])
    def test_bookings_per_slot_limits_accepted(
        self, ws: Workspace, location: Location, bookings_per_slot: int
    ):
        """The location-level booking limit may be set to 1 or 20."""
        updated = ws.calendars.update(
            location.primary_calendar_id or "", bookings_per_slot=bookings_per_slot
        )

        assert bookings_per_slot == updated.bookings_per_slot

    @pytest.mark.parametrize("bookings_per_slot", [0, 21])
    def test_bookings_per_slot_outside_refused(
        self, ws: Workspace, location: Location, bookings_per_slot: int
    ):
        """bookings_per_slot 0 or 21 is refused and the calendar is unchanged."""
        calendar_id = location.primary_calendar_id or ""
        before = ws.calendars.get(calendar_id)

        with pytest.raises(OutOfRange):
            ws.calendars.update(calendar_id, bookings_per_slot=bookings_per_slot)

        assert before == ws.calendars.get(calendar_id)

    def test_bad_interval_leaves_calendar_unchanged(self, ws: Workspace, location: Location):
        """An interval that is not allowed is refused and nothing changes."""
        calendar_id = location.primary_calendar_id or ""
        before = ws.calendars.get(calendar_id)

        with pytest.raises(InvalidChoice):
            ws.calendars.update(calendar_id, interval=7, name="Changed")

        assert before == ws.calendars.get(calendar_id)

    def test_missing_calendar_is_not_found(self, ws: Workspace, location: Location):
        """Updating an unknown calendar raises NotFound."""
        with pytest.raises(NotFound):
            ws.calendars.update("nope", bookings_per_slot=2)

    def test_other_company_calendar_is_unauthorized(
        self, ws: Workspace, location: Location, other_ws: Workspace
    ):
        """Another company's calendar cannot be changed, and stays as it was."""
        theirs = other_ws.calendars.list().data[0]

        with pytest.raises(Unauthorized):
            ws.calendars.update(theirs.id, bookings_per_slot=5)

        assert theirs == other_ws.calendars.get(theirs.id)


class TestBlocks:
    def test_block_targets_the_calendar(self, ws: Workspace, location: Location):
        """A calendar block targets the calendar at the calendar's location."""
        calendar = ws.calendars.create(name="Rooms")

        block = ws.calendars.create_block(
            calendar.id, start_date=JAN, end_date=FEB, start_time=900, end_time=1000, reason="Staff"
        )

        assert (BlockTarget.CALENDAR, calendar.id, location.id) == (
            block.target,
            block.target_id,
            block.location_id,
        )
        assert block == ws.calendars.get_block(block.id)

    def test_shortest_range_accepted(self, ws: Workspace, location: Location):
        """A block from 09:00 to 09:01 is accepted: start is less than end."""
        block = ws.calendars.create_block(
            location.primary_calendar_id or "",
            start_date=JAN,
            end_date=JAN,
            start_time=900,
            end_time=901,
        )

        assert (block.start_time, block.end_time) == (900, 901)

    @pytest.mark.parametrize(("start", "end"), [(900, 900), (1000, 900)])
    def test_start_not_before_end_refused(
        self, ws: Workspace, location: Location, start: int, end: int
    ):
        """startTime equal to or after endTime is refused and nothing is stored (spec: Errors 6)."""
        calendar_id = location.primary_calendar_id or ""

        with pytest.raises(InvalidTimeRange):
            ws.calendars.create_block(
                calendar_id, start_date=JAN, end_date=FEB, start_time=start, end_time=end
            )

        assert ws.calendars.list_blocks(calendar_id).total == 0

    def test_start_date_after_end_date_refused(self, ws: Workspace, location: Location):
        """A start date after the end date is refused."""
        with pytest.raises(InvalidDateRange):
            ws.calendars.create_block(
                location.primary_calendar_id or "", start_date=FEB, end_date=JAN
            )

    def test_all_day_normalises_times(self, ws: Workspace, location: Location):
        """allDay stores 0..2400 whatever times were sent (decision 18)."""
        block = ws.calendars.create_block(
            location.primary_calendar_id or "",
            start_date=JAN,
            end_date=JAN,
            start_time=900,
            end_time=1000,
            all_day=True,
        )

        assert (block.start_time, block.end_time) == (0, 2400)

    def test_never_end_date_is_open_ended(self, ws: Workspace, location: Location):
        """The end date 'never' stores 9999-12-31 for an open-ended repeat."""
        block = ws.calendars.create_block(
            location.primary_calendar_id or "",
            start_date=JAN,
            end_date="never",
            repeat=RepeatRule(frequency="W", weekdays="15"),
        )

        assert (block.end_date, block.is_open_ended) == (OPEN_END, True)

    def test_update_preserves_omitted_fields(self, ws: Workspace, location: Location):
        """An update keeps the times and reason it was not given."""
        block = ws.calendars.create_block(
            location.primary_calendar_id or "",
            start_date=JAN,
            end_date=JAN,
            start_time=900,
            end_time=1000,
            reason="Training",
        )

        updated = ws.calendars.update_block(block.id, end_date=FEB)

        assert (
            updated.start_time,
            updated.end_time,
            updated.reason,
            updated.end_date,
        ) == (900, 1000, "Training", FEB)
        assert updated == ws.calendars.get_block(block.id)

    def test_invalid_update_leaves_block_unchanged(self, ws: Workspace, location: Location):
        """An update making start equal end is refused and the block is unchanged."""
        block = ws.calendars.create_block(
            location.primary_calendar_id or "",
            start_date=JAN,
            end_date=JAN,
            start_time=900,
            end_time=1000,
        )

        with pytest.raises(InvalidTimeRange):
            ws.calendars.update_block(block.id, start_time=1000)

        assert block == ws.calendars.get_block(block.id)

    def test_list_and_delete(self, ws: Workspace, location: Location):
        """Deleted blocks are kept as deleted, leave the list, and cannot be read or deleted again."""
        calendar_id = location.primary_calendar_id or ""
        first = ws.calendars.create_block(calendar_id, start_date=JAN, end_date=JAN)
        second = ws.calendars.create_block(calendar_id, start_date=FEB, end_date=FEB)

        deleted = ws.calendars.delete_block(first.id)

        assert deleted.deleted
        page = ws.calendars.list_blocks(calendar_id)
        assert ([second.id], f"/setup/v1/calendars/{calendar_id}/blocks") == (
            [b.id for b in page.data],
            page.url,
        )
        with pytest.raises(NotFound):
            ws.calendars.get_block(first.id)
        with pytest.raises(NotFound):
            ws.calendars.delete_block(first.id)

    def test_service_block_is_not_a_calendar_block(self, ws: Workspace, location: Location):
        """A service block cannot be read or changed through the calendar operations."""
        service = ws.services.create(name="Cut", duration=30, reason="new")
        block = ws.services.create_block(service.id, start_date=JAN, end_date=JAN)

        with pytest.raises(NotFound):
            ws.calendars.get_block(block.id)
        with pytest.raises(NotFound):
            ws.calendars.update_block(block.id, reason="x")

    def test_missing_calendar_is_not_found(self, ws: Workspace, location: Location):
        """Blocks of an unknown calendar cannot be created or listed."""
        with pytest.raises(NotFound):
            ws.calendars.create_block("nope", start_date=JAN, end_date=JAN)
        with pytest.raises(NotFound):
            ws.calendars.list_blocks("nope")

    def test_other_company_blocks_are_unauthorized(
        self, ws: Workspace, location: Location, other_ws: Workspace
    ):
        """Another company's calendar blocks cannot be created, read, listed, changed or deleted."""
        theirs = other_ws.calendars.list().data[0]
        block = other_ws.calendars.create_block(theirs.id, start_date=JAN, end_date=JAN)

        with pytest.raises(Unauthorized):
            ws.calendars.create_block(theirs.id, start_date=JAN, end_date=JAN)
        with pytest.raises(Unauthorized):
            ws.calendars.list_blocks(theirs.id)
        with pytest.raises(Unauthorized):
            ws.calendars.get_block(block.id)
        with pytest.raises(Unauthorized):
            ws.calendars.update_block(block.id, reason="mine")
        with pytest.raises(Unauthorized):
            ws.calendars.delete_block(block.id)
        assert block == other_ws.calendars.get_block(block.id)
