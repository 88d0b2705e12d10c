"""
``SQLStore``'s documents (``storage.sql._codec``): the per-class encoders write the text cattrs'
unstructuring writes, for every record kind.
"""

from __future__ import annotations

import json

import attrs
import pytest
from hypothesis import given, settings

pytest.importorskip("cattrs")

from slotwise.model import Appointment, FieldValue
from slotwise.storage.sql import _codec
from slotwise.testing.samples import sample_records
from tests.strategies import appointments


def cattrs_document(record: object) -> str:
    """The document as cattrs' unstructuring alone writes it."""
    data = _codec._CONVERTER.unstructure(record)
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


class TestDocuments:
    def test_every_sample_record_encodes_as_cattrs_does(self):
        """Each record kind's sample is written as cattrs writes it, and reads back equal."""
        records = sample_records(company_id="c1", location_id="l1", prefix="p")
        appointment = next(r for r in records if isinstance(r, Appointment))
        records.append(
            attrs.evolve(
                appointment,
                latitude="52.37",
                idempotency_key="key-1",
                meeting_url="https://meet.example.com/x",
                custom_fields={"field1": "Zoë"},
                appointment_booking_fields=(FieldValue(name="notes", value="window seat"),),
            )
        )
        for record in records:
            document = _codec.encode(record)

            assert cattrs_document(record) == document
            assert record == _codec.decode(type(record), document)

    @settings(max_examples=200, deadline=None)
    @given(appointments())
    def test_appointments_encode_as_cattrs_does(self, appointment: Appointment):
        """Any appointment is written as cattrs writes it."""
        assert cattrs_document(appointment) == _codec.encode(appointment)
