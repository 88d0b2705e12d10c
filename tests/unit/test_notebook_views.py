"""Notebook views name people and say what holds for whom (issue 22); plots leave pyplot alone."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta

import pytest

from slotwise import (
    BusinessHours,
    DayHours,
    DayWindow,
    Holiday,
    Reason,
    RoundRobin,
    Scheduler,
    WeeklyHours,
)
from slotwise.testing import ManualClock
from tests.notebooks import parse_grid as _parse

HEX_ID = re.compile(r"[0-9a-f]{32}")
MONDAY, SATURDAY, SUNDAY = date(2026, 11, 23), date(2026, 11, 28), date(2026, 11, 29)
THANKSGIVING = date(2026, 11, 26)


@pytest.fixture
def clinic():
    """
    Midtown (New York, Saturday 10-14), UUID ids; a 60-minute assessment with 15 padding.

    Ana (New York, weekdays 9-17), Ben (Chicago, weekdays 8-16 and Saturday 9-13 his time, so
    10-14 New York), Chloé (Paris, weekdays 15-21 hers: 09-15 New York). Ana is booked
    Tuesday 10:00-11:00 New York.
    """
    scheduler = Scheduler(clock=ManualClock(datetime(2026, 11, 23, 12, tzinfo=UTC)))
    company = scheduler.create_company(name="Northwind", timezone="America/New_York")
    ws = scheduler.for_company(company.id)
    midtown = ws.locations.create(
        name="Midtown", business_hours=BusinessHours(sat=DayHours.open(1000, 1400))
    )
    ws.locations.set_holidays(midtown.id, [Holiday(date=THANKSGIVING, name="Thanksgiving")])
    service = ws.services.create(name="Assessment", duration=60, padding=15, reason="r")

    def hours(start, end, sat=None):
        day = DayWindow(start_time=start, end_time=end)
        extra = {"sat": DayWindow(start_time=sat[0], end_time=sat[1])} if sat else {}
        return WeeklyHours(mon=day, tue=day, wed=day, thu=day, fri=day, **extra)

    people = {}
    for name, zone, weekly in (
        ("Chloé Martin", "Europe/Paris", hours(1500, 2100)),
        ("Ben Okafor", "America/Chicago", hours(800, 1600, sat=(900, 1300))),
        ("Ana Silva", "America/New_York", hours(900, 1700)),
    ):
        people[name.split()[0]] = ws.resources.create(
            name=name, timezone=zone, weekly_hours=weekly, reason="r",
            linked_service_ids=[service.id],
        )  # fmt: skip
    start = datetime(2026, 11, 24, 15, tzinfo=UTC)  # Tuesday 10:00 New York
    booked = ws.appointments.create(
        service.id, start, start + timedelta(hours=1), resource_id=people["Ana"].id,
        name="Sam Lee", email="sam@example.com", complete_booking="BK",
    )  # fmt: skip
    return ws, service, people, booked


def _week(clinic, **query):
    ws, service, _, _ = clinic
    return ws.availability.times(service.id, MONDAY, SUNDAY, round_robin=RoundRobin.NONE, **query)


def _gone(clinic, first=MONDAY, last=SUNDAY, **query):
    ws, service, _, _ = clinic
    return ws.availability.unavailable(service.id, first, last, **query)


class TestNamesInGrids:
    """Grids label resources by name, never by an id or its first character."""

    def test_times_view_lists_names_per_start(self, clinic):
        """Monday 09:00: the two who can start then, by name; no id anywhere."""
        markup = str(_week(clinic).grid("times"))
        cells = _parse(markup)
        monday_nine = next(text for _, _, text in cells.cells if text.startswith("09:00 "))

        assert "09:00 Ana Silva, Ben Okafor, Chloé Martin" == monday_nine.split("\n")[0]
        assert not HEX_ID.search(markup)
        assert cells.captions == [
            "Assessment at Midtown, Mon 23 Nov - Sun 29 Nov 2026 (America/New_York)"
        ]

    def test_per_resource_grid(self, clinic):
        """grid('resources'): one table per resource, captioned by name, sorted by name."""
        cells = _parse(str(_week(clinic).grid("resources")))

        assert ["Ana Silva", "Ben Okafor", "Chloé Martin"] == [
            caption.split(":")[0] for caption in cells.captions
        ]
        assert "09:00 09:15 09:30 09:45" in [text for _, _, text in cells.cells]

    def test_count_view(self, clinic):
        """grid('counts'): how many start in the hour, the names on hover."""
        cells = _parse(str(_week(clinic).grid("counts")))

        assert ["sw-free", "Ana Silva, Ben Okafor, Chloé Martin", "3"] == cells.cells[0]
        assert ["sw-free", "Ben Okafor, Chloé Martin", "2"] in cells.cells  # Tuesday 09:00
        assert cells.captions[0].endswith("resources with a start in each hour (of 3)")

    def test_jupyter_shows_counts_when_starts_are_shared(self, clinic):
        """Several resources at one start: the default view is the count view."""
        week = _week(clinic)

        ws, service, _, _ = clinic
        balanced = ws.availability.times(
            service.id, MONDAY, SUNDAY, round_robin=RoundRobin.BALANCED
        )

        assert str(week.grid("counts")) == week._repr_html_()
        assert str(balanced.grid("times")) == balanced._repr_html_()  # one slot per start

    def test_one_resource_keeps_the_plain_times(self, clinic):
        """A single resource's grid lists its starts without names."""
        _, _, people, _ = clinic
        week = _week(clinic, resource_id=people["Ana"].id)

        assert "09:00 09:15 09:30 09:45" in [t for _, _, t in _parse(week._repr_html_()).cells]


