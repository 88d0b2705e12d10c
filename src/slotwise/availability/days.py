"""
Day availability (decision 14): whether a date has a slot, whether it is closed (decision 41:
only when no candidate has open time), its booking count (records, decision 8a) and limit, and
the main reason of a date without slots.
"""

from __future__ import annotations

from datetime import date

from ._minutes import (
    _PRECEDENCE,
    REASON_TEXTS,
    _intersect,
)
from .labels import _Labels
from .records import (
    _DayRecord,
    _Resource,
)
from .results import (
    Day,
    Reason,
)
from .roundrobin import _Offers


class _Days(_Offers, _Labels):
    """Day availability (decisions 14 and 41)."""

    def day(self, day: date) -> Day:
        """Return the day-availability element of one date (decision 14)."""
        record = self.day_record(day)
        available = bool(self.day_offers(record))
        # Decision 8a: appointment records, so a booking of several candidates counts once.
        booked: set[str] = set()
        for res in self.candidates:
            self._daily(res, day)
            booked.update(res.daily_ids.get(day, ()))
        count = len(booked)
        limit = 0
        for res in self.candidates:
            if self.service.daily_booking_limit_count:
                limit += self.service.daily_booking_limit_count
            elif record.search:
                limit += sum(self._profile_day(record, res)[2])
        reason: str | None = None
        code: Reason | None = None
        # Decision 41: a day is closed only when no candidate has open time on it (a resource
        # that ignores business hours opens a closed business day).
        closed = record.closed and not (
            available or any(self._opens(record, res) for res in self.candidates)
        )
        if record.holiday is not None and closed:
            code, reason = Reason.HOLIDAY, record.holiday.name or REASON_TEXTS[Reason.HOLIDAY]
        elif closed:
            code, reason = Reason.CLOSED, REASON_TEXTS[Reason.CLOSED]
        elif not available:
            code, reason = self._main_reason(record)
        return Day(
            date=day,
            available=available,
            closed=closed,
            reason=reason,
            reason_code=code,
            booking_count=count,
            booking_limit=limit,
        )

    def _opens(self, record: _DayRecord, res: _Resource) -> bool:
        """Tell whether R has open time on the date (decision 5), booked or not."""
        return bool(record.search) and bool(self._profile_day(record, res)[0])

    def _main_reason(self, record: _DayRecord) -> tuple[Reason | None, str | None]:
        """Return the cause covering most of an open day's business hours without slots."""
        minutes: dict[Reason, int] = {}
        texts: dict[Reason, tuple[int, str]] = {}
        for res in self.candidates:
            for start, end, label in self.labels(record, res):
                if label.reason is Reason.CLOSED:
                    continue
                for low, high in _intersect([(start, end)], record.business):
                    minutes[label.reason] = minutes.get(label.reason, 0) + high - low
                    if high - low > texts.get(label.reason, (0, ""))[0]:
                        texts[label.reason] = (high - low, label.text)
        if not minutes:
            return None, None
        best = max(_PRECEDENCE, key=lambda code: (minutes.get(code, 0), -_PRECEDENCE.index(code)))
        return best, texts[best][1]
