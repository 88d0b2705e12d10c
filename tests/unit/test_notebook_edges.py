"""
Notebook views at their edges (issue 22): names people typed drawn as typed, a picture of a
large answer, and a DST fold in the week grid.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime

import pytest

from slotwise import RoundRobin, Scheduler
from slotwise.testing import ManualClock

MONDAY, FRIDAY = date(2026, 11, 23), date(2026, 11, 27)

matplotlib = pytest.importorskip("matplotlib")


def _world(resources, *, service="Cut", zone="America/New_York", now=datetime(2026, 11, 23, 12)):
    """A location with a 60-minute service and one open resource per name; its workspace."""
    scheduler = Scheduler(clock=ManualClock(now.replace(tzinfo=UTC)))
    ws = scheduler.for_company(scheduler.create_company(name="Acme", timezone=zone).id)
    ws.locations.create(name="Downtown")
    cut = ws.services.create(name=service, duration=60, reason="r")
    people = [ws.resources.create(name=name, reason="r") for name in resources]
    return ws, cut, people


class TestTextAsTyped:
    """Names and reasons in the picture are drawn as typed: ``$`` is not mathtext."""

    @pytest.fixture
    def figure(self):
        """A service, a resource and a block reason with dollars (one not valid mathtext)."""
        from slotwise.plot import availability

        ws, cut, (ana, _) = _world(["Ana $5$", "Ben_Okafor"], service="Cut $20 + Colour $45")
        ws.resources.create_block(
            ana.id, start_date=date(2026, 11, 24), end_date=date(2026, 11, 24),
            start_time=1200, end_time=1400, reason=r"Team $\frac{1}$ mtg",
        )  # fmt: skip
        times = ws.availability.times(cut.id, MONDAY, FRIDAY, round_robin=RoundRobin.NONE)
        return availability(times, ws.availability.unavailable(cut.id, MONDAY, FRIDAY))

    def test_the_figure_draws(self, figure):
        """A reason that is not valid mathtext no longer stops the PNG (Jupyter showed a traceback)."""
        assert figure._repr_png_()[:8] == b"\x89PNG\r\n\x1a\n"

    def test_every_text_from_records_is_literal(self, figure):
        """Title, row labels and block labels are neither mathtext nor TeX, whatever the host sets."""
        axes = figure.axes[0]
        texts = [axes.title, *axes.get_yticklabels(), *axes.texts]

        assert "Cut $20 + Colour $45 at Downtown" in axes.get_title()
        assert r"Team $\frac{1}$ mtg" in [text.get_text() for text in axes.texts]
        assert "Ana $5$  Tue 24 Nov" in [label.get_text() for label in axes.get_yticklabels()]
        assert not [text for text in texts if text.get_parse_math() or text.get_usetex()]


def test_long_names_are_cut_with_an_ellipsis_and_kept_apart():
    """A long name ends in an ellipsis; two names cut alike are shown whole, so rows differ."""
    from slotwise.plot import availability

    names = ["Dr. Alexandra Papadopoulou", "Dr. Alexandra Papadakis", "Wolfeschlegelsteinhausen"]
    ws, cut, _ = _world(names)
    times = ws.availability.times(cut.id, MONDAY, MONDAY, round_robin=RoundRobin.NONE)
    labels = [
        label.get_text().split("  ")[0] for label in availability(times).axes[0].get_yticklabels()
    ]

    assert ["Dr. Alexandra Papadakis", "Dr. Alexandra Papadopoulou", "Wolfeschlegelsteinh…"] == (
        labels
    )


class TestLargeAnswers:
    """A picture of many resources and days stays a picture (minutes and metres before)."""

    @pytest.fixture
    def week(self):
        """Three open resources over a working week: fifteen rows."""
        ws, cut, _ = _world(["Ana", "Ben", "Chloé"])
        times = ws.availability.times(cut.id, MONDAY, FRIDAY, round_robin=RoundRobin.NONE)
        return times, ws.availability.unavailable(cut.id, MONDAY, FRIDAY)

    def test_rows_past_max_rows_are_left_out_and_said(self, week):
        """max_rows=4: Ana's first four dates are drawn, and the axis label counts all fifteen."""
        from slotwise.plot import availability

        axes = availability(*week, max_rows=4).axes[0]

        assert ["Ana  Mon 23 Nov", "Ana  Tue 24 Nov", "Ana  Wed 25 Nov", "Ana  Thu 26 Nov"] == [
            label.get_text() for label in axes.get_yticklabels()
        ]
        assert "the first 4 of 15 rows (resource and date) are drawn" in axes.get_xlabel()

    def test_the_default_draws_a_week_whole(self, week):
        """Fifteen rows are under the default cap: every row, no note."""
        from slotwise.plot import MAX_ROWS, availability

        axes = availability(*week).axes[0]

        assert 15 == len(axes.get_yticklabels()) < MAX_ROWS
        assert "rows (resource and date) are drawn" not in axes.get_xlabel()

    def test_one_collection_per_kind(self, week):
        """Bars of a kind share one collection, so drawing does not slow down with each bar."""
        from slotwise.plot import KINDS, availability

        axes = availability(*week).axes[0]
        bars = sum(len(collection.get_paths()) for collection in axes.collections)

        assert len(axes.collections) <= len(KINDS) < bars