class TestCombinedUnavailable:
    """The combined unavailable grid says what holds for whom."""

    def test_a_free_resource_is_not_shaded_for_all(self, clinic):
        """Saturday 10:00: Ben is free, Ana and Chloé are outside their hours."""
        cells = _parse(_gone(clinic, SATURDAY, SATURDAY)._repr_html_())
        ten = cells.cells[0]

        assert "sw-mixed" == ten[0]
        assert "free Ben Okafor\nRH Ana Silva, Chloé Martin" == ten[2]
        assert "free: Ben Okafor; Outside resource hours: Ana Silva, Chloé Martin" == ten[1]

    def test_a_booking_of_one_is_not_booked_for_all(self, clinic):
        """Tuesday 10:00: Ana is booked, the others are free; the cell says so by name."""
        cells = _parse(_gone(clinic, date(2026, 11, 24), date(2026, 11, 24))._repr_html_())
        texts = [text for _, _, text in cells.cells]

        assert "free Ben Okafor, Chloé Martin\nBK Ana Silva" in texts

    def test_shared_reasons_shade_the_cell(self, clinic):
        """The holiday holds for everyone: shaded HO, with a legend that names the code."""
        markup = _gone(clinic, THANKSGIVING, THANKSGIVING)._repr_html_()
        cells = _parse(markup)

        assert {("sw-HO", "HO")} == {(css, text) for css, _, text in cells.cells}
        assert "HO Thanksgiving" in markup

    def test_per_resource_view(self, clinic):
        """grid('resources'): Ben's Saturday 10:00 is free, Ana's is outside her hours."""
        cells = _parse(str(_gone(clinic, SATURDAY, SATURDAY).grid("resources")))
        by_caption = dict(zip([c.split(":")[0] for c in cells.captions], range(3), strict=True))
        per_table = len(cells.cells) // 3

        assert "sw-RH" == cells.cells[by_caption["Ana Silva"] * per_table][0]
        assert "sw-free" == cells.cells[by_caption["Ben Okafor"] * per_table][0]


pandas = pytest.importorskip("pandas")
polars = pytest.importorskip("polars")


