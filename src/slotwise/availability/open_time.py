"""
Open time (decision 5): business, service and resource hours, allocations, holidays and blocks
of a resource on a date; the grid of slot starts that fit it (decision 6) with their booking
limits (decision 8); and daily limits (decision 10).
"""

from __future__ import annotations

import bisect
from datetime import date, timedelta

from ._minutes import (
    REASON_TEXTS,
    Span,
    _apply,
    _intersect,
    _Label,
    _label,
    _Layer,
    _merge,
    _window_spans,
)
from ._setup import _CalculatorSetup
from .records import (
    _DayRecord,
    _Grid,
    _Resource,
    _Window,
)
from .results import (
    Reason,
)


class _OpenTime(_CalculatorSetup):
    """Open time and the slot grid of a resource on a date (decisions 5, 6, 8 and 10)."""

    def _resource_hours(self, record: _DayRecord, res: _Resource) -> list[Span]:
        weekly = res.resource.weekly_hours
        if res.zone_name == self.zone_name:
            return _window_spans(res.zone_name, record.date, weekly.for_date(record.date))
        # The resource's own dates that can overlap this location date (offsets differ by at
        # most 26 hours), each read as wall time in the resource's zone (decision 1).
        spans: list[Span] = []
        for offset in (-2, -1, 0, 1, 2):
            day = record.date + timedelta(days=offset)
            spans.extend(_window_spans(res.zone_name, day, weekly.for_date(day)))
        return _merge(spans)

    def _open_layers(self, record: _DayRecord, res: _Resource) -> list[_Layer]:
        """Return the layers HO..RB of decision 15, in label order."""
        location = self.snapshot.location
        layers: list[_Layer] = []
        if record.holiday is not None:
            text = record.holiday.name or REASON_TEXTS[Reason.HOLIDAY]
            label = _Label(Reason.HOLIDAY, text, "location", location.id)
            layers.append((False, [(record.start, record.end)], label))
        if not res.ignore_business_hours:
            layers.append((True, record.business, _label(Reason.CLOSED, "location", location.id)))
        layers.append(
            (
                True,
                record.service_hours,
                _label(Reason.OUTSIDE_SERVICE_HOURS, "service", self.service.id),
            )
        )
        if self.is_event:
            spans = _merge((window.start, window.end) for window in record.service_windows)
            layers.append((True, spans, _label(Reason.NO_ALLOCATION, "service", self.service.id)))
        if res.recurring:
            layers.append(
                (
                    True,
                    self._resource_hours(record, res),
                    _label(Reason.OUTSIDE_RESOURCE_HOURS, "resource", res.id),
                )
            )
        else:
            windows = res.allocations.get(record.date, ())
            spans = _merge((window.start, window.end) for window in windows)
            layers.append((True, spans, _label(Reason.NO_ALLOCATION, "resource", res.id)))
        layers.extend(record.calendar_blocks)
        layers.extend(record.service_blocks)
        layers.extend(res.blocks.get(record.date, ()))
        return layers

    def _grid_windows(self, record: _DayRecord, res: _Resource) -> list[Span]:
        """Return the windows whose starts anchor the slot grid (decision 6)."""
        if self.is_event or not res.recurring:
            windows: list[_Window] = []
            if self.is_event:
                windows += record.service_windows
            if not res.recurring:
                windows += res.allocations.get(record.date, ())
            return [(window.start, window.end) for window in windows]
        if res.ignore_business_hours:
            return record.service_hours
        return _intersect(record.business, record.service_hours)

    def _allowable(self, record: _DayRecord, res: _Resource, start: int) -> int:
        """Return the booking limit of the slot at *start* (decision 8)."""
        end = start + self.duration
        for window in record.service_windows:
            if window.limit and window.start <= start and end <= window.end:
                return window.limit
        for window in res.allocations.get(record.date, ()):
            if window.limit and window.start <= start and end <= window.end:
                return window.limit
        return self.default_limit

    def _profile_day(
        self, record: _DayRecord, res: _Resource
    ) -> tuple[list[Span], list[int], list[int]]:
        """
        Return R's open time on the date and the grid starts that fit it, with their limits.

        Resources with the same zone, weekly hours and flags and no windows of their own share
        the result, so a day is worked out once per kind of resource, not once per resource.
        A search narrower than the day cuts it from the whole day's: the whole day's open time
        is the layers applied to the day, a narrower search only intersects it with one more
        span, and the grid is anchored at the windows, not at the search (decision 6), so the
        narrower starts are the whole day's that fit the search. The whole day's are shared by
        the queries of one configuration version (``availability._shared``); without a kept
        set-up the narrower search is worked out on its own.
        """
        key = (res.profile, record.date)
        cached = self._profile_days.get(key)
        if cached is not None:
            return cached
        if self.whole_day or not self.kept:
            cached = self._profile_days[key] = self._open_day(record, res)
            return cached
        whole_days = self._shared_setup.profile_days
        whole = whole_days.get(key)
        if whole is None:
            whole = whole_days[key] = self._open_day(self.whole_day_record(record.date), res)
        open_spans, starts, limits = whole
        cut: tuple[list[Span], list[int], list[int]] = ([], [], [])
        if record.search:
            search_start, search_end = record.search[0]
            low = bisect.bisect_left(starts, search_start)
            high = bisect.bisect_right(starts, search_end - self.duration, low)
            cut = (_intersect(open_spans, record.search), starts[low:high], limits[low:high])
        self._profile_days[key] = cut
        return cut

    def _open_day(
        self, record: _DayRecord, res: _Resource
    ) -> tuple[list[Span], list[int], list[int]]:
        """Work out R's open time in the record's search, its grid starts and their limits."""
        open_spans = _apply(list(record.search), self._open_layers(record, res), None)
        starts: list[int] = []
        if open_spans:
            duration, step = self.duration, self.step
            windows = self._grid_windows(record, res)
            for anchor, window_end in windows:
                for low, high in open_spans:
                    if high <= anchor or low >= window_end:
                        continue
                    first = max(anchor, low)
                    start = anchor + -((anchor - first) // step) * step
                    last = min(window_end - 1, high - duration)
                    while start <= last:
                        starts.append(start)
                        start += step
            if len(windows) > 1:
                starts = sorted(set(starts))
        if any(window.limit for window in record.service_windows) or any(
            window.limit for window in res.allocations.get(record.date, ())
        ):
            limits = [self._allowable(record, res, start) for start in starts]
        else:
            # No window of the date sets a limit: every slot takes the default (decision 8).
            limits = [self.default_limit] * len(starts)
        return open_spans, starts, limits

    def _grid(self, res: _Resource, first: date, last: date) -> _Grid:
        """
        Return the grid starts of the dates ``first..last`` that fit R's open time, in one list.

        A date's starts lie in its own day (``[D 00:00, D+1 00:00)`` in the location's zone),
        and consecutive days meet without overlapping, even across a DST change, so the dates'
        starts, taken in date order, ascend. Shared by the resources of one profile.
        """
        key = (res.profile, first, last)
        cached = self._grids.get(key)
        if cached is not None:
            return cached
        starts: list[int] = []
        limits: list[int] = []
        dates: list[tuple[date, int, int]] = []
        for day in self.dates(first, (last - first).days + 1):
            record = self.day_record(day)
            low = len(starts)
            if record.search:
                _, day_starts, day_limits = self._profile_day(record, res)
                starts += day_starts
                limits += day_limits
            dates.append((day, low, len(starts)))
        max_capacity = self.max_capacity
        figures = {
            limit: (limit, limit, max_capacity or limit, max_capacity or limit)
            for limit in set(limits)
        }
        clear = list(map(figures.__getitem__, limits))
        cached = self._grids[key] = _Grid(starts, limits, clear, dates)
        return cached

    def _capped(self, record: _DayRecord, res: _Resource) -> bool:
        """Tell whether R's daily limit for the service is reached on the date (decision 10)."""
        service = self.service
        if not service.daily_booking_limit_count and not service.daily_booking_limit_minutes:
            return False
        totals = self._daily(res, record.date)
        count_limit = service.daily_booking_limit_count
        minutes_limit = service.daily_booking_limit_minutes
        if count_limit and totals[0] >= count_limit:
            return True
        return bool(minutes_limit) and totals[1] + self.duration > minutes_limit
