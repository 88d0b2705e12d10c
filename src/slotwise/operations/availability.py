"""
Availability operations: available times, day availability, unavailable times and reschedule
availability (spec: Consumer interface: availability).

Each call reads one :class:`~slotwise.availability.snapshot.Snapshot` inside one read that
tolerates lag (:func:`~slotwise.storage.replicas.lagging_read`: a read replica when the store has
one close enough behind, decision 50; the booking re-checks on the primary; a replica failing
during the read has it run again elsewhere), asks the host's busy-time provider outside that
read, takes ``now`` from the clock once and hands all three to the pure calculator.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime, timedelta
from typing import Any, TypedDict, Unpack

import attrs

from slotwise._time import zone
from slotwise.availability.busy import fetch_busy_time
from slotwise.availability.calculator import available_times, day_availability, unavailable_times
from slotwise.availability.explain import explain_time
from slotwise.availability.explanation import Explanation
from slotwise.availability.query import AvailabilityQuery
from slotwise.availability.results import (
    AvailableTimes,
    DayAvailability,
    UnavailableTimes,
)
from slotwise.availability.snapshot import (
    Snapshot,
    appointment_range,
    read_snapshot,
    searched_dates,
    with_busy,
)
from slotwise.errors import InvalidFormat, NaiveDatetime, OutOfRange
from slotwise.model import (
    Appointment,
    Location,
    Resource,
    ResourceGroup,
    RoundRobin,
    Service,
)
from slotwise.model._checks import check_date_bounds
from slotwise.model.catalog import DURATION_MAX
from slotwise.operations._boundary import operations
from slotwise.operations._context import Context
from slotwise.operations.locations import settings_in_force
from slotwise.storage.configuration import confirmed
from slotwise.storage.protocol import Reader
from slotwise.storage.replicas import lagging_read

__all__ = ["AvailabilityFields", "AvailabilityOperations", "RescheduleFields"]


class AvailabilityFields(TypedDict, total=False):
    """The optional fields of an availability query (see ``AvailabilityQuery``)."""

    location_id: str | None
    resource_id: str | None
    resource_ids: Sequence[str] | str
    resource_group_id: str | None
    start_time: int | None
    end_time: int | None
    duration: int | None
    interval: int | None
    tz_offset: int | None
    timezone_name: str | None
    day_availability: int | None
    first_day_available: bool
    round_robin: RoundRobin | None
    skip_time_past_unavailability: bool


class RescheduleFields(AvailabilityFields, total=False):
    """Query fields for reschedule availability; ``service_id`` changes the service searched."""

    service_id: str


_LAST_SEARCH_DATE = date(9998, 12, 31)
"""Searches end with the last year of instants (decision 36); 9999-12-31 only ends repeats."""


def as_date(value: date | datetime | str, *, field: str) -> date:
    """
    Return the date of a path value: a date, a ``datetime`` (its own wall date), or text:
    ``YYYY-MM-DD``, or an ISO 8601 date-time with its UTC offset (the date as written).

    Raises:
        InvalidFormat: for anything else (text after the date that is no time, a bad date).
        NaiveDatetime: for date-time text without an offset (docs/http.md: never guessed).
    """
    if isinstance(value, str):
        value = _parsed_date(value, field=field)
        if isinstance(value, datetime) and value.utcoffset() is None:
            raise NaiveDatetime(field=field)
    if isinstance(value, datetime):
        return _searchable(value.date(), field=field)
    if isinstance(value, date):
        return _searchable(value, field=field)
    raise InvalidFormat(field=field, expected=_DATE_FORMS, value=value)


_DATE_FORMS = "a date ('YYYY-MM-DD') or a date-time with its offset"


def _parsed_date(text: str, *, field: str) -> date | datetime:
    """Read ``YYYY-MM-DD`` as a date and longer ISO 8601 text as a date-time, whole."""
    try:
        if len(text) == 10:
            return date.fromisoformat(text)
        if len(text) > 10 and text[10] in "Tt ":
            return datetime.fromisoformat(text)
    except ValueError:
        pass
    raise InvalidFormat(field=field, expected=_DATE_FORMS, value=text)


def _searchable(value: date, *, field: str) -> date:
    check_date_bounds(value, field=field)
    if value > _LAST_SEARCH_DATE:
        raise OutOfRange(
            field=field, allowed=f"at most {_LAST_SEARCH_DATE}", requested=value.isoformat()
        )
    return value


@operations
@attrs.frozen
class AvailabilityOperations:
    """
    Availability searches for the principal's company.

    Dates are location dates (``start_date``..``end_date`` inclusive); the keyword fields are
    those of :class:`~slotwise.AvailabilityQuery`.

    .. versionadded:: 0.1
    """

    _ctx: Context

    def times(
        self,
        service_id: str,
        start_date: date | datetime | str,
        end_date: date | datetime | str,
        /,
        **fields: Unpack[AvailabilityFields],
    ) -> AvailableTimes:
        """
        Return the bookable times of a service.

        Spec: GET /consumer/v1/availability/{serviceId}/{startDate}/{endDate}.

        Raises:
            NotFound: when the service, location, resource or resource group does not exist.
            Unauthorized: when one of them is not the principal's.
            InvalidReference: when the service is not offered at the location, or a named
                resource works elsewhere.
            ValidationError: for invalid query fields (decision 16 for ``duration``).
        """
        query = self._query(service_id, start_date, end_date, fields)
        snapshot = self._snapshot(query)
        return available_times(snapshot, query, self._ctx.clock.now())

    def days(
        self,
        service_id: str,
        start_date: date | datetime | str,
        end_date: date | datetime | str,
        /,
        **fields: Unpack[AvailabilityFields],
    ) -> DayAvailability:
        """
        Return day-level availability (decision 14).

        Spec: GET /consumer/v1/availability/{serviceId}/{startDate}/{endDate}/days.

        Raises:
            SlotwiseError: the errors of :meth:`times`.
        """
        query = self._query(service_id, start_date, end_date, fields)
        snapshot = self._snapshot(query)
        return day_availability(snapshot, query, self._ctx.clock.now())

    def unavailable(
        self,
        service_id: str,
        start_date: date | datetime | str,
        end_date: date | datetime | str,
        /,
        **fields: Unpack[AvailabilityFields],
    ) -> UnavailableTimes:
        """
        Return the unavailable times of each candidate resource, with reasons (decision 15).

        Spec: GET /consumer/v1/availability/{serviceId}/{startDate}/{endDate}/unavailable.

        Raises:
            SlotwiseError: the errors of :meth:`times`.
        """
        query = self._query(service_id, start_date, end_date, fields)
        snapshot = self._snapshot(query)
        return unavailable_times(snapshot, query, self._ctx.clock.now())

    def explain(
        self,
        service_id: str,
        start: datetime,
        /,
        *,
        resource_id: str | None = None,
        duration: int | None = None,
        location_id: str | None = None,
    ) -> Explanation:
        """
        Tell whether a time is offered for a service, and every reason when it is not.

        One query of the same calculator as :meth:`times` and :meth:`unavailable`, for the
        location dates the candidate ``[start, start + duration)`` touches, round robin
        ``none``: ``offered`` is whether :meth:`times` lists *start* (for *resource_id*, or
        for any resource), ``reasons`` the stretches :meth:`unavailable` reports that overlap
        the candidate, and those of full bookings and external busy time that overlap the
        service's padding after it; a fully booked reason names the appointment that holds the
        time and says when it is padding. A time between the grid's starts has ``off_grid``
        and the ``nearest`` offered starts. Times come back in the location's zone. A slotwise extension (``GET
        /consumer/v1/availability/{serviceId}/explain``), not in the spec.

        Raises:
            SlotwiseError: the errors of :meth:`times`.

        .. versionadded:: 0.1
        """
        ctx = self._ctx

        def read(store_reader: Reader) -> tuple[Service, Location]:
            reader = ctx.configured(store_reader)
            service = ctx.owned(reader, Service, service_id, field="service_id")
            return service, ctx.service_location(reader, service, location_id)

        service, location = lagging_read(ctx.store, read)
        if duration is not None and not 1 <= duration <= DURATION_MAX:
            # Checked before the end is worked out from it (a huge one overflows datetime).
            raise OutOfRange(
                field="duration", allowed=f"between 1 and {DURATION_MAX}", requested=duration
            )
        minutes = duration if duration is not None else service.duration
        end = start + timedelta(minutes=minutes)
        local = zone(location.timezone)
        first, last = start.astimezone(local).date(), end.astimezone(local).date()
        fields: dict[str, Any] = {"location_id": location.id, "round_robin": RoundRobin.NONE}
        if resource_id is not None:
            fields["resource_id"] = resource_id
        if duration is not None:
            fields["duration"] = duration
        try:
            query = self._query(service_id, first, last, fields)
        except OutOfRange as refused:
            if refused.field not in ("start_date", "end_date"):
                raise
            # The dates are the candidate's own (its wall dates at the location): name it.
            raise OutOfRange(
                field="start",
                allowed=f"on a wall date at the location {refused.allowed}",
                requested=start.isoformat(),
            ) from None
        snapshot = self._snapshot(query)
        return explain_time(snapshot, query, ctx.clock.now(), start, resource_id=resource_id)

    def for_reschedule(
        self,
        appointment_id: str,
        start_date: date | datetime | str,
        end_date: date | datetime | str,
        /,
        **overrides: Unpack[RescheduleFields],
    ) -> AvailableTimes:
        """
        Return the times an appointment could move to.

        Spec: GET /consumer/v1/availability/{appointmentId}/reschedule. The search defaults to
        the appointment's service, location and resources (all of them must be free when it
        takes several); any query field may override them (``resource_id=None`` together with
        ``resource_ids=()`` searches every resource). The appointment itself does not count
        against its own time (decision 23).

        Raises:
            NotFound: when the appointment does not exist.
            Unauthorized: when it is not the principal's.
            SlotwiseError: the errors of :meth:`times`.
        """
        ctx = self._ctx

        def read(store_reader: Reader) -> tuple[AvailabilityQuery, Snapshot]:
            reader = ctx.configured(store_reader)
            appointment = ctx.owned(reader, Appointment, appointment_id, field="appointment_id")
            values: dict[str, Any] = {"location_id": appointment.location_id}
            if "resource_id" not in overrides and "resource_ids" not in overrides:
                if len(appointment.resource_ids) == 1:
                    values["resource_id"] = appointment.resource_ids[0]
                elif appointment.resource_ids:
                    values["resource_ids"] = appointment.resource_ids
            values.update(overrides)
            service_id = values.pop("service_id", appointment.service_id)
            query = self._query(service_id, start_date, end_date, values)
            return query, self._read(reader, query, exclude_appointment_id=appointment.id)

        query, snapshot = lagging_read(ctx.store, read)
        snapshot = self._with_busy_time(snapshot, query)
        return available_times(snapshot, query, ctx.clock.now())

    # -- helpers ---------------------------------------------------------------------------

    def _query(
        self,
        service_id: str,
        start_date: date | datetime | str,
        end_date: date | datetime | str,
        fields: AvailabilityFields | dict[str, Any],
    ) -> AvailabilityQuery:
        query = AvailabilityQuery(
            service_id=service_id,
            start_date=as_date(start_date, field="start_date"),
            end_date=as_date(end_date, field="end_date"),
            **fields,
        )
        # Decision 36: one call's work is bounded; a range of centuries is refused, not run.
        most = self._ctx.max_query_days
        if (query.end_date - query.start_date).days + 1 > most:
            raise OutOfRange(
                field="end_date",
                allowed=f"at most {most} days from start_date {query.start_date}",
                requested=query.end_date.isoformat(),
            )
        return query

    def _snapshot(self, query: AvailabilityQuery) -> Snapshot:
        def read(reader: Reader) -> Snapshot:
            # The configuration version rides with the appointment read on a warm cache.
            configured = self._ctx.configured(reader, checked_later=True)
            return confirmed(configured, lambda: self._read(configured, query))

        return self._with_busy_time(lagging_read(self._ctx.store, read), query)

    def _read(
        self, reader: Reader, query: AvailabilityQuery, *, exclude_appointment_id: str | None = None
    ) -> Snapshot:
        """Check the principal may use everything the query names, then read the snapshot."""
        ctx = self._ctx
        service = ctx.owned(reader, Service, query.service_id, field="service_id")
        location = ctx.service_location(reader, service, query.location_id)
        named = [
            ctx.owned(
                reader,
                Resource,
                rid,
                field="resource_id" if rid == query.resource_id else "resource_ids",
            )
            for rid in query.named_resources
        ]
        if query.resource_group_id is not None:
            ctx.owned(reader, ResourceGroup, query.resource_group_id, field="resource_group_id")
        return read_snapshot(
            reader,
            query,
            location=location,
            settings=settings_in_force(reader, location),
            service=service,
            named_resources=named,
            exclude_appointment_id=exclude_appointment_id,
            # Every caller returns the snapshot from its lagging_read: the appointment read is
            # the view's last. Only on a warm configuration cache is the services' read free.
            ends_view=ctx.configuration is not None,
        )

    def _with_busy_time(self, snapshot: Snapshot, query: AvailabilityQuery) -> Snapshot:
        """Ask the host's provider for external busy time, outside the store read."""
        start, end = appointment_range(snapshot.location, *searched_dates(query))
        busy = fetch_busy_time(self._ctx.busy_provider, snapshot.resources, start, end)
        return with_busy(snapshot, busy) if busy else snapshot