class TestFrames:
    """Frames carry names beside ids, keep their dtypes when empty, and type dates."""

    def test_names_beside_ids(self, clinic):
        """resource_name next to resource_id in slots and stretches; entity_name too."""
        _, _, people, _ = clinic
        slots = _week(clinic).to_pandas()
        gone = _gone(clinic, SATURDAY, SATURDAY).to_pandas()
        ana = slots[slots["resource_id"] == people["Ana"].id]

        assert {"Ana Silva"} == set(ana["resource_name"])
        assert "Ana Silva" in set(gone["entity_name"])  # her resource hours
        assert "Midtown" in set(gone["entity_name"])  # the location's closed hours

    def test_empty_results_keep_columns_and_dtypes_pandas(self, clinic):
        """A holiday's empty slots have the same columns and dtypes as a full day."""
        full = _week(clinic).to_pandas()
        holiday = clinic[0].availability.times(clinic[1].id, THANKSGIVING, THANKSGIVING)
        frame = holiday.to_pandas()

        assert (0, len(full.columns)) == frame.shape
        assert full.dtypes.astype(str).to_dict() == frame.dtypes.astype(str).to_dict()
        assert "datetime64[s]" == str(frame["date"].dtype)
        assert "datetime64[us, America/New_York]" == str(frame["start"].dtype)

    def test_empty_results_keep_columns_and_dtypes_polars(self, clinic):
        """The same in polars: Date, zoned Datetime, String, Int64, List(String)."""
        full = _week(clinic).to_polars()
        holiday = clinic[0].availability.times(clinic[1].id, THANKSGIVING, THANKSGIVING)
        frame = holiday.to_polars()

        assert full.schema == frame.schema
        assert polars.Date == frame.schema["date"]
        assert polars.String == frame.schema["resource_name"]

    def test_days_all_open_keep_the_code_dtype(self, clinic):
        """Days without a reason (every day open) type reason_code as days with one: categorical."""
        ws, service, _, _ = clinic
        open_days = ws.availability.days(service.id, MONDAY, date(2026, 11, 25)).to_pandas()
        with_holiday = ws.availability.days(service.id, MONDAY, THANKSGIVING).to_pandas()

        assert open_days["reason_code"].isna().all()
        assert "category" == str(open_days["reason_code"].dtype)
        assert open_days.dtypes.astype(str).to_dict() == with_holiday.dtypes.astype(str).to_dict()

    def test_polars_with_a_requested_offset(self, clinic):
        """tz_offset -300: polars holds the offset as Etc/GMT+5, full or empty, wall times kept."""
        ws, service, _, _ = clinic
        full = _week(clinic, tz_offset=-300).to_polars()
        empty = ws.availability.times(
            service.id, THANKSGIVING, THANKSGIVING, tz_offset=-300
        ).to_polars()

        assert polars.Datetime("us", "Etc/GMT+5") == full.schema["start"] == empty.schema["start"]
        assert 9 == full["start"][0].hour

    def test_empty_explanation_reasons(self, clinic):
        """An offered time has no reasons: its frame still has the stretch columns."""
        ws, service, people, _ = clinic
        found = ws.availability.explain(
            service.id, datetime(2026, 11, 23, 14, tzinfo=UTC), resource_id=people["Ana"].id
        )
        frame = found.to_pandas()
        full = _gone(clinic, SATURDAY, SATURDAY).to_pandas()

        assert found.offered
        assert list(full.columns) == list(frame.columns)
        assert "category" == str(frame["reason_code"].dtype)
        assert polars.Categorical == found.to_polars().schema["reason_code"]

    def test_dates_are_date_types(self, clinic):
        """date columns: datetime64 in pandas (no object), Date in polars."""
        gone = _gone(clinic, SATURDAY, SATURDAY)

        assert "datetime64[s]" == str(gone.to_pandas()["date"].dtype)
        assert polars.Date == gone.to_polars().schema["date"]
        assert date(2026, 11, 28) == gone.to_polars()["date"][0]


class TestExplainPadding:
    """Why not? Padding is named, with the appointment that holds it."""

    def _explain(self, clinic, hour, minute=0):
        ws, service, people, _ = clinic
        start = datetime(2026, 11, 24, hour, minute, tzinfo=UTC)
        return ws.availability.explain(service.id, start, resource_id=people["Ana"].id)

    def test_this_services_padding_runs_into_a_booking(self, clinic):
        """09:00: the slot ends at 10:00 but its 15 padding minutes meet the 10:00 booking."""
        _, _, _, booked = clinic
        found = self._explain(clinic, 14)  # 09:00 New York
        [reason] = found.reasons

        assert (False, False) == (found.offered, found.off_grid)
        assert (Reason.FULLY_BOOKED, "appointment", booked.id) == (
            reason.reason_code,
            reason.entity_type,
            reason.entity_id,
        )
        assert (
            f"BK This service's padding (15 min) runs into an appointment 10:00-10:15 "
            f"(Ana Silva, appointment {booked.id})"
        ) == found.summary[0]

    def test_padding_after_a_booking(self, clinic):
        """11:00: the booking's own padding holds 11:00-11:15."""
        _, _, _, booked = clinic
        found = self._explain(clinic, 16)  # 11:00 New York
        [reason] = found.reasons

        assert "Padding after an appointment (15 min)" == reason.reason
        assert (1100, 1115, booked.id) == (reason.from_time, reason.to_time, reason.entity_id)

    def test_the_booking_itself(self, clinic):
        """10:00: fully booked by the appointment, named."""
        _, _, _, booked = clinic
        found = self._explain(clinic, 15)

        assert ("Fully booked", booked.id) == (found.reasons[0].reason, found.reasons[0].entity_id)

    def test_nearest_starts_in_the_locations_zone(self, clinic):
        """09:07 Monday is off the grid; the nearest starts are New York times, and say so."""
        ws, service, people, _ = clinic
        found = ws.availability.explain(
            service.id, datetime(2026, 11, 23, 14, 7, tzinfo=UTC), resource_id=people["Ana"].id
        )

        assert found.off_grid
        assert ["America/New_York"] * 2 == [str(m.tzinfo) for m in found.nearest]
        assert "America/New_York" == str(found.start.tzinfo)
        assert "not on the slot grid; nearest offered starts: 09:00, 09:15" == found.summary[-1]


