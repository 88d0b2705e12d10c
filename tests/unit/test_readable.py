"""Readable results in notebooks: short reprs, IPython pretty printing, HTML grids (issue 14)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from html.parser import HTMLParser

import pytest

from slotwise import RepeatRule, Scheduler
from slotwise.testing import ManualClock


class _Cells(HTMLParser):
    """Collects the table's header texts and its cells (class, text)."""

    def __init__(self) -> None:
        super().__init__()
        self.headers: list[str] = []
        self.cells: list[tuple[str, str]] = []
        self.scripts = 0
        self._in: str | None = None
        self._class = ""

    def handle_starttag(self, tag, attrs):
        """Note where text goes."""
        if tag == "script":
            self.scripts += 1
        if tag in ("th", "td"):
            self._in, self._class = tag, dict(attrs).get("class") or ""
            (self.headers if tag == "th" else self.cells).append(("", "") if tag == "td" else "")  # type: ignore[arg-type]

    def handle_endtag(self, tag):
        """Leave the cell."""
        if tag in ("th", "td"):
            if tag == "td":
                self.cells[-1] = (self._class, self.cells[-1][1])
            self._in = None

    def handle_data(self, data):
        """Add text to the current cell."""
        if self._in == "th":
            self.headers[-1] += data
        elif self._in == "td":
            self.cells[-1] = (self._class, self.cells[-1][1] + data)


def _parse(markup: str) -> _Cells:
    parser = _Cells()
    parser.feed(markup)
    return parser


@pytest.fixture
def acme():
    """Ana with a weekday lunch block; a 30-minute cut; Monday 2026-11-23 07:00 New York."""
    scheduler = Scheduler(clock=ManualClock(datetime(2026, 11, 23, 12, tzinfo=UTC)))
    company = scheduler.create_company(name="Acme", timezone="America/New_York")
    ws = scheduler.for_company(company.id)
    ws.locations.create(name="Downtown")
    cut = ws.services.create(name="Massage", duration=30, reason="r")
    ana = ws.resources.create(name="Ana", reason="r")
    ws.resources.create_block(
        ana.id, start_date=date(2026, 11, 23), end_date="never", start_time=1200, end_time=1300,
        reason="Lunch", repeat=RepeatRule(frequency="W", weekdays="12345"),
    )  # fmt: skip
    return ws, cut, ana


def _week(acme):
    ws, cut, ana = acme
    return ws.availability.times(cut.id, date(2026, 11, 23), date(2026, 11, 29), resource_id=ana.id)


class TestReprs:
    """Short reprs instead of pages of fields."""

    def test_available_times(self, acme):
        """Service, dates, slot count and the first slot."""
        assert (
            "AvailableTimes(service='Massage', 2026-11-23..29, 130 slots, first 2026-11-23 09:00)"
            == repr(_week(acme))
        )

    def test_other_results_and_pages(self, acme):
        """Days, unavailable stretches and pages read in one line each."""
        ws, cut, ana = acme
        days = ws.availability.days(
            cut.id, date(2026, 11, 23), date(2026, 11, 29), resource_id=ana.id
        )
        gone = ws.availability.unavailable(
            cut.id, date(2026, 11, 24), date(2026, 11, 24), resource_id=ana.id
        )

        assert "5 of 7 days available, first 2026-11-23" in repr(days)
        assert "UnavailableTimes(2026-11-24, 3 stretches: CL 2, RB 1)" == repr(gone)
        assert "Page(/setup/v1/services, 1-1 of 1 Service)" == repr(ws.services.list())

    def test_ipython_pretty_printing(self, acme):
        """_repr_pretty_ prints the short repr."""
        printed: list[str] = []

        class Printer:
            def text(self, value):
                printed.append(value)

        _week(acme)._repr_pretty_(Printer(), cycle=False)

        assert [repr(_week(acme))] == printed


