"""
Blocks and allocations of calendars, services and resources: the operations they share.

Each owner (``CalendarOperations``, ``ServiceOperations``, ``ResourceOperations``) declares its
own calls and docstrings and hands each to its :class:`TargetWindows` in one line, so the rules
(dates, times, repeat, soft delete of blocks, the principal's locations) live in one place.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime
from typing import Any, Required, TypedDict, TypeVar

import attrs

from slotwise._time import zone
from slotwise.errors import FieldRequired, InvalidFormat, NotFound
from slotwise.model import Allocation, AllocationTarget, Block, BlockTarget, Location, RepeatRule
from slotwise.operations._context import Context
from slotwise.paging import DEFAULT_LIMIT, Page, check_window
from slotwise.storage.listing import ListQuery, as_page
from slotwise.storage.protocol import Reader

from ._partial import resolved

__all__ = [
    "AllocationChanges",
    "AllocationFields",
    "WindowChanges",
    "WindowFields",
    "TargetWindows",
]

W = TypeVar("W", Block, Allocation)


class _WindowCommon(TypedDict, total=False):
    start_time: int
    end_time: int
    all_day: bool
    reason: str | None
    repeats: bool
    repeat: RepeatRule | None


class WindowFields(_WindowCommon, total=False):
    """
    Fields of a new block: ``start_date`` and ``end_date`` (a date, a date-time, ISO text of
    either, or ``never`` for the end), and ``repeats`` (false: no repeat, whatever ``repeat``
    says; true: ``repeat`` is required).
    """

    start_date: Required[date | datetime | str]
    end_date: Required[date | datetime | str]


class WindowChanges(_WindowCommon, total=False):
    """Fields a block update may change; omitted fields (times, reason) are preserved."""

    start_date: date | datetime | str
    end_date: date | datetime | str


class AllocationFields(WindowFields, total=False):
    """Fields of a new allocation: a block's, plus ``booking_limit`` (0 = not set)."""

    booking_limit: int


class AllocationChanges(WindowChanges, total=False):
    """Fields an allocation update may change (``booking_limit`` 0 is allowed)."""

    booking_limit: int


