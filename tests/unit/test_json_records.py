"""``to_json_data`` turns records into JSON data; ``from_json_data`` reads back what it wrote."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from slotwise.model import Appointment, from_json_data, to_json_data
from slotwise.testing.samples import sample_records

RECORDS = sample_records(company_id="co", location_id="loc", prefix="p")


class TestFromJsonData:
    """Every record kind survives the round trip through plain JSON data unchanged."""

    @pytest.mark.parametrize("record", RECORDS, ids=lambda record: type(record).__name__)
    def test_every_record_kind_round_trips(self, record):
        """to_json_data then from_json_data gives an equal record (dates, enums, nested ones)."""
        data = to_json_data(record)

        assert record == from_json_data(type(record), data)

    def test_unknown_keys_are_ignored_and_missing_fields_default(self):
        """Keys that are not fields (an event's added resource_id) are ignored."""
        appointment = next(r for r in RECORDS if isinstance(r, Appointment))
        data = {**to_json_data(appointment), "resource_id": "r", "duration": 30}
        del data["idempotency_fingerprint"]

        assert appointment == from_json_data(Appointment, data)

    def test_a_partial_record_is_refused(self):
        """Without its required fields the record cannot be built (TypeError)."""
        with pytest.raises(TypeError):
            from_json_data(Appointment, {"id": "a"})


class TestToJsonData:
    """``slotwise.to_json_data``: an embedding application's way from a record to JSON."""

    def test_is_public(self):
        """Both functions are importable from slotwise itself, as the docs show them."""
        import slotwise

        assert (to_json_data, from_json_data) == (slotwise.to_json_data, slotwise.from_json_data)

    @pytest.mark.parametrize("record", RECORDS, ids=lambda record: type(record).__name__)
    def test_every_record_kind_dumps_as_json(self, record):
        """json.dumps writes every record kind's data as it is; the JSON text reads back the record."""
        data = to_json_data(record)

        assert record == from_json_data(type(record), json.loads(json.dumps(data)))

    def test_a_page_and_an_availability_answer_dump_as_json(self):
        """A page of appointments and a week's slots dump, slots in the location's zone."""
        import slotwise
        from slotwise.testing import ManualClock

        clock = ManualClock(datetime(2026, 1, 5, 12, tzinfo=UTC))
        scheduler = slotwise.Scheduler(clock=clock)
        company = scheduler.create_company(name="Salon", timezone="America/New_York")
        ws = scheduler.for_company(company.id)
        ws.locations.create(name="Main St")
        cut = ws.services.create(name="Cut", duration=30, reason="menu")
        ws.resources.create(name="Ana", reason="staff")
        week = ws.availability.times(cut.id, "2026-01-06", "2026-01-06")
        slot = week.available_times[0]
        ws.appointments.create(
            cut.id, slot.start, slot.end, name="Ann Lee", email="a@b.co", complete_booking="BK"
        )

        page = json.loads(json.dumps(to_json_data(ws.appointments.list())))
        times = json.loads(json.dumps(to_json_data(week)))

        assert ("BK", "2026-01-06T14:00:00+00:00") == (
            page["data"][0]["status"],
            page["data"][0]["start"],
        )
        assert "2026-01-06T09:00:00-05:00" == times["available_times"][0]["start"]
