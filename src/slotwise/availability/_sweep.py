"""
One resource's bookable grid starts over a run of dates, in one pass (decisions 7-11).

The grid starts of the run's dates (``records._Grid``: each date's starts on its grid, inside
its open time, concatenated in date order, so ascending) are swept once beside the resource's
occupancy (``records._Resource``: constant-load segments) and external busy intervals, with two
pointers that only move forward. A start is *clear* when nothing lies within the slot's reach
(``duration + padding``) of it: every start from one up to the next obstacle's start less the
reach is clear, so such a run is found by one bisection and copied whole, with its ready-made
figures. Only a start whose reach meets an obstacle is checked on its own: refused inside busy
time, else offered with the peak count and group sum of the segments it meets taken off its
limits. Where every limit is 1 (``_Resource.saturated``), a start refused by a segment refuses
every start up to that segment's end, all skipped by one bisection. The cost is one step per
obstacle and per checked start, plus a copy of each clear run.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence

from ._minutes import _FAR
from .records import _Figures, _Resource

__all__ = ["sweep"]


def sweep(
    starts: Sequence[int],
    limits: Sequence[int],
    clear: Sequence[_Figures],
    ranges: Sequence[tuple[int, int]],
    res: _Resource,
    reach: int,
    max_capacity: int,
) -> tuple[list[int], list[_Figures]]:
    """
    Return R's bookable starts among ``starts[low:high]`` for each range, and their figures.

    *limits* holds each start's booking limit and *clear* its figures when nothing is booked,
    ``(limit, limit, capacity, capacity)``; *ranges* ascend. Figures are ``(allowable bookings,
    available bookings, allowable capacity, available capacity)``.
    """
    found: list[int] = []
    figures: list[_Figures] = []
    seg_starts, seg_ends = res.segment_starts, res.segment_ends
    busy_starts, busy_ends = res.busy_starts, res.busy_ends
    if not seg_starts and not busy_starts:
        # Nothing occupies R (a booking's free slot, an idle resource): every start is clear.
        for low, high in ranges:
            found += starts[low:high]
            figures += clear[low:high]
        return found, figures
    seg_counts, seg_groups = res.segment_counts, res.segment_groups
    segments, busies = len(seg_starts), len(busy_starts)
    bisect_left, bisect_right = bisect.bisect_left, bisect.bisect_right
    saturated = res.saturated
    append, note = found.append, figures.append
    for low, high in ranges:
        if low >= high:
            continue
        # j: the first segment that ends after the start (b: the same for busy intervals);
        # they move on only when a start reaches move_at, the first of their ends. Until then
        # a start is clear when it is at most clear_until: its reach ends by the nearest of
        # their starts.
        j = bisect_right(seg_ends, starts[low]) if segments else 0
        b = bisect_right(busy_ends, starts[low]) if busies else 0
        move_at = clear_until = -_FAR
        position = low
        while position < high:
            start = starts[position]
            if start >= move_at:
                while j < segments and seg_ends[j] <= start:
                    j += 1
                while b < busies and busy_ends[b] <= start:
                    b += 1
                if j < segments:
                    nearest = seg_starts[j]
                    move_at = seg_ends[j]
                else:
                    nearest = move_at = _FAR
                if b < busies:
                    nearest = min(nearest, busy_starts[b])
                    move_at = min(move_at, busy_ends[b])
                clear_until = nearest - reach
            if start <= clear_until:
                # Clear up to the start whose reach ends at the nearest obstacle.
                stop = bisect_right(starts, clear_until, position + 1, high)
                found += starts[position:stop]
                figures += clear[position:stop]
                position = stop
                continue
            allowable = limits[position]
            position += 1
            end = start + reach
            if b < busies and busy_starts[b] < end:
                continue
            # Segment j meets the reach: the peak is at least its count.
            if seg_counts[j] >= allowable:
                if saturated and position < high and starts[position] < seg_ends[j]:
                    # Every limit is 1: each start before the segment's end meets it too.
                    position = bisect_left(starts, seg_ends[j], position + 1, high)
                continue
            peak_count = peak_groups = 0
            k = j
            while k < segments and seg_starts[k] < end:
                if seg_counts[k] > peak_count:
                    peak_count = seg_counts[k]
                if seg_groups[k] > peak_groups:
                    peak_groups = seg_groups[k]
                k += 1
            available = allowable - peak_count
            if available < 1:
                continue
            capacity = max_capacity or allowable
            if capacity - peak_groups < 1:
                continue
            append(start)
            note((allowable, available, capacity, capacity - peak_groups))
    return found, figures