@attrs.frozen
class TargetWindows:
    """The blocks and allocations of one kind of target, for one operation's context."""

    ctx: Context
    block_target: BlockTarget
    block_url: str
    """The spec path listing a target's blocks, with ``{id}`` for the target's id."""
    allocation_target: AllocationTarget | None = None
    allocation_url: str = ""

    def _target(self, kind: type[Block] | type[Allocation]) -> BlockTarget | AllocationTarget:
        target = self.block_target if kind is Block else self.allocation_target
        assert target is not None, "this kind of target takes no allocations"
        return target

    def create(
        self,
        kind: type[W],
        *,
        target_id: str,
        location_id: str,
        fields: WindowFields | AllocationFields | Mapping[str, Any],
    ) -> W:
        """
        Validate and store a new block or allocation of *target_id* at *location_id*.

        Raises:
            InvalidTimeRange: when ``start_time`` is not before ``end_time`` (spec: Errors 6).
            InvalidDateRange: when ``start_date`` is after ``end_date``.
        """
        ctx = self.ctx
        # A service names the location of its window among the fields; it is placed already.
        values: dict[str, Any] = {k: v for k, v in fields.items() if k != "location_id"}
        with ctx.store.transaction() as tx:
            window = kind(
                id=ctx.ids.new_id(),
                company_id=ctx.company_id,
                location_id=location_id,
                target=self._target(kind),
                target_id=target_id,
                **_spec_values(tx, location_id, values, None),
            )
            tx.insert(window)
        return window

    def get(self, kind: type[W], window_id: str) -> W:
        """
        Return one live block or allocation of this kind of target.

        Raises:
            NotFound: when it does not exist, is deleted, or belongs to another kind of target.
        """
        return self.ctx.configured_read(lambda reader: self._live(reader, kind, window_id))

    def list(
        self, kind: type[W], target_id: str, *, offset: int = 0, limit: int = DEFAULT_LIMIT
    ) -> Page[W]:
        """Return the live blocks or allocations of one target, in creation order."""
        ctx, target = self.ctx, self._target(kind)
        check_window(offset, limit)
        equal: dict[str, str | bool | None] = {"target_id": target_id, "target": target.value}
        if kind is Block:
            equal["deleted"] = False
        allowed = ctx.location_ids
        query = ListQuery(
            company_id=ctx.company_id,
            equal=equal,
            # A company-scoped service has windows at several locations: show only the
            # principal's (decision 30).
            one_of={} if allowed is None else {"location_id": allowed},
            offset=offset,
            limit=limit,
        )
        with ctx.store.read() as reader:
            listed = reader.page(kind, query)
        url = (self.block_url if kind is Block else self.allocation_url).format(id=target_id)
        return as_page(listed, query, url=url)

    def update(
        self, kind: type[W], window_id: str, changes: WindowChanges | AllocationChanges
    ) -> W:
        """
        Change a block or allocation; fields not given keep their values.

        Raises:
            NotFound: when it does not exist or is deleted.
            ValidationError: for invalid dates or times; nothing is changed.
        """
        with self.ctx.store.transaction() as tx:
            current = self._live(tx, kind, window_id)
            values = _spec_values(tx, current.location_id, resolved(current, changes), current)
            updated = attrs.evolve(current, **values)
            tx.update(updated)
        return updated

    def delete(self, kind: type[W], window_id: str) -> W:
        """
        Delete a block (soft: kept with ``deleted`` true, no longer applied) or an allocation (for good).

        Returns the record as it was last seen (a block with ``deleted`` true).
        """
        with self.ctx.store.transaction() as tx:
            window = self._live(tx, kind, window_id)
            if isinstance(window, Block):
                deleted = attrs.evolve(window, deleted=True)
                tx.update(deleted)
                return deleted
            tx.delete(kind, window_id)
            return window

    def _live(self, reader: Reader, kind: type[W], window_id: str) -> W:
        window = self.ctx.owned(reader, kind, window_id, field="id")
        if not _visible(window, self._target(kind)):
            raise NotFound(kind=kind.__name__, record_id=window_id)
        return window


def _spec_values(
    reader: Reader, location_id: str, values: dict[str, Any], current: Block | Allocation | None
) -> dict[str, Any]:
    """
    Return *values* with the spec's request forms read (decision 45).

    ``repeats`` false drops the repeat (a ``repeat`` sent beside it is ignored, as forms send
    both); true requires a ``repeat``, given or kept. A date-time ``start_date`` or
    ``end_date`` (the spec's endpoint tables type them so) stands for its date in the
    location's zone; a naive one for its own date, a wall time there already.
    """
    repeats = values.pop("repeats", None)
    if repeats is False:
        values["repeat"] = None
    elif repeats is True:
        kept = current.repeat if current is not None else None
        if values.get("repeat", kept) is None:
            raise FieldRequired(field="repeat")
    for name in ("start_date", "end_date"):
        if name in values:
            values[name] = _window_date(reader, location_id, name, values[name])
    return values


def _window_date(reader: Reader, location_id: str, name: str, value: Any) -> Any:
    if isinstance(value, str) and "T" in value:
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            raise InvalidFormat(
                field=name, expected="a date or an ISO 8601 date-time", value=value
            ) from None
    elif isinstance(value, str) and name == "start_date":
        try:
            return date.fromisoformat(value)
        except ValueError:
            raise InvalidFormat(field=name, expected="a date (YYYY-MM-DD)", value=value) from None
    if not isinstance(value, datetime):
        return value
    if value.tzinfo is None or value.utcoffset() is None:
        return value.date()
    location = reader.get(Location, location_id)
    local = value if location is None else value.astimezone(zone(location.timezone))
    return local.date()


def _visible(window: Block | Allocation, target: object) -> bool:
    return window.target is target and not (isinstance(window, Block) and window.deleted)
