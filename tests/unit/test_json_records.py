"""``from_json_data`` reads back what ``to_json_data`` wrote: the outbox's record snapshots."""

from __future__ import annotations

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
