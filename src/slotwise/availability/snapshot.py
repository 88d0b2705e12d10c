"""
Everything one availability query needs, read from a store once.

The calculator is a pure function of (snapshot, query, now): it never reads a store or a clock.
:func:`read_snapshot` is the one place where the store is read for a query; it takes a
:class:`~slotwise.storage.protocol.Reader` and records whose tenant was already checked.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Mapping, Sequence
from datetime import date, datetime, timedelta
from types import MappingProxyType
from typing import Any, Final

import attrs

from slotwise._time import MINUTES_PER_DAY, cached_wall_to_instant, zone
from slotwise.errors import InvalidReference, NotFound
from slotwise.model import (
    Allocation,
    Appointment,
    Block,
    Calendar,
    Company,
    Location,
    LocationSettings,
    Resource,
    Service,
    ServiceScope,
)
from slotwise.model._trusted import trusted_constructor
from slotwise.storage.batched import appointments_occupying, last_read, windows_touching
from slotwise.storage.configuration import CachedReader, Configuration
from slotwise.storage.protocol import Reader

from .busy import BusyIntervals, BusyTimeProvider, fetch_busy_time
from .query import AvailabilityQuery

__all__ = [
    "Snapshot",
    "appointment_range",
    "candidate_resources",
    "read_snapshot",
    "searched_dates",
    "with_busy",
]

# The longest padding an appointment may carry (Service.padding is at most 1440 minutes): how far
# a day's slots, and the appointments around them, reach across the day's edges.
_LONGEST_PADDING: Final = timedelta(days=1)


def _frozen_mapping(value: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return MappingProxyType(dict(value or {}))


def _resources(value: Iterable[Resource]) -> tuple[Resource, ...]:
    return tuple(value)


def _blocks(value: Iterable[Block]) -> tuple[Block, ...]:
    return tuple(value)


def _allocations(value: Iterable[Allocation]) -> tuple[Allocation, ...]:
    return tuple(value)


def _appointments(value: Iterable[Appointment]) -> tuple[Appointment, ...]:
    return tuple(value)


def _default_settings(snapshot: Snapshot) -> LocationSettings:
    return snapshot.location.settings


@attrs.frozen(kw_only=True)
class Snapshot:
    """
    The records one availability query reads, as they were at one consistent moment.

    ``resources`` are the candidate resources (the calculator filters them again: deleted
    resources, resources of another location or not taking the service are never offered).
    ``blocks`` and ``allocations`` are those of the calendar, the service and the candidates whose
    date range touches the searched dates (deleted blocks may be included; they are ignored).
    ``appointments`` are those of the candidates overlapping the searched days (padded by a day),
    in any status: the calculator decides which are active at ``now`` (decision 8).
    ``paddings`` gives the padding of the services of appointments booked for *another* service
    (an appointment occupies ``[start, end + its service's padding)``, decision 7; unknown
    services pad 0). ``busy`` holds external busy intervals by resource id (aware UTC pairs).
    ``settings`` defaults to the location's own settings. ``configuration`` is the cached
    configuration every one of the records was read from: only ``read_snapshot`` sets it
    (decision 49), and a copy made with ``attrs.evolve`` drops it (use :func:`with_busy` to add
    busy time), so the calculator keeps what it derives from those records alone with that
    configuration, for the next query of that version, and never for records a caller changed.

    .. versionadded:: 0.1
    """

    company: Company
    location: Location
    calendar: Calendar
    service: Service
    resources: tuple[Resource, ...] = attrs.field(converter=_resources)
    settings: LocationSettings = attrs.field(
        default=attrs.Factory(_default_settings, takes_self=True)
    )
    blocks: tuple[Block, ...] = attrs.field(default=(), converter=_blocks)
    allocations: tuple[Allocation, ...] = attrs.field(default=(), converter=_allocations)
    appointments: tuple[Appointment, ...] = attrs.field(default=(), converter=_appointments)
    paddings: Mapping[str, int] = attrs.field(factory=dict, converter=_frozen_mapping, hash=False)
    busy: Mapping[str, BusyIntervals] = attrs.field(
        factory=dict, converter=_frozen_mapping, hash=False
    )
    configuration: Configuration | None = attrs.field(
        default=None, init=False, eq=False, repr=False
    )


def _occupying(
    appointments: list[Appointment], since: datetime, service: Service, paddings: Mapping[str, int]
) -> list[Appointment]:
    """Return the appointments whose occupied time (end plus padding) ends after *since*."""
    own = timedelta(minutes=service.padding)
    kept = []
    for appointment in appointments:
        minutes = paddings.get(appointment.service_id)
        padding = own if minutes is None else timedelta(minutes=minutes)
        if appointment.end + padding > since:
            kept.append(appointment)
    return kept


def _held_configuration(reader: Reader, records: Sequence[Any]) -> Configuration | None:
    """
    Return the cached configuration *reader* answers from when each of *records* is its own
    (not one the caller read elsewhere, or changed), else ``None``.
    """
    if not isinstance(reader, CachedReader):
        return None
    configuration = reader.configuration
    held = configuration.by_id.get
    # One pass in C (zip, map and all), not a Python loop: every query asks it of 4+ records.
    keys = zip(map(type, records), map(_ID, records), strict=True)
    if all(map(operator.is_, map(held, keys), records)):
        return configuration
    return None


def searched_dates(query: AvailabilityQuery) -> tuple[date, date]:
    """
    Return the first and last location dates a query looks at.

    That is ``start_date``..``end_date``, extended to ``start_date + day_availability - 1`` when
    the query asks for more days of day availability than its date range holds (spec rule 3).
    """
    last = query.end_date
    if query.day_availability is not None:
        last = max(last, query.start_date + timedelta(days=query.day_availability - 1))
    return query.start_date, last


_SERVICE_ID: Final = operator.attrgetter("service_id")
_ID: Final = operator.attrgetter("id")


def appointment_range(location: Location, first: date, last: date) -> tuple[datetime, datetime]:
    """Return the instants between which appointments (and busy time) matter for the dates."""
    tz = zone(location.timezone)
    # Remembered: every query of a day asks again for the same two wall times (and a query
    # converts them twice: its read, then the busy time), a few microseconds each.
    start = cached_wall_to_instant(first, 0, tz, edge="start")
    end = cached_wall_to_instant(last, MINUTES_PER_DAY, tz, edge="end")
    return start - _LONGEST_PADDING, end + _LONGEST_PADDING


def candidate_resources(
    reader: Reader, query: AvailabilityQuery, *, location: Location, service: Service
) -> list[Resource]:
    """
    Return the resources a query without named resources may offer, ordered by sort key then id.

    Resources of the location that are not deleted, take the service (decision 13: no linked
    services means every service) and, with ``resource_group_id``, belong to that group.
    """
    found = [
        resource
        for resource in reader.find(
            Resource, company_id=location.company_id, location_id=location.id
        )
        if resource.takes_service(service.id)
        and (query.resource_group_id is None or resource.group_id == query.resource_group_id)
    ]
    found.sort(key=lambda resource: (resource.options.sort_key, resource.id))
    return found


def read_snapshot(
    reader: Reader,
    query: AvailabilityQuery,
    *,
    location: Location,
    settings: LocationSettings,
    service: Service,
    named_resources: Sequence[Resource] = (),
    busy_provider: BusyTimeProvider | None = None,
    exclude_appointment_id: str | None = None,
    judged_between: tuple[datetime, datetime] | None = None,
    ends_view: bool = False,
) -> Snapshot:
    """
    Read everything *query* needs at *location* for *service*.

    The caller has already checked that the principal may use *location*, *service* and each of
    *named_resources* (the resources the query names, in the query's order). The reads are
    range reads: blocks and allocations touching the searched dates, appointments overlapping the
    searched days; their cost does not grow with history outside the range.

    Args:
        reader: one consistent view of the store.
        query: the availability query.
        location: the location searched.
        settings: the settings in force at *location* (its own or the company's).
        service: the service searched.
        named_resources: the resources the query names; without any, every resource of the
            location taking the service is a candidate.
        busy_provider: when given, asked for the external busy time of the candidates. Host
            code that holds a store lock while reading should leave it out and call
            :func:`~slotwise.availability.busy.fetch_busy_time` after the read instead.
        exclude_appointment_id: an appointment left out of the snapshot (a reschedule does not
            count the appointment being moved against itself, decision 23).
        judged_between: read only the appointments whose occupied time (end plus padding)
            meets this instant range, instead of those of the searched days plus a day either
            side. For a caller that judges slots occupying only that range and needs no
            whole-day totals (daily limits, round robin load): the booking check.
        ends_view: the read is the last thing the caller does with *reader*, inside
            :func:`~slotwise.storage.replicas.lagging_read`: the appointment read is then
            announced as the view's last (:func:`~slotwise.storage.batched.last_read`), so a
            store may end the view with it. The company's services are read first, for the
            paddings (cheap where *reader* answers them from a configuration cache).

    Returns:
        The snapshot.

    Raises:
        InvalidReference: when the service is not offered at *location*, or a named resource
            works at another location.
        NotFound: when the location's company or primary calendar is missing.
    """
    if service.location_id != location.id and service.scope is not ServiceScope.COMPANY:
        raise InvalidReference(
            f"service {service.id!r} is not offered at location {location.id!r}",
            field="service_id",
        )
    for resource in named_resources:
        if resource.location_id != location.id:
            raise InvalidReference(
                f"resource {resource.id!r} does not work at location {location.id!r}",
                field="resource_id",
            )
    company = reader.get(Company, location.company_id)
    if company is None:
        raise NotFound(kind="Company", record_id=location.company_id)
    calendar_id = location.primary_calendar_id or ""
    calendar = reader.get(Calendar, calendar_id)
    if calendar is None:
        raise NotFound(kind="Calendar", record_id=calendar_id)
    if named_resources:
        resources = list(named_resources)
    else:
        resources = candidate_resources(reader, query, location=location, service=service)
    first, last = query.start_date, query.end_date  # searched_dates(query), inline
    if query.day_availability is not None:
        first, last = searched_dates(query)
    resource_ids = list(map(_ID, resources))
    blocks, allocations = windows_touching(
        reader,
        block_targets=[calendar.id, service.id, *resource_ids],
        allocation_targets=[service.id, *resource_ids],
        first=first,
        last=last,
    )
    appointments: list[Appointment] = []
    services: dict[str, Service] = {}
    if judged_between is not None:
        # The booking check: the slot's own range, not the days' (two wall-time lookups saved).
        start, end = judged_between
    else:
        start, end = appointment_range(location, first, last)
    if resource_ids and judged_between is not None:
        # The store's own occupancy read when it has one (found as batched finds it, without
        # a layer between: a cached reader hands out the store's method).
        read_narrower = getattr(reader, "appointments_occupying", None)
        appointments = (
            appointments_occupying(
                reader,
                company_id=location.company_id,
                location_id=location.id,
                resource_ids=resource_ids,
                start=start,
                end=end,
            )
            if read_narrower is None
            else read_narrower(
                company_id=location.company_id,
                location_id=location.id,
                resource_ids=resource_ids,
                start=start,
                end=end,
            )
        )
    elif resource_ids:
        if ends_view:
            # The paddings' services read before the view's last read (a service missing here,
            # deleted or another company's, is asked for as before: the view then runs again).
            services = {s.id: s for s in reader.find(Service, company_id=location.company_id)}
            last_read(reader)
        appointments = reader.appointments_overlapping(
            location_id=location.id, resource_ids=resource_ids, start=start, end=end
        )
    if exclude_appointment_id is not None:
        appointments = [a for a in appointments if a.id != exclude_appointment_id]
    paddings: dict[str, int] = {}
    if appointments:  # (a booking's free slot often meets none)
        for service_id in set(map(_SERVICE_ID, appointments)).difference((service.id,)):
            other = services.get(service_id) or reader.get(Service, service_id)
            paddings[service_id] = other.padding if other is not None else 0
        if judged_between is not None:
            appointments = _occupying(appointments, judged_between[0], service, paddings)
    busy = (
        fetch_busy_time(busy_provider, resources, start, end) if busy_provider is not None else {}
    )
    # Built as ``Snapshot(...)`` builds it, from the lists and dictionaries made here and held
    # by nothing else (so the read-only views need no copies); the configuration is set once,
    # here only.
    return _trusted_snapshot(
        company=company,
        location=location,
        calendar=calendar,
        service=service,
        resources=tuple(resources),
        settings=settings,
        blocks=tuple(blocks),
        allocations=tuple(allocations),
        appointments=tuple(appointments),
        paddings=MappingProxyType(paddings),
        busy=MappingProxyType(dict(busy)) if busy else _NO_BUSY,
        configuration=_held_configuration(reader, (location, calendar, service, *resources)),
    )


_trusted_snapshot = trusted_constructor(Snapshot)
"""A snapshot from values its converters keep as they are (each slot set once, here only)."""
_NO_BUSY: Final[Mapping[str, BusyIntervals]] = MappingProxyType({})


def with_busy(snapshot: Snapshot, busy: Mapping[str, BusyIntervals]) -> Snapshot:
    """
    Return *snapshot* with the external busy time *busy*, keeping its configuration (busy time
    is not configuration: nothing derived from the configuration depends on it).
    """
    copy = attrs.evolve(snapshot, busy=busy)
    if snapshot.configuration is not None:
        object.__setattr__(copy, "configuration", snapshot.configuration)
    return copy
