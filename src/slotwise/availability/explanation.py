"""
The answer of ``workspace.availability.explain``: whether one time is offered, and why not.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

import attrs

from slotwise.tables import Tabular

from .results import Named, UnavailableTime

__all__ = ["Explanation"]


@attrs.frozen(kw_only=True, repr=False)
class Explanation(Named, Tabular):
    """
    Why one candidate time is or is not offered (``workspace.availability.explain``).

    ``offered`` tells whether the calculator lists the time (for ``resource_id``, or for any
    resource when none is named). ``reasons`` are the unavailable stretches (decision 15) of
    the candidate resources that overlap ``[start, end)``, and the ``BK`` and ``EB`` ones that
    overlap the service's padding after it (``[end, end + padding)``, which a slot needs free
    too): each with its code, its text (a block's reason, "Fully booked", ...), the entity
    behind it and the resource. A ``BK`` reason names the appointment that holds the time
    (``entity_type`` ``"appointment"``) and says when that time is padding: the padding after
    that appointment, or this service's padding running into it. When the time is not offered
    and nothing overlaps, the time is between the slot grid's starts: ``off_grid`` is true and
    ``nearest`` holds the offered starts just before and after it. ``start``, ``end`` and
    ``nearest`` are in the location's zone (decision 43).

    .. versionadded:: 0.1
    """

    service_id: str
    start: datetime
    end: datetime
    resource_id: str | None
    offered: bool
    reasons: tuple[UnavailableTime, ...]
    off_grid: bool = False
    nearest: tuple[datetime, ...] = ()
    object: str = "explanation"
    _names: Mapping[str, str] = attrs.field(factory=dict, eq=False, alias="names")
    """Names by id: the candidate resources, the service and the location (for people, not the wire)."""
    _row_class = UnavailableTime
    _extra_columns = ("resource_name", "entity_name")

    def _extra(self, row: dict[str, Any]) -> None:
        row["resource_name"] = self.name_of(row["resource_id"])
        row["entity_name"] = (
            self.name_of(row["entity_id"]) if row["entity_type"] != "block" else row["reason"]
        )

    def _zone(self) -> str:
        return str(self.start.tzinfo)

    @property
    def summary(self) -> list[str]:
        """
        Return one line per reason, or why not, in the location's wall time.

        ``RB Lunch 12:00-13:00 (Ana)``; ``BK Padding after an appointment (15 min)
        11:00-11:15 (Ana, appointment 7f3c…)``.
        """
        if self.offered:
            return ["offered"]
        lines = []
        for reason in self.reasons:
            who = [self.name_of(reason.resource_id) or ""] if reason.resource_id else []
            if reason.entity_type == "appointment":
                who.append(f"appointment {reason.entity_id}")
            lines.append(
                f"{reason.reason_code.value} {reason.reason} "
                f"{_hhmm(reason.from_time)}-{_hhmm(reason.to_time)}"
                + (f" ({', '.join(who)})" if who else "")
            )
        if self.off_grid:
            shown = ", ".join(self._when(moment) for moment in self.nearest) or "none that day"
            lines.append(f"not on the slot grid; nearest offered starts: {shown}")
        return lines

    def _when(self, moment: datetime) -> str:
        """Return ``09:00`` on the asked date, else ``2026-11-25 09:00`` (the asked zone)."""
        local = moment.astimezone(self.start.tzinfo)
        return f"{local:%H:%M}" if local.date() == self.start.date() else f"{local:%Y-%m-%d %H:%M}"

    def _rows(self) -> tuple[Any, ...]:
        return self.reasons

    def __repr__(self) -> str:
        verdict = "offered" if self.offered else "; ".join(self.summary)
        service = self._names.get(self.service_id, self.service_id)
        who = f" with {self.name_of(self.resource_id)}" if self.resource_id else ""
        return f"Explanation({service}{who} at {self.start:%Y-%m-%d %H:%M %Z}: {verdict})"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self))


def _hhmm(value: int) -> str:
    return f"{value // 100:02d}:{value % 100:02d}"
