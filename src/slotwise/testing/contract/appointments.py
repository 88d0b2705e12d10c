"""
Part of :class:`~slotwise.testing.StoreContract`. The range reads of appointments:
``appointments_overlapping``, and ``slotwise.storage.batched.appointments_occupying`` (the
booking check's read, narrower on stores that know their services' largest padding).
"""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone
from typing import Any

import attrs

from slotwise.model import (
    Appointment,
    AppointmentStatus,
    Service,
)
from slotwise.storage.batched import appointments_occupying
from slotwise.storage.protocol import Reader
from slotwise.testing.samples import sample_service

from ._base import (
    ContractBase,
    _shows,
)
from ._world import (
    CO_A,
    LOC_A1,
    LOC_A2,
    LOC_B1,
    RES_1,
    RES_2,
    RES_3,
    RES_4,
    RES_B,
    _appointment,
    _at,
    _bare_world,
    _overlapping,
)


def _occupying(
    reader: Reader, start: datetime, end: datetime, resource_ids: list[str]
) -> list[str]:
    """Return the ids ``appointments_occupying`` finds at LOC_A1, in its order."""
    found = appointments_occupying(
        reader,
        company_id=CO_A,
        location_id=LOC_A1,
        resource_ids=resource_ids,
        start=start,
        end=end,
    )
    return [appointment.id for appointment in found]


def _occupies(reader: Reader, appointment: Appointment, start: datetime, end: datetime) -> bool:
    """Tell whether *appointment*'s occupied time (end plus its service's padding) meets the range."""
    service = reader.get(Service, appointment.service_id)
    padding = timedelta(minutes=service.padding if service is not None else 0)
    return appointment.start < end and appointment.end + padding > start


