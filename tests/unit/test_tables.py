"""Results and pages as rows and DataFrames (slotwise.tables, issue 14)."""

from __future__ import annotations

import builtins
from datetime import UTC, date, datetime

import pytest

from slotwise import MissingDependency, RepeatRule, Scheduler
from slotwise.tables import frame_of, polars_frame_of
from slotwise.testing import ManualClock

# An extra: the run on the lowest declared versions has only the core installed.
pandas = pytest.importorskip("pandas")
polars = pytest.importorskip("polars")


@pytest.fixture
def acme():
    """Ana, a 30-minute cut, a weekday lunch block; Tuesday and Wednesday searched."""
    scheduler = Scheduler(clock=ManualClock(datetime(2026, 11, 23, 12, tzinfo=UTC)))
    company = scheduler.create_company(name="Acme", timezone="America/New_York")
    ws = scheduler.for_company(company.id)
    ws.locations.create(name="Downtown")
    cut = ws.services.create(name="Cut", duration=30, reason="r")
    ana = ws.resources.create(name="Ana", reason="r")
    ws.resources.create_block(
        ana.id, start_date=date(2026, 11, 23), end_date="never", start_time=1200, end_time=1300,
        reason="Lunch", repeat=RepeatRule(frequency="W", weekdays="12345"),
    )  # fmt: skip
    return ws, cut, ana


def _times(acme, **query):
    ws, cut, ana = acme
    return ws.availability.times(
        cut.id, date(2026, 11, 24), date(2026, 11, 25), resource_id=ana.id, **query
    )


class TestRecords:
    """records(): flat dicts, snake_case keys, aware datetimes."""

    def test_slots(self, acme):
        """One row per slot, with its aware start in the requested zone."""
        rows = _times(acme).records()

        assert 52 == len(rows)  # 2 days x (31 quarter-hour starts 09:00-16:30 - 5 near lunch)
        assert datetime(2026, 11, 24, 14, tzinfo=UTC) == rows[0]["start"]
        assert "America/New_York" == str(rows[0]["start"].tzinfo)
        assert {"start", "end", "time", "available_bookings", "resource_id"} <= set(rows[0])

    def test_pages_flatten_nested_records(self, acme):
        """A page of locations: nested records' fields are prefixed (address_city)."""
        ws, _, _ = acme
        [row] = ws.locations.list().records()

        assert "Downtown" == row["name"]
        assert "address_city" in row
        assert "business_hours_mon_start_time" in row


class TestDataFrames:
    """to_pandas() and to_polars(): dtypes and values."""

    def test_pandas_dtypes(self, acme):
        """Start and end are zoned datetime columns; codes are categorical."""
        ws, cut, ana = acme
        frame = _times(acme).to_pandas()
        reasons = ws.availability.unavailable(
            cut.id, date(2026, 11, 24), date(2026, 11, 24), resource_id=ana.id
        ).to_pandas()

        assert isinstance(frame["start"].dtype, pandas.DatetimeTZDtype)
        assert "America/New_York" == str(frame["start"].dt.tz)
        assert 52 == len(frame)
        assert isinstance(reasons["reason_code"].dtype, pandas.CategoricalDtype)
        assert "RB" in set(reasons["reason_code"])

    def test_requested_offset_is_kept(self, acme):
        """With tzOffset, the datetime column carries that offset."""
        frame = _times(acme, tz_offset=60).to_pandas()

        assert 15 == frame["start"].iloc[0].hour  # 09:00 New York is 15:00 at UTC+1

    def test_polars_dtypes(self, acme):
        """polars: Datetime in the zone, Categorical codes, the same row count."""
        ws, cut, ana = acme
        frame = _times(acme).to_polars()
        reasons = ws.availability.unavailable(
            cut.id, date(2026, 11, 24), date(2026, 11, 24), resource_id=ana.id
        ).to_polars()

        assert (
            polars.Datetime(time_unit="us", time_zone="America/New_York") == frame.schema["start"]
        )
        assert polars.Categorical == reasons.schema["reason_code"]
        assert 52 == frame.height

    @pytest.mark.parametrize(
        "query",
        [
            {},
            {"tz_offset": 60},
            {"resource_id": None, "round_robin": "none"},
            {"start": date(2026, 12, 25)},
        ],
        ids=["zone", "offset", "two-resources", "empty"],
    )
    def test_columns_give_the_rows_frames(self, acme, query):
        """Availability's frames, built from the answer's columns, equal the rows' frames."""
        ws, cut, ana = acme
        ws.resources.create(name="Ben", reason="r")
        asked = {"resource_id": ana.id, **query}
        first = asked.pop("start", date(2026, 11, 24))
        times = ws.availability.times(cut.id, first, first, **asked)
        rows, codes = times._table()
        schema = times._schema()

        pandas.testing.assert_frame_equal(
            frame_of(rows, codes, schema, times._zone()), times.to_pandas()
        )
        assert polars_frame_of(rows, codes, schema, times._zone()).equals(times.to_polars())
        if "round_robin" in query:
            assert {"Ana", "Ben"} == set(times.to_pandas()["resource_name"])

    def test_without_pandas_says_which_extra(self, acme, monkeypatch):
        """Without pandas installed, to_pandas() raises MissingDependency naming the extra."""
        real = builtins.__import__

        def refuse(name, *args, **kwargs):
            if name == "pandas":
                raise ImportError(name)
            return real(name, *args, **kwargs)

        monkeypatch.setattr(builtins, "__import__", refuse)

        with pytest.raises(MissingDependency, match="pandas"):
            _times(acme).to_pandas()
