"""
What a booking leaves in memory (issue 23, decision 49): event payloads built when first read,
values shared between records, and the indexes of ``MemoryStore`` with nothing per record but
references.
"""

from __future__ import annotations

import ast
import copy
import json
import pickle
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from slotwise import Appointment, Location, MemoryStore, Resource, Service, Workspace
from slotwise.model import FrozenJSON, OutboxEvent, Trigger, freeze_json
from slotwise.model._frozen import LazyJSON
from slotwise.storage import outbox

NY = ZoneInfo("America/New_York")
HALF_HOUR = timedelta(minutes=30)


def at(hhmm: int) -> datetime:
    """Return *hhmm* New York time on Tuesday 2026-01-06."""
    return datetime(2026, 1, 6, hhmm // 100, hhmm % 100, tzinfo=NY)


def lazy(calls: list[int]) -> LazyJSON:
    """A LazyJSON of two keys that counts its builds in *calls*."""

    def build() -> dict[str, object]:
        calls.append(1)
        return {"a": freeze_json({"x": [1, 2]}), "b": None}

    return LazyJSON(["a", "b"], build)


class TestLazyJSON:
    def test_built_once_on_first_read(self):
        """Nothing is built until a read; the first read builds it, later reads reuse it."""
        calls: list[int] = []
        payload = lazy(calls)

        assert [] == calls
        assert (1, 2) == payload["a"]["x"]
        assert {"a": {"x": (1, 2)}, "b": None} == payload
        assert [1] == calls

    @pytest.mark.parametrize(
        "read",
        [
            lambda p: json.loads(json.dumps(p)),
            lambda p: dict(p),
            lambda p: {**p},
            lambda p: dict(p.items()),
            lambda p: {key: p.get(key) for key in p},
            lambda p: ast.literal_eval(repr(p)),
            lambda p: pickle.loads(pickle.dumps(p)),
            lambda p: copy.deepcopy(p),
        ],
    )
    def test_every_way_of_reading_sees_the_items(self, read):
        """json.dumps, dict(), ** unpacking, items, get, repr, pickle and deepcopy see the items."""
        payload = lazy([])

        seen = read(payload)

        assert {"a": {"x": [1, 2]}, "b": None} == json.loads(json.dumps(seen))

    def test_it_is_a_read_only_frozen_json(self):
        """A LazyJSON is a FrozenJSON: freeze_json keeps it, changes raise TypeError."""
        payload = lazy([])

        assert isinstance(payload, FrozenJSON)
        assert payload is freeze_json(payload)
        with pytest.raises(TypeError):
            payload["c"] = 1  # type: ignore[index]

    def test_an_event_keeps_it_unbuilt(self):
        """OutboxEvent keeps a LazyJSON payload as it is, without building it."""
        calls: list[int] = []

        event = OutboxEvent(
            id="e",
            company_id="c",
            sequence=1,
            trigger=Trigger.BOOKING_CONFIRMATION,
            entity_id="a",
            payload=lazy(calls),
            created_at=at(900),
        )

        assert [] == calls
        assert isinstance(event.payload, LazyJSON)
        assert None is event.payload["b"]


class TestBookingEvent:
    def test_payload_is_built_when_first_read(
        self,
        ws: Workspace,
        service: Service,
        resource: Resource,
        monkeypatch: pytest.MonkeyPatch,
    ):
        """A booking builds no payload data; reading the event builds the record as it was."""
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
        ws.appointments.cancel(booked.id)

        event = next(e for e in ws.outbox.undelivered() if e.entity_id == booked.id)

        assert ("BK", [booked.id]) == (event.payload["appointment"]["status"], built)

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
