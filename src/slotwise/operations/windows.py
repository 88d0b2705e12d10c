"""
Blocks and allocations of calendars, services and resources: the operations they share.

Each owner module (calendars, services, resources) calls these with its own target, so the
rules (dates, times, repeat, soft delete of blocks) live in one place.
"""

from __future__ import annotations

from datetime import date
from typing import Any, Required, TypedDict, TypeVar

import attrs

from slotwise.errors import NotFound
from slotwise.model import Allocation, AllocationTarget, Block, BlockTarget, RepeatRule
from slotwise.operations._context import Context
from slotwise.paging import DEFAULT_LIMIT, Page, paginate

__all__ = [
    "AllocationChanges",
    "AllocationFields",
    "WindowChanges",
    "WindowFields",
    "create_window",
    "delete_window",
    "get_window",
    "list_windows",
    "update_window",
]

W = TypeVar("W", Block, Allocation)


class _WindowCommon(TypedDict, total=False):
    start_time: int
    end_time: int
    all_day: bool
    reason: str | None
    repeat: RepeatRule | None


class WindowFields(_WindowCommon, total=False):
    """Fields of a new block: ``start_date`` and ``end_date`` (a date, ISO text or ``never``)."""

    start_date: Required[date]
    end_date: Required[date | str]


class WindowChanges(_WindowCommon, total=False):
    """Fields a block update may change; omitted fields (times, reason) are preserved."""

    start_date: date
    end_date: date | str


class AllocationFields(WindowFields, total=False):
    """Fields of a new allocation: a block's, plus ``booking_limit`` (0 = not set)."""

    booking_limit: int


class AllocationChanges(WindowChanges, total=False):
    """Fields an allocation update may change (``booking_limit`` 0 is allowed)."""

    booking_limit: int


def create_window(
    ctx: Context,
    kind: type[W],
    *,
    target: BlockTarget | AllocationTarget,
    target_id: str,
    location_id: str,
    fields: WindowFields | AllocationFields,
) -> W:
    """
    Validate and store a new block or allocation for *target_id*.

    Raises:
        InvalidTimeRange: when ``start_time`` is not before ``end_time`` (spec: Errors 6).
        InvalidDateRange: when ``start_date`` is after ``end_date``.
    """
    values: dict[str, Any] = dict(fields)
    window = kind(
        id=ctx.ids.new_id(),
        company_id=ctx.company_id,
        location_id=location_id,
        target=target,
        target_id=target_id,
        **values,
    )
    with ctx.store.transaction() as tx:
        tx.insert(window)
    return window


def _visible(window: Block | Allocation, target: object) -> bool:
    return window.target is target and not (isinstance(window, Block) and window.deleted)


def get_window(ctx: Context, kind: type[W], window_id: str, *, target: object) -> W:
    """
    Return one live block or allocation of the given target kind.

    Raises:
        NotFound: when it does not exist, is deleted, or belongs to another kind of target.
    """
    with ctx.store.read() as reader:
        window = ctx.owned(reader, kind, window_id, field="id")
    if not _visible(window, target):
        raise NotFound(kind=kind.__name__, record_id=window_id)
    return window


def list_windows(
    ctx: Context,
    kind: type[W],
    *,
    target: object,
    target_id: str,
    url: str,
    offset: int = 0,
    limit: int = DEFAULT_LIMIT,
) -> Page[W]:
    """Return the live blocks or allocations of one target, in creation order."""
    with ctx.store.read() as reader:
        windows = [
            window
            for window in reader.find(kind, company_id=ctx.company_id)
            if window.target_id == target_id
            and _visible(window, target)
            # A company-scoped service has windows at several locations: show only the
            # principal's (decision 30).
            and ctx.principal.may_use_location(window.location_id)
        ]
    return paginate(windows, url=url, offset=offset, limit=limit)


def update_window(
    ctx: Context,
    kind: type[W],
    window_id: str,
    *,
    target: object,
    changes: WindowChanges | AllocationChanges,
) -> W:
    """
    Change a block or allocation; fields not given keep their values.

    Raises:
        NotFound: when it does not exist or is deleted.
        ValidationError: for invalid dates or times; nothing is changed.
    """
    with ctx.store.transaction() as tx:
        window = ctx.owned(tx, kind, window_id, field="id")
        if not _visible(window, target):
            raise NotFound(kind=kind.__name__, record_id=window_id)
        values: dict[str, Any] = dict(changes)
        updated = attrs.evolve(window, **values)
        tx.update(updated)
    return updated


def delete_window(ctx: Context, kind: type[W], window_id: str, *, target: object) -> W:
    """
    Delete a block (soft: kept with ``deleted`` true, no longer applied) or an allocation (for good).

    Returns the record as it was last seen (a block with ``deleted`` true).
    """
    with ctx.store.transaction() as tx:
        window = ctx.owned(tx, kind, window_id, field="id")
        if not _visible(window, target):
            raise NotFound(kind=kind.__name__, record_id=window_id)
        if isinstance(window, Block):
            deleted = attrs.evolve(window, deleted=True)
            tx.update(deleted)
            return deleted
        tx.delete(kind, window_id)
        return window