class TestFoldInTheGrid:
    """Europe/Amsterdam 2023-10-29: the clock runs 02:00-03:00 twice (CEST, then CET)."""

    @pytest.fixture
    def fold_day(self):
        """One resource open all day at a location open all day; that Sunday's times."""
        from slotwise import BusinessHours, DayHours, DayWindow, WeeklyHours

        scheduler = Scheduler(clock=ManualClock(datetime(2023, 10, 23, 12, tzinfo=UTC)))
        company = scheduler.create_company(name="Acme", timezone="Europe/Amsterdam")
        ws = scheduler.for_company(company.id)
        ws.locations.create(
            name="Centrum", business_hours=BusinessHours(sun=DayHours.open(0, 2400))
        )
        cut = ws.services.create(name="Cut", duration=60, reason="r")
        ws.resources.create(
            name="Ana",
            reason="r",
            weekly_hours=WeeklyHours(sun=DayWindow(start_time=0, end_time=2400)),
        )
        sunday = date(2023, 10, 29)
        return ws.availability.times(cut.id, sunday, sunday)

    def test_one_resource_keeps_the_plain_times(self, fold_day):
        """The two 02:00 starts are two instants of one resource: Jupyter shows times, not counts."""
        assert "resources with a start" not in fold_day._repr_html_()

    def test_the_two_hours_are_told_apart(self, fold_day):
        """The 02:00 row lists 02:00 CEST and 02:00 CET; other hours have no abbreviation."""
        from tests.notebooks import parse_grid

        cells = [cell[2] for cell in parse_grid(fold_day._repr_html_()).cells if cell[2]]
        two = next(cell for cell in cells if cell.startswith("02:00"))

        assert (
            "02:00 CEST 02:15 CEST 02:30 CEST 02:45 CEST 02:00 CET 02:15 CET 02:30 CET 02:45 CET"
        ) == two
        assert "01:00 01:15 01:30 01:45" == next(c for c in cells if c.startswith("01:00"))


class TestGapInTheUnavailableGrid:
    """America/New_York 2026-03-08: the clocks go from 02:00 to 03:00; 02:00-03:00 never happens."""

    @pytest.fixture
    def spring_day(self):
        """A resource free that Sunday but 10:00-11:00, at a location open around the clock."""
        from slotwise import BusinessHours

        scheduler = Scheduler(clock=ManualClock(datetime(2026, 3, 6, tzinfo=UTC)))
        ws = scheduler.for_company(
            scheduler.create_company(name="Acme", timezone="America/New_York").id
        )
        ws.locations.create(name="Downtown", business_hours=BusinessHours.always())
        cut = ws.services.create(name="Cut", duration=60, reason="r")
        ana = ws.resources.create(name="Ana", reason="r", linked_service_ids=[cut.id])
        sunday = date(2026, 3, 8)
        ws.resources.create_block(
            ana.id, start_date=sunday, end_date=sunday, start_time=1000, end_time=1100, reason="x"
        )
        return ws.availability.unavailable(cut.id, sunday, sunday)._repr_html_()

    @staticmethod
    def _row(markup: str, hour: str) -> str:
        """Return the cells of the grid's row headed *hour*."""
        found = re.search(rf"<tr><th>{hour}</th>(.*?)</tr>", markup)
        assert found is not None, hour
        return found.group(1)

    def test_the_skipped_hour_is_no_time_not_free(self, spring_day):
        """The 02:00 row says ``gap`` (no such time), with the legend saying why."""
        row = self._row(spring_day, "02:00")

        assert "class='sw-gap'" in row
        assert "free" not in row
        assert "gap no such time (the clocks went forward)" in spring_day

    def test_the_hours_around_it_are_free(self, spring_day):
        """01:00 and 03:00 happen, and Ana is free in both."""
        for hour in ("01:00", "03:00"):
            assert "sw-gap" not in self._row(spring_day, hour)
            assert "sw-free" in self._row(spring_day, hour)


def test_the_plot_marks_the_skipped_hour():
    """
    On the spring DST day the picture lays a ``gap`` bar over 02:00-03:00, which a slot drawn
    in wall time would otherwise cross as if it happened; the legend says why.
    """
    from slotwise import BusinessHours
    from slotwise.plot import KINDS, availability

    scheduler = Scheduler(clock=ManualClock(datetime(2026, 3, 6, tzinfo=UTC)))
    ws = scheduler.for_company(
        scheduler.create_company(name="Acme", timezone="America/New_York").id
    )
    ws.locations.create(name="Downtown", business_hours=BusinessHours.always())
    cut = ws.services.create(name="Cut", duration=60, reason="r")
    ws.resources.create(name="Ana", reason="r", linked_service_ids=[cut.id])
    sunday = date(2026, 3, 8)

    figure = availability(
        ws.availability.times(cut.id, sunday, sunday),
        ws.availability.unavailable(cut.id, sunday, sunday),
    )

    axes = figure.axes[0]
    legend = [text.get_text() for text in axes.get_legend().get_texts()]
    assert KINDS["gap"][0] in legend
    gaps = [
        collection for collection in axes.collections if collection.get_hatch() == KINDS["gap"][2]
    ]
    assert 1 == len(gaps)
    (box,) = gaps[0].get_paths()
    assert (2.0, 3.0) == (min(box.vertices[:, 0]), max(box.vertices[:, 0]))