class TestHtml:
    """HTML grids: parsed, not just non-empty."""

    def test_week_grid_of_available_times(self, acme):
        """A column per date, a row per hour; lunch hour empty, slots listed; no JavaScript."""
        cells = _parse(_week(acme)._repr_html_())

        assert "Mon 23 Nov" in cells.headers
        assert "Sun 29 Nov" in cells.headers
        assert "09:00" in cells.headers
        assert "16:00" in cells.headers
        texts = [text for _, text in cells.cells]
        assert "09:00 09:15 09:30 09:45" in texts
        assert 0 == cells.scripts

    def test_unavailable_grid_is_shaded_by_reason(self, acme):
        """The lunch hour cell is class sw-RB and says RB; the closed night is left out."""
        ws, cut, ana = acme
        gone = ws.availability.unavailable(
            cut.id, date(2026, 11, 24), date(2026, 11, 24), resource_id=ana.id
        )
        cells = _parse(gone._repr_html_())
        classes = [css for css, _ in cells.cells]

        assert ("sw-RB", "RB") in cells.cells
        assert "sw-CL" not in classes
        hours = [header for header in cells.headers if ":" in header]
        assert ["09:00", "16:00"] == [hours[0], hours[-1]]
        assert "sw-free" in classes

    def test_a_page_of_appointments_is_a_week_grid(self, acme):
        """Appointments by date and hour, each with its time, status and name."""
        ws, cut, ana = acme
        for day, hour in ((24, 15), (24, 16), (26, 14)):
            start = datetime(2026, 11, day, hour, tzinfo=UTC)
            ws.appointments.create(
                cut.id, start, start + timedelta(minutes=30), resource_id=ana.id,
                name="Ann Lee", email="ann@example.com", complete_booking="BK",
            )  # fmt: skip
        cells = _parse(ws.appointments.list()._repr_html_())

        assert "Tue 24 Nov" in cells.headers
        assert "Wed 25 Nov" in cells.headers  # days in between are shown
        assert "15:00" in cells.headers
        assert "15:00 BK Ann Lee" in [text for _, text in cells.cells]

    def test_a_page_is_a_table(self, acme):
        """A page of services: a header row and one row per record."""
        ws, _, _ = acme
        cells = _parse(ws.services.list()._repr_html_())

        assert "name" in cells.headers
        assert "Massage" in [text for _, text in cells.cells]


class TestPlot:
    """slotwise.plot.availability draws free, booked and unavailable time."""

    def test_renders_a_png(self, acme, tmp_path):
        """A week with a booking and the lunch block renders to a non-trivial PNG."""
        pytest.importorskip("matplotlib")  # an extra, absent from the lowest-versions run
        from slotwise.plot import availability

        ws, cut, ana = acme
        ws.appointments.create(
            cut.id, datetime(2026, 11, 24, 15, tzinfo=UTC), datetime(2026, 11, 24, 15, 30, tzinfo=UTC),
            resource_id=ana.id, name="Ann Lee", email="ann@example.com", complete_booking="BK",
        )  # fmt: skip
        week = _week(acme)
        gone = ws.availability.unavailable(
            cut.id, date(2026, 11, 23), date(2026, 11, 29), resource_id=ana.id
        )
        figure = availability(week, gone, names={ana.id: "Ana"})
        path = tmp_path / "week.png"
        figure.savefig(path, dpi=80)
        labels = {text.get_text() for text in figure.axes[0].texts}

        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert path.stat().st_size > 10_000
        assert "Lunch" in labels
        assert 5 == len(figure.axes[0].get_yticklabels())  # the weekend is closed all day
        assert "closed all day: Sat 28 Nov, Sun 29 Nov" in figure.axes[0].get_xlabel()

    def test_days_beyond_book_ahead_are_not_called_closed(self):
        """Weekdays past the week's book-ahead are named as such, never as closed all day."""
        pytest.importorskip("matplotlib")
        from slotwise.plot import availability

        scheduler = Scheduler(clock=ManualClock(datetime(2026, 10, 28, 12, tzinfo=UTC)))
        ws = scheduler.for_company(
            scheduler.create_company(name="Acme", timezone="America/New_York").id
        )
        ws.locations.create(name="Downtown")
        massage = ws.services.create(name="Massage", duration=60, reason="launch")
        ws.resources.create(name="Ana", reason="hire")
        first, last = date(2026, 11, 1), date(2026, 11, 6)

        figure = availability(
            ws.availability.times(massage.id, first, last),
            ws.availability.unavailable(massage.id, first, last),
        )
        label = figure.axes[0].get_xlabel()

        assert "closed all day: Sun 01 Nov" in label
        assert "past or beyond book-ahead: Wed 04 Nov, Thu 05 Nov, Fri 06 Nov" in label
        assert "Wed 04 Nov" not in label.split("closed all day:")[1].split("\n")[0]
