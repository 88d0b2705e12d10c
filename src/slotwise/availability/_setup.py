"""
Setting up one query: the search's limits and grid, the service's and calendar's windows by date,
the candidate resources with their windows, and their appointments as occupancy (decision 8a: an
appointment of another service leaves no room).
"""

from __future__ import annotations

import bisect
import functools
import operator
from collections.abc import Mapping
from datetime import date, datetime, timedelta
from typing import Any, Final

from dateutil.relativedelta import relativedelta

from slotwise._time import (
    MINUTES_PER_DAY,
    hhmm_to_minutes,
    to_utc,
    zone,
)
from slotwise.errors import InconsistentFields, OutOfRange
from slotwise.model import (
    Appointment,
    AppointmentStatus,
    Resource,
    RoundRobin,
    Service,
)

from ._minutes import (
    _ceil_minute,
    _floor_minute,
    _wall,
)
from ._shared import SharedSetup, derive_setup, derive_shape, setup_memo, setup_weight
from .busy import uses_external_calendar
from .output import (
    _Output,
)
from .query import AvailabilityQuery
from .records import (
    _DayRecord,
    _Figures,
    _Offer,
    _Resource,
    _Window,
)
from .results import (
    Slot,
)
from .snapshot import Snapshot

_ID: Final = operator.attrgetter("id")


def effective_duration(service: Service, query: AvailabilityQuery) -> int:
    """
    Return the slot length a query asks for: its ``duration``, else the service's.

    Decision 16: a duration is accepted only for a service with ``duration_select``, between
    ``duration_min`` and ``duration_max`` inclusive, on a ``duration_interval`` step from
    ``duration_min`` (``duration_min`` itself is the step when the service sets no interval,
    since ``duration_max`` must be a multiple of it).

    Raises:
        InconsistentFields: when the service does not let customers choose the duration, or the
            duration is off the step (``field="duration"``).
        OutOfRange: when it lies outside ``[duration_min, duration_max]``.
    """
    requested = query.duration
    if requested is None:
        return service.duration
    if not service.duration_select:
        raise InconsistentFields(
            f"duration may be given only for services with duration_select; service "
            f"{service.id!r} has a fixed duration of {service.duration} minutes",
            field="duration",
        )
    low = service.duration_min or service.duration
    high = service.duration_max or service.duration
    if not low <= requested <= high:
        raise OutOfRange(
            field="duration", allowed=f"between {low} and {high} minutes", requested=requested
        )
    step = service.duration_interval or low
    if (requested - low) % step:
        raise InconsistentFields(
            f"duration must be {low} minutes plus a multiple of {step} minutes "
            f"(duration_interval), got {requested}",
            field="duration",
        )
    return requested


def slot_step(snapshot: Snapshot, query: AvailabilityQuery, duration: int) -> int:
    """
    Return the slot grid step in minutes (decision 6).

    The query's ``interval``, else the service's ``booking_interval``, else the calendar's
    ``interval``, else the duration.
    """
    return (
        query.interval
        or snapshot.service.booking_interval
        or snapshot.calendar.interval
        or duration
    )