matplotlib = pytest.importorskip("matplotlib")


class TestPlot:
    """slotwise.plot.availability: a picture for a report, host state untouched."""

    @pytest.fixture
    def figure(self, clinic):
        """The week's picture with its unavailable time."""
        from slotwise.plot import availability

        return availability(_week(clinic), _gone(clinic))

    def test_leaves_backend_and_pyplot_alone(self, clinic, monkeypatch):
        """No backend switch is asked for, the backend is as it was, pyplot holds no new figure."""
        import matplotlib.pyplot as pyplot

        from slotwise.plot import availability

        switches: list[object] = []
        monkeypatch.setattr(matplotlib, "use", lambda *args, **kwargs: switches.append(args))
        backend, figures = matplotlib.get_backend(), pyplot.get_fignums()
        availability(_week(clinic), _gone(clinic))

        assert [] == switches
        assert backend == matplotlib.get_backend()
        assert figures == pyplot.get_fignums()

    def test_rows_sorted_by_name(self, figure):
        """Rows run Ana, Ben, Chloé (not by id); closed days are left to the axis label."""
        labels = [label.get_text() for label in figure.axes[0].get_yticklabels()]

        assert labels[0].startswith("Ana Silva  Mon 23 Nov")
        assert [label.split("  ")[0] for label in labels] == sorted(
            label.split("  ")[0] for label in labels
        )
        assert not any("Sun 29 Nov" in label for label in labels)
        assert "closed all day: Thu 26 Nov (Thanksgiving), Sun 29 Nov" in (
            figure.axes[0].get_xlabel()
        )

    def test_open_hours_legend_and_title(self, figure, clinic):
        """x spans 09:00-17:00; a legend names each kind; the title is the query."""
        axes = figure.axes[0]
        legend = {text.get_text() for text in axes.get_legend().get_texts()}

        assert (9.0, 17.0) == axes.get_xlim()
        assert {"bookable (a slot starts)", "booked", "padding after a booking"} <= legend
        assert "free, but no slot fits (grid, padding)" in legend
        assert _week(clinic).title == axes.get_title()

    def test_padding_is_drawn(self, figure):
        """A hatched bar covers Ana's 11:00-11:15 padding on Tuesday."""
        hatched = [
            collection
            for collection in figure.axes[0].collections
            if collection.get_hatch() == "////"
        ]
        spans = [tuple(path.vertices[0]) for c in hatched for path in c.get_paths()]

        assert (11.0, 0.6) in [(round(x, 2), round(y, 2)) for x, y in spans]

    def test_a_range_closed_for_everyone_draws_without_a_warning(self, clinic):
        """Thanksgiving alone: no rows, a footnote, and no matplotlib warning (a notebook shows them)."""
        import warnings

        from slotwise.plot import availability

        ws, service, _, _ = clinic
        closed = ws.availability.times(service.id, THANKSGIVING, THANKSGIVING)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            figure = availability(closed, _gone(clinic, THANKSGIVING, THANKSGIVING))

        assert "closed all day: Thu 26 Nov (Thanksgiving)" in figure.axes[0].get_xlabel()
        assert figure._repr_png_()[:8] == b"\x89PNG\r\n\x1a\n"

    def test_shows_itself_as_png(self, figure):
        """_repr_png_ renders PNG bytes without pyplot."""
        assert figure._repr_png_()[:8] == b"\x89PNG\r\n\x1a\n"