class AppointmentRangeContract(ContractBase):
    """The range reads of appointments: ``appointments_overlapping`` and the occupancy read."""

    # -- the occupancy read --------------------------------------------------------------

    _PADDED = "svc-padded"

    def _padded_world(self, padding: int) -> list[Any]:
        """The bare world, a service of LOC_A1 with *padding*, and appointments of both services."""
        padded = sample_service(
            id=self._PADDED, company_id=CO_A, location_id=LOC_A1, padding=padding
        )
        return [
            *_bare_world(),
            padded,
            _appointment("apt-padded", _at(8), _at(9), service_id=self._PADDED),
            _appointment("apt-plain", _at(8), _at(9, 30), resource_ids=[RES_2]),
            _appointment("apt-long-ago", _at(1), _at(2), service_id=self._PADDED),
            _appointment("apt-later", _at(10, 30), _at(11), resource_ids=[RES_1, RES_2]),
        ]

    def test_occupancy_read_holds_every_appointment_whose_padding_reaches_the_range(self) -> None:
        """
        Every appointment whose [start, end + padding) meets the range is found, in (start, id)
        order, and nothing the day before it could not reach: ``[10:00, 11:00)`` meets the
        08:00-09:00 appointment of a service padded 90 minutes, not the 08:00-09:30 unpadded one.
        """
        store = self._store(*self._padded_world(90))
        start, end = _at(10), _at(11)

        with store.read() as reader:
            found = _occupying(reader, start, end, [RES_1, RES_2])
            day_before = reader.appointments_overlapping(
                location_id=LOC_A1,
                resource_ids=[RES_1, RES_2],
                start=start - timedelta(days=1),
                end=end,
            )
            required = [a.id for a in day_before if _occupies(reader, a, start, end)]

        assert {"apt-padded", "apt-later"} == set(required)
        assert set(required) <= set(found), _shows(required, found)
        assert set(found) <= {a.id for a in day_before}, _shows([a.id for a in day_before], found)
        by_id = {a.id: a for a in day_before}
        assert found == sorted(found, key=lambda i: (by_id[i].start, i))

    def test_occupancy_read_sees_a_padding_raised_after_booking(self) -> None:
        """Padding raised from 0 to 120 minutes after the booking: the 08:00-09:00 one reaches 10:30."""
        store = self._store(*self._padded_world(0))
        start, end = _at(10, 30), _at(11)
        with store.read() as reader:
            before = _occupying(reader, start, end, [RES_1])
            service = reader.get(Service, self._PADDED)
        assert service is not None
        with store.transaction() as tx:
            tx.update(attrs.evolve(service, padding=120))

        with store.read() as reader:
            after = _occupying(reader, start, end, [RES_1])

        assert "apt-later" in before
        assert {"apt-padded", "apt-later"} <= set(after), _shows(["apt-padded", "apt-later"], after)

    def test_occupancy_read_keeps_to_the_location_and_resources(self) -> None:
        """Appointments of other resources, other locations and other companies are never found."""
        store = self._store(
            *self._padded_world(1440),
            _appointment("apt-a2", _at(10), _at(11), resource_ids=[RES_4], location_id=LOC_A2),
            _appointment("apt-b1", _at(10), _at(11), resource_ids=[RES_B], location_id=LOC_B1),
        )

        with store.read() as reader:
            found = _occupying(reader, _at(10), _at(11), [RES_1, RES_4, RES_B])
            nothing = _occupying(reader, _at(10), _at(11), [])

        assert {"apt-padded", "apt-long-ago", "apt-later"} == set(found), _shows(
            ["apt-long-ago", "apt-padded", "apt-later"], found
        )
        assert [] == nothing

    # -- appointments --------------------------------------------------------------------

    def test_appointments_overlapping_is_half_open(self) -> None:
        """An appointment [10:00, 11:00) overlaps ranges that share at least one instant with it."""
        store = self._store(*_bare_world(), _appointment("apt", _at(10), _at(11)))
        ranges = [
            (_at(10), _at(11)),
            (_at(10, 59), _at(12)),
            (_at(9), _at(10, 1)),
            (_at(9), _at(12)),
            (_at(10, 15), _at(10, 30)),
        ]

        with store.read() as reader:
            for resource_ids in (None, [RES_1]):
                for start, end in ranges:
                    found = _overlapping(reader, start, end, resource_ids=resource_ids)
                    assert ["apt"] == found, f"{start}..{end} {resource_ids}" + _shows(
                        ["apt"], found
                    )

    def test_appointments_touching_are_not_overlapping(self) -> None:
        """An appointment ending at the range start or starting at the range end is excluded."""
        store = self._store(*_bare_world(), _appointment("apt", _at(10), _at(11)))

        with store.read() as reader:
            for resource_ids in (None, [RES_1]):
                for start, end in ((_at(11), _at(12)), (_at(9), _at(10))):
                    found = _overlapping(reader, start, end, resource_ids=resource_ids)
                    assert [] == found, f"{start}..{end} {resource_ids}" + _shows([], found)

    def test_multi_resource_appointment_is_returned_once(self) -> None:
        """An appointment taking two of the named resources is returned once."""
        store = self._store(
            *_bare_world(), _appointment("apt", _at(10), _at(11), resource_ids=[RES_1, RES_2])
        )

        with store.read() as reader:
            for resource_ids in ([RES_1, RES_2], [RES_2], [RES_2, RES_1, RES_3], None):
                found = _overlapping(reader, _at(9), _at(12), resource_ids=resource_ids)
                assert ["apt"] == found, f"{resource_ids}" + _shows(["apt"], found)

    def test_appointments_overlapping_filters_by_resource(self) -> None:
        """With resource_ids, only appointments taking one of them; with none named, nothing."""
        store = self._store(
            *_bare_world(),
            _appointment("apt-1", _at(10), _at(11), resource_ids=[RES_1]),
            _appointment("apt-2", _at(10), _at(11), resource_ids=[RES_2]),
            _appointment("apt-3", _at(10), _at(11), resource_ids=[RES_3]),
            _appointment("apt-none", _at(10), _at(11), resource_ids=[]),
        )
        cases: list[tuple[list[str], list[str]]] = [
            ([RES_1], ["apt-1"]),
            ([RES_3, RES_1], ["apt-1", "apt-3"]),
            ([RES_1, RES_2, RES_3], ["apt-1", "apt-2", "apt-3"]),
            (["res-unknown"], []),
            ([], []),
        ]

        with store.read() as reader:
            for resource_ids, expected in cases:
                found = _overlapping(reader, _at(9), _at(12), resource_ids=resource_ids)
                assert expected == found, f"{resource_ids}" + _shows(expected, found)

    def test_appointments_overlapping_none_returns_all_at_location(self) -> None:
        """resource_ids=None returns every overlapping appointment at the location."""
        store = self._store(
            *_bare_world(),
            _appointment("apt-1", _at(10), _at(11), resource_ids=[RES_1]),
            _appointment("apt-2", _at(10), _at(11), resource_ids=[RES_2, RES_3]),
            _appointment("apt-none", _at(10), _at(11), resource_ids=[]),
        )

        with store.read() as reader:
            found = _overlapping(reader, _at(9), _at(12))
        expected = ["apt-1", "apt-2", "apt-none"]
        assert expected == found, _shows(expected, found)

    def test_appointments_overlapping_excludes_other_locations(self) -> None:
        """Appointments at other locations are never returned, even taking a named resource."""
        store = self._store(
            *_bare_world(),
            _appointment("apt-a1", _at(10), _at(11), resource_ids=[RES_1]),
            _appointment("apt-a2", _at(10), _at(11), resource_ids=[RES_4], location_id=LOC_A2),
            _appointment("apt-a2-r1", _at(10), _at(11), resource_ids=[RES_1], location_id=LOC_A2),
            _appointment("apt-b1", _at(10), _at(11), resource_ids=[RES_B], location_id=LOC_B1),
        )
        cases: list[tuple[str, list[str] | None, list[str]]] = [
            (LOC_A1, None, ["apt-a1"]),
            (LOC_A1, [RES_1, RES_4, RES_B], ["apt-a1"]),
            (LOC_A2, None, ["apt-a2", "apt-a2-r1"]),
            (LOC_A2, [RES_1], ["apt-a2-r1"]),
            (LOC_B1, None, ["apt-b1"]),
            ("loc-unknown", None, []),
        ]

        with store.read() as reader:
            for location_id, resource_ids, expected in cases:
                found = _overlapping(
                    reader, _at(9), _at(12), resource_ids=resource_ids, location_id=location_id
                )
                assert expected == found, f"{location_id} {resource_ids}" + _shows(expected, found)

    def test_appointments_overlapping_orders_by_start_then_id(self) -> None:
        """Results come by start, then id, whatever the insert order or resources."""
        store = self._store(
            *_bare_world(),
            _appointment("apt-b", _at(10), _at(11), resource_ids=[RES_1]),
            _appointment("apt-0", _at(10, 30), _at(10, 45), resource_ids=[RES_2]),
            _appointment("apt-a", _at(10), _at(10, 30), resource_ids=[RES_2]),
            _appointment("apt-c", _at(9), _at(12), resource_ids=[RES_3]),
        )
        expected = ["apt-c", "apt-a", "apt-b", "apt-0"]

        with store.read() as reader:
            for resource_ids in (None, [RES_1, RES_2, RES_3], [RES_3, RES_2, RES_1]):
                found = _overlapping(reader, _at(8), _at(13), resource_ids=resource_ids)
                assert expected == found, f"{resource_ids}" + _shows(expected, found)

    def test_appointments_overlapping_includes_every_status(self) -> None:
        """Appointments are returned in any status, cancelled and rescheduled included."""
        appointments = [
            _appointment(f"apt-{status.value}", _at(10), _at(11), status=status)
            for status in AppointmentStatus
        ]
        store = self._store(*_bare_world(), *appointments)
        expected = sorted(appointment.id for appointment in appointments)

        with store.read() as reader:
            for resource_ids in (None, [RES_1]):
                found = _overlapping(reader, _at(9), _at(12), resource_ids=resource_ids)
                assert expected == found, f"{resource_ids}" + _shows(expected, found)

    def test_moved_appointment_is_found_at_its_new_time_only(self) -> None:
        """An update moving an appointment in time, resource or location moves it in every query."""
        original = _appointment("apt", _at(10), _at(11), resource_ids=[RES_1])
        store = self._store(*_bare_world(), original)
        moved = attrs.evolve(original, start=_at(14), end=_at(15), resource_ids=(RES_2,))
        cases: list[tuple[datetime, list[str] | None, list[str]]] = [
            (_at(10), None, []),
            (_at(10), [RES_1], []),
            (_at(10), [RES_2], []),
            (_at(14), [RES_1], []),
            (_at(14), [RES_2], ["apt"]),
            (_at(14), None, ["apt"]),
        ]

        with store.transaction() as tx:
            tx.update(moved)
        with store.read() as reader:
            for start, resource_ids, expected in cases:
                found = _overlapping(
                    reader, start, start + timedelta(hours=1), resource_ids=resource_ids
                )
                assert expected == found, f"{start} {resource_ids}" + _shows(expected, found)

        with store.transaction() as tx:
            tx.update(
                _appointment("apt", _at(14), _at(15), resource_ids=[RES_4], location_id=LOC_A2)
            )
        with store.read() as reader:
            at_a1 = _overlapping(reader, _at(9), _at(18))
            at_a2 = _overlapping(reader, _at(9), _at(18), location_id=LOC_A2)
        assert ([], ["apt"]) == (at_a1, at_a2), _shows(([], ["apt"]), (at_a1, at_a2))

    def test_deleted_appointment_is_not_returned(self) -> None:
        """A deleted appointment leaves every overlap query."""
        store = self._store(
            *_bare_world(),
            _appointment("apt-gone", _at(10), _at(11), resource_ids=[RES_1, RES_2]),
            _appointment("apt-kept", _at(10), _at(11), resource_ids=[RES_1]),
        )

        with store.transaction() as tx:
            tx.delete(Appointment, "apt-gone")

        with store.read() as reader:
            for resource_ids in (None, [RES_1], [RES_2]):
                found = _overlapping(reader, _at(9), _at(12), resource_ids=resource_ids)
                expected = [] if resource_ids == [RES_2] else ["apt-kept"]
                assert expected == found, f"{resource_ids}" + _shows(expected, found)

    def test_long_appointment_is_found_from_inside(self) -> None:
        """An appointment spanning days overlaps a short range far from its start."""
        long = _appointment("apt-long", _at(0, day=date(2026, 3, 8)), _at(0, day=date(2026, 3, 12)))
        store = self._store(*_bare_world(), long, _appointment("apt-short", _at(10), _at(10, 15)))

        with store.read() as reader:
            for resource_ids in (None, [RES_1]):
                found = _overlapping(reader, _at(10, 30), _at(11), resource_ids=resource_ids)
                assert ["apt-long"] == found, f"{resource_ids}" + _shows(["apt-long"], found)
        with store.transaction() as tx:
            tx.delete(Appointment, "apt-long")
        with store.read() as reader:
            found = _overlapping(reader, _at(10, 10), _at(11), resource_ids=[RES_1])
        assert ["apt-short"] == found, _shows(["apt-short"], found)

    def test_appointments_overlapping_compares_instants_across_zones(self) -> None:
        """Range bounds in another UTC offset select by instant, not by wall time."""
        store = self._store(*_bare_world(), _appointment("apt", _at(10), _at(11)))
        plus_one = timezone(timedelta(hours=1))

        with store.read() as reader:
            inside = _overlapping(
                reader,
                datetime(2026, 3, 10, 11, 30, tzinfo=plus_one),
                datetime(2026, 3, 10, 12, 30, tzinfo=plus_one),
            )
            touching = _overlapping(
                reader,
                datetime(2026, 3, 10, 12, 0, tzinfo=plus_one),
                datetime(2026, 3, 10, 13, 0, tzinfo=plus_one),
            )
        assert (["apt"], []) == (inside, touching), _shows((["apt"], []), (inside, touching))
