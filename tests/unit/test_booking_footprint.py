"""
What a booking leaves in memory (issue 23, decision 49): event payloads built once and whole,
values shared between records, and the indexes of ``MemoryStore`` with nothing per record but
references.
"""

from __future__ import annotations

import json
import pickle
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import attrs
import pytest

from slotwise import Appointment, Location, MemoryStore, Resource, Service, Workspace
from slotwise.errors import InvalidFormat
from slotwise.model import FrozenJSON, OutboxEvent, Trigger
from slotwise.model.events import DeferredPayload
from slotwise.storage import outbox

NY = ZoneInfo("America/New_York")
HALF_HOUR = timedelta(minutes=30)


def at(hhmm: int) -> datetime:
    """Return *hhmm* New York time on Tuesday 2026-01-06."""
    return datetime(2026, 1, 6, hhmm // 100, hhmm % 100, tzinfo=NY)


class TestBookingEvent:
    def test_payload_is_built_once_when_first_read_and_whole_for_any_encoder(
        self,
        ws: Workspace,
        service: Service,
        resource: Resource,
        monkeypatch: pytest.MonkeyPatch,
    ):
        """
        A booking's event builds its appointment's data when its payload is first read (decision
        49), once; the payload read is whole: msgspec (a C encoder that reads the dict directly)
        writes what json writes.
        """
        msgspec = pytest.importorskip("msgspec")
        built: list[str] = []
        original = outbox._appointment_data

        def counted(appointment: Appointment) -> FrozenJSON:
            built.append(appointment.id)
            return original(appointment)

        monkeypatch.setattr(outbox, "_appointment_data", counted)
        booked = ws.appointments.create(
            service.id,
            at(900),
            at(930),
            resource_id=resource.id,
            name="Ann Lee",
            email="ann@example.com",
            complete_booking="BK",
        )
        assert [] == built
        event = next(e for e in ws.outbox.undelivered() if e.entity_id == booked.id)

        encoded = json.loads(msgspec.json.encode(event.payload))
        assert encoded == json.loads(json.dumps(event.payload))
        assert "BK" == encoded["appointment"]["status"]
        assert [booked.id] == built

    def test_deferred_payload_reads_as_the_payload_built_at_once(self, ws: Workspace):
        """An event given a deferred payload equals, pickles and evolves as one given it built."""
        data = {"appointment": {"id": "a1", "start": "2026-01-06T14:00:00+00:00"}}
        fields: dict[str, Any] = {
            "id": "e1",
            "company_id": "c1",
            "sequence": 1,
            "trigger": Trigger.BOOKING_CONFIRMATION,
            "entity_id": "a1",
            "created_at": at(900),
        }
        deferred = OutboxEvent(**fields, payload=DeferredPayload(dict, data))
        built = OutboxEvent(**fields, payload=data)

        assert built == deferred
        assert built == pickle.loads(pickle.dumps(deferred))
        assert built.payload == attrs.evolve(deferred, attempts=1).payload
        assert built.payload == attrs.asdict(deferred)["payload"]
        assert isinstance(deferred.payload, FrozenJSON)

    def test_customer_data_is_shared_by_the_events_of_one_record(
        self, ws: Workspace, service: Service, resource: Resource
    ):
        """Two bookings of one customer carry one customer data object, equal to a fresh one."""
        for hhmm in (900, 1000):
            ws.appointments.create(
                service.id,
                at(hhmm),
                at(hhmm) + HALF_HOUR,
                resource_id=resource.id,
                name="Ann Lee",
                email="ann@example.com",
                complete_booking="BK",
            )

        events = [e for e in ws.outbox.undelivered() if e.trigger is Trigger.BOOKING_CONFIRMATION]

        first, second = (event.payload["customer"] for event in events)
        assert first is second
        assert "ann@example.com" == first["email"]


class TestSharedValues:
    def test_appointments_of_one_resource_share_their_ids_and_instants(
        self, ws: Workspace, service: Service, resource: Resource, location: Location
    ):
        """Back-to-back bookings of a resource share resource_ids and the instant between them."""
        first, second = (
            ws.appointments.create(
                service.id,
                at(hhmm),
                at(hhmm) + HALF_HOUR,
                resource_id=resource.id,
                name="Ann Lee",
                email="ann@example.com",
                complete_booking="BK",
            )
            for hhmm in (900, 930)
        )

        assert first.resource_ids is second.resource_ids
        assert first.end is second.start
        assert {} == first.custom_fields

    def test_store_indexes_follow_updates_and_deletes(self):
        """A MemoryStore page read, overlap read and child read see updates and deletes."""
        store = MemoryStore()
        start = datetime(2026, 1, 6, 14, tzinfo=ZoneInfo("UTC"))

        def appointment(number: int, status: str = "BK") -> Appointment:
            return Appointment(
                id=f"a{number}",
                company_id="c",
                location_id="l",
                service_id="s",
                resource_ids=("r",),
                customer_id="cu",
                status=status,
                start=start,
                end=start + HALF_HOUR,
                created_at=start,
            )

        with store.transaction() as tx:
            for number in range(3):
                tx.insert(appointment(number))
        with store.transaction() as tx:
            tx.update(appointment(0, "CN"))
            tx.delete(Appointment, "a1")

        with store.read() as reader:
            overlapping = reader.appointments_overlapping(
                location_id="l", resource_ids=["r"], start=start, end=start + HALF_HOUR
            )
            mine = reader.appointments_of_customer("cu")
        assert ["a0", "a2"] == [a.id for a in overlapping]
        assert [("a0", "CN"), ("a2", "BK")] == [(a.id, a.status.value) for a in mine]


class TestRareFields:
    def _appointment(self, **rare: Any) -> Appointment:
        """Return an appointment with the rarely set fields *rare*."""
        start = datetime(2026, 1, 6, 14, tzinfo=ZoneInfo("UTC"))
        return Appointment(
            id="a1",
            company_id="c",
            location_id="l",
            service_id="s",
            status="BK",
            start=start,
            end=start + HALF_HOUR,
            created_at=start,
            **rare,
        )

    def test_rarely_set_fields_share_one_slot(self):
        """Latitude, idempotency key and the like take no slot of their own, yet stay fields."""
        names = {field.name for field in attrs.fields(Appointment)}
        slots = set(vars(Appointment)["__slots__"])
        for name in ("latitude", "meeting_url", "idempotency_key", "payment_charge_id"):
            assert name in names
            assert name not in slots
        assert {"status", "start", "end", "hold_expires_at", "email"} <= slots
        assert self._appointment()._rare is None  # type: ignore[attr-defined]

    def test_rarely_set_fields_behave_as_fields(self):
        """Set, read, evolve, compare, hash, pickle and repr work as for any other field."""
        record = self._appointment(latitude="52.5", idempotency_key="k-1")
        assert ("52.5", "k-1", None) == (record.latitude, record.idempotency_key, record.longitude)

        cleared = attrs.evolve(record, latitude=None, meeting_url="https://meet.example/1")
        assert (None, "k-1") == (cleared.latitude, cleared.idempotency_key)
        assert "https://meet.example/1" == cleared.meeting_url
        assert cleared != record

        copied = pickle.loads(pickle.dumps(record))
        assert copied == record
        assert hash(copied) == hash(record)
        assert "latitude='52.5'" in repr(record)
        assert "k-1" == attrs.asdict(record)["idempotency_key"]
        with pytest.raises(attrs.exceptions.FrozenInstanceError):
            record.latitude = "1"  # type: ignore[misc]

    def test_rarely_set_fields_are_still_validated(self):
        """A rarely set field keeps its validator: a meeting link must be an http(s) URL."""
        with pytest.raises(InvalidFormat):
            self._appointment(meeting_url="not a url")