class TestOutsideTheSearch:
    """
    New York dates 24-25 Nov asked in Tokyo time: the search runs from Tue 24 Nov 14:00 to
    Thu 26 Nov 14:00 there, so the first and last dates shown are searched only in part.
    """

    @pytest.fixture
    def tokyo(self):
        """One open-all-day resource, its two dates' times and unavailable times in Tokyo."""
        scheduler = Scheduler(clock=ManualClock(datetime(2026, 11, 20, 12, tzinfo=UTC)))
        company = scheduler.create_company(name="Acme", timezone="America/New_York")
        ws = scheduler.for_company(company.id)
        ws.locations.create(name="Downtown")
        service = ws.services.create(name="Massage", duration=60, reason="x")
        ws.resources.create(name="Ana", reason="x")
        first, last = date(2026, 11, 24), date(2026, 11, 25)
        times = ws.availability.times(service.id, first, last, timezone_name="Asia/Tokyo")
        gone = ws.availability.unavailable(service.id, first, last, timezone_name="Asia/Tokyo")
        return times, gone

    def test_searched_is_the_location_dates(self, tokyo):
        """``searched``: New York midnight of the 24th to midnight after the 25th."""
        _, gone = tokyo

        assert (
            datetime(2026, 11, 24, 5, tzinfo=UTC),
            datetime(2026, 11, 26, 5, tzinfo=UTC),
        ) == gone.searched

    def test_the_grid_marks_time_outside_the_search(self, tokyo):
        """Tue 03:00 and Thu 20:00 Tokyo are 'not searched', never free."""
        _, gone = tokyo
        rows = dict(re.findall(r"<tr><th>(\d\d:00)</th>(.*?)</tr>", gone._repr_html_()))

        def cells(hour: str) -> list[str]:
            return re.findall(r"<td class='([^']*)'", rows[hour])

        assert "sw-out" == cells("03:00")[0]  # Tuesday, before the search
        assert "sw-out" == cells("20:00")[-1]  # Thursday, after it
        assert "sw-out" not in cells("03:00")[1:-1]  # Wednesday is searched all day
        assert "out not searched" in gone._repr_html_()

    def test_the_plot_draws_no_free_time_outside_the_search(self, tokyo):
        """No 'free, but no slot fits' bar before Tue 14:00 or after Thu 14:00."""
        from slotwise.plot import KINDS, availability

        times, gone = tokyo
        figure = availability(times, gone)
        axes = figure.axes[0]
        labels = [label.get_text() for label in axes.get_yticklabels()]
        nofit = matplotlib.colors.to_rgba(KINDS["nofit"][1])
        spans: dict[str, list[tuple[float, float]]] = {}
        for collection in axes.collections:
            if tuple(collection.get_facecolor()[0]) != nofit:
                continue
            for path in collection.get_paths():
                xs, ys = path.vertices[:, 0], path.vertices[:, 1]
                row = labels[round((ys.min() + ys.max()) / 2)]
                spans.setdefault(row, []).append((xs.min(), xs.max()))

        tuesday = [s for row, found in spans.items() if "Tue 24" in row for s in found]
        thursday = [s for row, found in spans.items() if "Thu 26" in row for s in found]
        assert all(begin >= 14 for begin, _ in tuesday)
        assert all(end <= 14 for _, end in thursday)


def test_no_resource_is_not_said_to_be_nothing_unavailable():
    """A service nobody performs: the view says nothing is bookable, not 'nothing unavailable'."""
    scheduler = Scheduler(clock=ManualClock(datetime(2026, 11, 20, 12, tzinfo=UTC)))
    company = scheduler.create_company(name="Acme", timezone="America/New_York")
    ws = scheduler.for_company(company.id)
    ws.locations.create(name="Downtown")
    service = ws.services.create(name="Massage", duration=60, reason="x")

    gone = ws.availability.unavailable(service.id, date(2026, 11, 23), date(2026, 11, 24))

    assert "nothing is bookable" in repr(gone)
    assert "nothing is bookable" in gone._repr_html_()
    assert "nothing unavailable" not in gone._repr_html_()