class _CalculatorSetup:
    """
    One query's worth of derived data and caches, built per call; what the configuration alone
    decides of it comes from a set-up kept with the cached configuration when there is one
    (``availability._shared``).
    """

    def __init__(self, snapshot: Snapshot, query: AvailabilityQuery, now: datetime) -> None:
        self.snapshot = snapshot
        self.query = query
        now = to_utc(now, field="now")
        service = snapshot.service
        self.service = service
        self.duration = effective_duration(service, query)
        self.step = slot_step(snapshot, query, self.duration)
        self.padding = service.padding
        self.zone_name = snapshot.location.timezone
        self.search_from = hhmm_to_minutes(query.start_time) if query.start_time is not None else 0
        self.search_to = (
            hhmm_to_minutes(query.end_time) if query.end_time is not None else MINUTES_PER_DAY
        )
        self.default_limit = service.booking_limit or snapshot.calendar.bookings_per_slot
        self.max_capacity = service.max_capacity
        self.is_event = service.is_event
        self.daily_limited = bool(
            service.daily_booking_limit_count or service.daily_booking_limit_minutes
        )
        window = service.booking_window or snapshot.settings.booking_window
        earliest = now + timedelta(minutes=window.book_in_advance_mins)
        if window.book_ahead_unit == "months":
            horizon = now + relativedelta(months=window.book_ahead_value)
        else:
            days = window.book_ahead_value * (7 if window.book_ahead_unit == "weeks" else 1)
            horizon = now + timedelta(days=days)
        # A slot may start at t when earliest <= t <= horizon (decision 11: "starting after" the
        # horizon is refused). A minute is labelled TP when it starts before earliest, and BA
        # when no slot starting by the horizon can hold it: from the latest start + duration on,
        # so the minutes of a slot offered at the horizon are never listed unavailable
        # (decision 15).
        self.earliest = _ceil_minute(earliest)
        self.latest = _floor_minute(horizon)
        self.horizon = self.latest + self.duration
        self.now = now
        self.at: int | None = None
        """The one start (minute) a booking check asks about; ``None``: every start."""
        self._offers: dict[tuple[int, date], list[_Offer]] = {}
        self._swept: dict[int, tuple[list[int], list[_Figures]]] = {}
        """Each candidate's bookable starts and figures over the searched dates, by rank."""
        self.holds_cache: dict[str, list[Any]] = {}
        """Each resource's active appointments as ``holders.Hold``, worked out on first use."""
        first, last = query.start_date, query.end_date
        if query.day_availability is not None:
            last = max(last, first + timedelta(days=query.day_availability - 1))
        self.first, self.last = first, last
        self._floors: dict[datetime, int] = {}
        self._ceils: dict[datetime, int] = {}
        """Appointment instants in minutes (start rounded down, end up), each converted once."""
        self.named = query.named_resources
        # kept: the set-up is kept for the next query; else a narrower search is worked out on
        # its own, not cut from a whole day worked out for this query alone.
        shared, self.kept = self._shared(snapshot, query)
        self.calendar_blocks = shared.calendar_blocks
        self.service_blocks = shared.service_blocks
        self.service_windows = shared.service_windows
        self._shared_setup = shared
        # A whole-day search reads and fills the shared set-up; a narrower one keeps its own
        # records, open time and grids, cut from the shared whole days (``_OpenTime``).
        self.whole_day = self.search_from == 0 and self.search_to == MINUTES_PER_DAY
        whole = self.whole_day
        self._day_records = shared.day_records if whole else {}
        self._profile_days = shared.profile_days if whole else {}
        self._grids = shared.grids if whole else {}
        """The grid starts of a run of dates, by (profile, first date, last date)."""
        # The shared candidates holding nothing; _occupancy puts a fresh copy in the place of
        # each that holds something in this query.
        self.candidates = shared.blanks.copy()
        self._occupancy(snapshot)
        # The query's field is typed RoundRobin; a plain code ("none") is accepted too.
        chosen = query.round_robin
        self.round_robin = (
            service.round_robin
            if chosen is None
            else chosen
            if chosen.__class__ is RoundRobin
            else RoundRobin(chosen)
        )
        if self.round_robin is RoundRobin.BALANCED:
            for res in self.candidates:
                if res.held:  # (holding nothing, its load is 0)
                    res.load = self._load(res)
        # The random round robin's seed; repr(query) is worked out only when it is used.
        self._seed: bytes | None = None

    @functools.cached_property
    def named_resource(self) -> Resource | None:
        """The one resource the query names, when it is a candidate (the listing's names)."""
        if len(self.named) == 1:
            for res in self.candidates:
                if res.id == self.named[0]:
                    return res.resource
        return None

    @functools.cached_property
    def output(self) -> _Output:
        """The output zone's conversions (made on first use: the booking check never asks)."""
        return _Output(self.query, self.zone_name)

    def _shared(self, snapshot: Snapshot, query: AvailabilityQuery) -> tuple[SharedSetup, bool]:
        """
        Return what the configuration alone decides of this query (``availability._shared``),
        and whether it is kept with the snapshot's cached configuration (worked out once per
        configuration version) or was worked out for this query alone.
        """
        configuration = snapshot.configuration
        if configuration is None:
            return derive_setup(snapshot, query, self.first, self.last), False
        shape_key = (
            configuration.company_id,
            configuration.version,
            snapshot.service.id,
            snapshot.location.id,
            snapshot.calendar.id,
            self.duration,
            self.step,
            self.first,
            self.last,
        )
        key = (
            *shape_key,
            tuple(map(_ID, snapshot.resources)),
            self.named,
            query.resource_group_id,
        )
        memo = setup_memo(configuration)
        shared = memo.get(key)
        if shared is not None:
            return shared, True
        # Whoever the candidates, the queries of one service, place, grid and dates share the
        # windows, the date records and each kind of resource's open time and grid.
        shape = memo.shape(shape_key, lambda: derive_shape(snapshot, self.first, self.last))
        shared = derive_setup(snapshot, query, self.first, self.last, shape)
        dates = (self.last - self.first).days + 1
        memo.keep(key, shared, setup_weight(len(shared.candidates), dates, self.step))
        return shared, memo.get(key) is shared  # not kept when over the bound

    def _occupancy(self, snapshot: Snapshot) -> None:
        """Give each candidate its appointments and external busy time."""
        candidates = self.candidates
        if snapshot.appointments:
            # (A candidate named twice: its last place, as a dictionary by id keeps it.)
            self._appointments(snapshot, {res.id: place for place, res in enumerate(candidates)})
        if not snapshot.busy:
            return  # (the common case: no external calendar asked)
        for place, res in enumerate(candidates):
            # External busy time counts only for resources with an external calendar.
            busy = snapshot.busy.get(res.id, ()) if uses_external_calendar(res.resource) else ()
            if busy:
                self._filled(place).set_busy(
                    [(_floor_minute(low), _ceil_minute(high)) for low, high in busy]
                )

    def _filled(self, place: int) -> _Resource:
        """Return the candidate at *place*, this query's own copy of it (made on first use)."""
        res = self.candidates[place]
        if res is self._shared_setup.blanks[place]:
            res = self.candidates[place] = res.fresh()
        return res

    def _appointments(self, snapshot: Snapshot, places: dict[str, int]) -> None:
        """Record each candidate's occupancy and own appointments from the active appointments."""
        now = self.now
        initial = AppointmentStatus.INITIAL
        booked, reserved, no_show = (
            AppointmentStatus.BOOKED,
            AppointmentStatus.RESERVED,
            AppointmentStatus.NO_SHOW,
        )
        # Each candidate's list of held appointments, by resource id.
        held_by_id: dict[str, list[Appointment]] = {rid: [] for rid in places}
        get = {rid: held.append for rid, held in held_by_id.items()}.get
        # One pass sorts the active appointments out to their candidates; the minutes are then
        # worked out per resource as columns (_Resource.occupy).
        for appointment in snapshot.appointments:
            status = appointment.status
            if status is not booked and status is not reserved and status is not no_show:
                # Decision 8: an IN hold counts until it expires; CN and RE never count.
                expires = appointment.hold_expires_at
                if status is not initial or (expires is not None and now >= expires):
                    continue
            resource_ids = appointment.resource_ids
            if len(resource_ids) == 1:
                hold = get(resource_ids[0])
                if hold is not None:
                    hold(appointment)
                continue
            for resource_id in dict.fromkeys(resource_ids):
                hold = get(resource_id)
                if hold is not None:
                    hold(appointment)
        service_id, padding, paddings = self.service.id, self.padding, snapshot.paddings
        # Decision 8: a slot's limit is the default unless a window of the date sets one.
        saturated: bool | None = None
        for rid, place in places.items():
            # A resource holding nothing keeps its empty segments (``saturated`` is read only
            # beside a segment).
            held = held_by_id[rid]
            if held:
                res = self._filled(place)
                res.held = held
                if saturated is None:
                    saturated = self.default_limit == 1 and not _limit_above_one(
                        self.service_windows
                    )
                res.occupy(self._floors, self._ceils, service_id, padding, paddings)
                res.set_occupancy(saturated and not _limit_above_one(res.allocations))

    def _load(self, res: _Resource) -> int:
        """Return how many of R's active appointments meet the searched dates (round robin)."""
        range_start = _wall(self.zone_name, self.query.start_date, 0, "start")
        range_end = _wall(self.zone_name, self.query.end_date, MINUTES_PER_DAY, "end")
        floors, ceils = self._floors, self._ceils
        return sum(
            1
            for appointment in res.held
            if floors[appointment.start] < range_end and ceils[appointment.end] > range_start
        )

    def _daily(self, res: _Resource, day: date) -> tuple[int, int]:
        """Return the count and minutes of R's active appointments of the service on *day*."""
        if res.daily is None:
            # Worked out on first use: only daily limits and day availability need it.
            dates = self.dates(self.first, (self.last - self.first).days + 2)
            day_starts = [_wall(self.zone_name, each, 0, "start") for each in dates]
            daily: dict[date, tuple[int, int]] = {}
            for appointment in res.own:
                start = _floor_minute(appointment.start)
                length = appointment.end - appointment.start
                minutes = length.days * MINUTES_PER_DAY + length.seconds // 60
                position = bisect.bisect_right(day_starts, start) - 1
                if 0 <= position < len(dates) - 1:
                    count, total = daily.get(dates[position], (0, 0))
                    daily[dates[position]] = (count + 1, total + minutes)
                    res.daily_ids.setdefault(dates[position], []).append(appointment.id)
            res.daily = daily
        return res.daily.get(day, (0, 0))

    def _padding_of(self, appointment: Appointment) -> int:
        if appointment.service_id == self.service.id:
            return self.padding
        return self.snapshot.paddings.get(appointment.service_id, 0)

    @staticmethod
    def dates(first: date, count: int) -> list[date]:
        """Return *count* consecutive dates from *first*."""
        return [first + timedelta(days=offset) for offset in range(count)]

    def day_record(self, day: date) -> _DayRecord:
        """Return the (cached) data of one location date, narrowed to the searched wall times."""
        record = self._day_records.get(day)
        if record is None:
            record = self.whole_day_record(day)
            if not self.whole_day:
                record = record.narrowed(self.zone_name, self.search_from, self.search_to)
                self._day_records[day] = record
        return record

    def whole_day_record(self, day: date) -> _DayRecord:
        """Return the (shared) data of one location date, searched all day."""
        shared = self._shared_setup.day_records
        record = shared.get(day)
        if record is None:
            record = shared[day] = _DayRecord(self, day)
        return record

    def date_of(self, slot: Slot) -> date:
        """Return the location date a slot belongs to (its start's date in the location zone)."""
        return slot.start.astimezone(zone(self.zone_name)).date()


def _limit_above_one(windows: Mapping[date, list[_Window]]) -> bool:
    """Tell whether one of the dated *windows* sets a booking limit above 1 (0: none set)."""
    return any(window.limit > 1 for each in windows.values() for window in each if window.limit)
