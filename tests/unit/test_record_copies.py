"""Records cross process boundaries and caches: every kind pickles and deep-copies to an equal value."""

from __future__ import annotations

import copy
import pickle

import pytest

from slotwise.model import Record
from slotwise.testing.samples import sample_records

RECORDS = sample_records(company_id="company-1", location_id="location-1", prefix="s-")


@pytest.mark.parametrize("record", RECORDS, ids=lambda record: type(record).__name__)
class TestRecordCopies:
    def test_pickle_round_trip_gives_an_equal_record(self, record: Record):
        """pickle.loads(pickle.dumps(record)) == record, at every protocol."""
        for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
            assert pickle.loads(pickle.dumps(record, protocol)) == record

    def test_deep_copy_gives_an_equal_record(self, record: Record):
        """copy.deepcopy(record) == record (mappings inside stay read-only)."""
        assert copy.deepcopy(record) == record


def test_mappings_inside_records_stay_read_only_after_a_round_trip():
    """A service's options read back from pickle still refuse writes."""
    service = next(record for record in RECORDS if type(record).__name__ == "Service")
    options = pickle.loads(pickle.dumps(service)).options

    with pytest.raises(TypeError):
        options["colour"] = "red"  # type: ignore[index]
