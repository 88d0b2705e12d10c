"""
Unavailable time (decision 15): each minute of a resource's searched day takes the first cause
that applies, merged into contiguous stretches; the rest is free.
"""

from __future__ import annotations

import bisect
import itertools

from ._minutes import (
    _BA,
    _BK,
    _FAR,
    _TP,
    Span,
    _apply,
    _Label,
    _label,
    _Layer,
    _merge,
)
from .open_time import _OpenTime
from .records import (
    _DayRecord,
    _Resource,
)
from .results import (
    Reason,
    UnavailableTime,
)


class _Labels(_OpenTime):
    """Why each minute is not bookable (decision 15), and what is free."""

    def _full_spans(self, record: _DayRecord, res: _Resource) -> list[Span]:
        """Return where R is fully booked on the date: load at or above the limit (BK)."""
        if not res.segment_starts or not record.search:
            return []
        low, high = record.search[0]
        limited = [window for window in record.service_windows if window.limit]
        limited += [window for window in res.allocations.get(record.date, ()) if window.limit]
        found: list[Span] = []
        first = bisect.bisect_right(res.segment_ends, low)
        for k in range(first, len(res.segment_starts)):
            seg_start, seg_end = res.segment_starts[k], res.segment_ends[k]
            if seg_start >= high:
                break
            count, groups = res.segment_counts[k], res.segment_groups[k]
            points = sorted(
                {seg_start, seg_end}
                | {edge for w in limited for edge in (w.start, w.end) if seg_start < edge < seg_end}
            )
            for piece_start, piece_end in itertools.pairwise(points):
                limit = next(
                    (w.limit for w in limited if w.start <= piece_start < w.end),
                    self.default_limit,
                )
                if count >= limit or groups >= (self.max_capacity or limit):
                    found.append((piece_start, piece_end))
        return _merge(found)

    def _all_layers(self, record: _DayRecord, res: _Resource) -> list[_Layer]:
        layers: list[_Layer] = [
            (False, [(-_FAR, self.earliest)], _TP),
            (False, [(self.horizon, _FAR)], _BA),
        ]
        layers += self._open_layers(record, res)
        busy = list(zip(res.busy_starts, res.busy_ends, strict=True))
        if busy:
            layers.append((False, busy, _label(Reason.EXTERNAL_BUSY, "resource", res.id)))
        layers.append((False, self._full_spans(record, res), _BK))
        if self._capped(record, res):
            label = _label(Reason.DAILY_LIMIT, "service", self.service.id)
            layers.append((False, [(-_FAR, _FAR)], label))
        return layers

    def labels(self, record: _DayRecord, res: _Resource) -> list[tuple[int, int, _Label]]:
        """Return R's labelled stretches on the date, sorted, merged per cause."""
        found: list[tuple[int, int, _Label]] = []
        _apply(list(record.search), self._all_layers(record, res), found)
        found.sort(key=lambda item: item[0])
        merged: list[tuple[int, int, _Label]] = []
        for start, end, label in found:
            if merged and merged[-1][1] == start and merged[-1][2] == label:
                merged[-1] = (merged[-1][0], end, label)
            else:
                merged.append((start, end, label))
        return merged

    def free(self, record: _DayRecord, res: _Resource) -> list[Span]:
        """Return R's free (unlabelled) time on the date."""
        return _apply(list(record.search), self._all_layers(record, res), None)

    def unavailable_pieces(
        self, start: int, end: int, label: _Label, resource_id: str
    ) -> list[tuple[int, UnavailableTime]]:
        """Return one stretch as unavailable times (with their start minutes), split at midnight."""
        pieces: list[tuple[int, UnavailableTime]] = []
        output = self.output
        while start < end:
            begin, wall_date, from_time, _ = output.wall(start)
            midnight = output.next_midnight(start)
            cut = min(end, midnight)
            to_time = 2400 if cut == midnight else output.wall(cut)[2]
            pieces.append(
                (
                    start,
                    UnavailableTime(
                        date=wall_date,
                        from_time=from_time,
                        to_time=to_time,
                        start=begin,
                        end=output.instant(cut),
                        reason=label.text,
                        reason_code=label.reason,
                        entity_type=label.entity_type,
                        entity_id=label.entity_id,
                        resource_id=resource_id,
                    ),
                )
            )
            start = cut
        return pieces
