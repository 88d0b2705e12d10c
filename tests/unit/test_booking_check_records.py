"""
The booking check's records built without their validators (``query.one_date_query``, the
snapshot ``read_snapshot`` builds) are the records the validating constructors build.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from types import MappingProxyType
from typing import Any

import attrs
import pytest

from slotwise import BusinessHours, Scheduler
from slotwise.availability.query import AvailabilityQuery, one_date_query
from slotwise.availability.snapshot import Snapshot, read_snapshot
from slotwise.errors import OutOfRange
from slotwise.model import Location, Resource, ResourceOptions, RoundRobin, Service
from slotwise.storage.configuration import ConfigurationCache
from slotwise.storage.memory import MemoryStore
from slotwise.testing import ManualClock, SequentialIds

DAY = date(2026, 3, 9)
NOW = datetime(2026, 3, 5, 12, 0, tzinfo=UTC)


def _validated(ids: tuple[str, ...], duration: int | None) -> AvailabilityQuery:
    """The booking check's query as the validating constructor builds it."""
    return AvailabilityQuery(
        service_id="svc",
        start_date=DAY,
        end_date=DAY,
        location_id="loc",
        resource_id=ids[0] if len(ids) == 1 else None,
        resource_ids=ids if len(ids) > 1 else (),
        duration=duration,
        round_robin=RoundRobin.NONE if ids else None,
    )


def _fields(record: Any) -> dict[str, Any]:
    return {field.name: getattr(record, field.name) for field in attrs.fields(type(record))}


class TestOneDateQuery:
    @pytest.mark.parametrize("ids", [(), ("a",), ("a", "b"), ("b", "a", "b"), ("a", "a")], ids=repr)
    @pytest.mark.parametrize("duration", [None, 1, 45, 10_080])
    def test_it_is_the_validated_query(self, ids, duration):
        """Every field (set and defaulted) equals the validating constructor's, repr too."""
        expected = _validated(ids, duration)

        actual = one_date_query(
            service_id="svc", day=DAY, location_id="loc", resource_ids=ids, duration=duration
        )

        assert _fields(expected) == _fields(actual)
        assert repr(expected) == repr(actual)
        assert hash(expected) == hash(actual)

    @pytest.mark.parametrize("duration", [0, -30, 10_081])
    def test_a_duration_out_of_bounds_is_refused_as_the_validator_refuses_it(self, duration):
        """Out of the query's bounds, the same error (type, field, message) as before."""
        with pytest.raises(OutOfRange) as expected:
            _validated(("a",), duration)

        with pytest.raises(OutOfRange) as actual:
            one_date_query(
                service_id="svc", day=DAY, location_id="loc", resource_ids=("a",), duration=duration
            )

        assert (expected.value.field, str(expected.value)) == (
            actual.value.field,
            str(actual.value),
        )


class _Busy:
    """A host's external calendar: one busy hour for every resource it is asked about."""

    def busy(self, resource: Resource, start: datetime, end: datetime) -> list[Any]:
        return [(NOW + timedelta(days=4), NOW + timedelta(days=4, hours=1))]


class TestSnapshot:
    def _read(self, *, busy: bool) -> Snapshot:
        scheduler = Scheduler(MemoryStore(), clock=ManualClock(NOW), ids=SequentialIds())
        company = scheduler.create_company(name="Acme", timezone="Europe/Amsterdam")
        ws = scheduler.for_company(company.id)
        ws.locations.create(name="Centre", business_hours=BusinessHours.always())
        service = ws.services.create(name="Cut", duration=30, padding=10, reason="r")
        other = ws.services.create(name="Dye", duration=60, padding=20, reason="r")
        ana = ws.resources.create(
            name="Ana",
            reason="r",
            options=ResourceOptions(calendar_availability=1 if busy else 0),
            linked_service_ids=[service.id, other.id],
        )
        start = datetime(2026, 3, 9, 9, 0, tzinfo=UTC)
        ws.appointments.create(
            other.id,
            start,
            start + timedelta(hours=1),
            resource_id=ana.id,
            name="Bo",
            email="bo@example.com",
            complete_booking="BK",
        )
        query = AvailabilityQuery(service_id=service.id, start_date=DAY, end_date=DAY)
        with scheduler.store.read() as view:
            reader = ConfigurationCache().reader(view, company.id)
            location = reader.find(Location, company_id=company.id)[0]
            held = reader.get(Service, service.id)
            assert held is not None
            return read_snapshot(
                reader,
                query,
                location=location,
                settings=location.settings,
                service=held,
                busy_provider=_Busy() if busy else None,
            )

    @pytest.mark.parametrize("busy", [False, True], ids=["no busy time", "busy time"])
    def test_it_is_the_validated_snapshot(self, busy):
        """The snapshot read equals the one Snapshot(...) builds of its values, and is usable."""
        snapshot = self._read(busy=busy)
        given = {
            name: value for name, value in _fields(snapshot).items() if name != "configuration"
        }

        expected = Snapshot(**given)

        assert expected == snapshot
        assert snapshot.configuration is not None
        assert 1 == len(snapshot.appointments)
        assert 1 == len(snapshot.paddings)
        assert busy == bool(snapshot.busy)
        for name in ("paddings", "busy"):
            assert isinstance(getattr(snapshot, name), MappingProxyType)
        for name in ("resources", "blocks", "allocations", "appointments"):
            assert isinstance(getattr(snapshot, name), tuple)
        assert expected == attrs.evolve(snapshot)
