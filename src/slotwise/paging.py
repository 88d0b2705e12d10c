"""
Lists and their pagination envelope (spec: Pagination envelope; decision 31).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Generic, TypeVar

import attrs

from slotwise.errors import OutOfRange, UnexpectedField
from slotwise.tables import Tabular, appointments_html, page_html

__all__ = [
    "DEFAULT_LIMIT",
    "MAX_LIMIT",
    "AllPages",
    "Page",
    "all_pages",
    "check_window",
    "paginate",
]

T = TypeVar("T")

DEFAULT_LIMIT = 20
MAX_LIMIT = 100


@attrs.frozen(kw_only=True, repr=False)
class Page(Tabular, Generic[T]):
    """
    One page of a list: the spec's envelope ``{object, url, hasMore, count, total, data}``.

    .. versionadded:: 0.1
    """

    url: str
    data: tuple[T, ...]
    total: int
    offset: int
    limit: int
    object: str = "list"

    def _rows(self) -> tuple[T, ...]:
        return self.data

    def __repr__(self) -> str:
        kinds = sorted({type(record).__name__ for record in self.data}) or ["nothing"]
        shown = f"{self.offset + 1}-{self.offset + self.count}" if self.data else "none"
        return f"Page({self.url}, {shown} of {self.total} {'/'.join(kinds)})"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self))

    def _repr_html_(self) -> str:
        # A page of appointments is a week grid; any other page a table of its records.
        return appointments_html(repr(self), self.data) or page_html(repr(self), self.records())

    @property
    def count(self) -> int:
        """Return how many records this page holds."""
        return len(self.data)

    @property
    def has_more(self) -> bool:
        """Tell whether records follow this page."""
        return self.offset + len(self.data) < self.total


def check_window(offset: object, limit: object, *, max_limit: int = MAX_LIMIT) -> None:
    """
    Check a list's *offset* and *limit* before anything is read.

    Raises:
        OutOfRange: when *offset* is negative or *limit* is outside 1..*max_limit*.
    """
    if not isinstance(offset, int) or isinstance(offset, bool) or offset < 0:
        raise OutOfRange(field="offset", allowed="at least 0", requested=offset)
    if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= max_limit:
        raise OutOfRange(field="limit", allowed=f"between 1 and {max_limit}", requested=limit)


def paginate(
    records: Sequence[T],
    *,
    url: str,
    offset: int = 0,
    limit: int = DEFAULT_LIMIT,
    max_limit: int = MAX_LIMIT,
) -> Page[T]:
    """
    Return the page of *records* starting at *offset* with at most *limit* records.

    Raises:
        OutOfRange: when *offset* is negative or *limit* is outside 1..*max_limit*.
    """
    check_window(offset, limit, max_limit=max_limit)
    return Page(
        url=url,
        data=tuple(records[offset : offset + limit]),
        total=len(records),
        offset=offset,
        limit=limit,
    )


def all_pages(list_page: Callable[..., Page[T]], /, *args: Any, **filters: Any) -> Iterator[T]:
    """
    Return every record ``list_page(*args, **filters)`` lists, reading its pages lazily.

    The first page (of :data:`MAX_LIMIT` records) is read at once, so a bad filter raises here;
    each later page is read when the records before it are used up. The walk follows the list's
    order page by page: records created meanwhile are met if they sort after the walk's
    position, and a record deleted meanwhile may make the walk skip the one that followed it
    (the list reads pages by offset, not one snapshot). ``for a in all_pages(ws.resources.list_blocks,
    resource_id): ...`` walks any list; each operation group with a ``list`` also has ``iter``.

    Raises:
        UnexpectedField: for *offset* or *limit* (the walk chooses them).
        SlotwiseError: what ``list_page`` raises for its arguments.

    .. versionadded:: 0.1
    """
    for name in ("offset", "limit"):
        if name in filters:
            raise UnexpectedField(
                field=name,
                allowed=sorted(set(filters) - {"offset", "limit"}),
                reason="is chosen by the walk over all pages",
            )
    first = list_page(*args, **filters, offset=0, limit=MAX_LIMIT)
    return _walk(list_page, args, filters, first)


def _walk(
    list_page: Callable[..., Page[T]],
    args: tuple[Any, ...],
    filters: dict[str, Any],
    page: Page[T],
) -> Iterator[T]:
    while True:
        yield from page.data
        if not page.has_more or not page.data:
            return
        page = list_page(*args, **filters, offset=page.offset + page.count, limit=MAX_LIMIT)


class AllPages(Generic[T]):
    """
    ``iter()``: every record an operation group's ``list()`` lists, read page by page.

    .. versionadded:: 0.1
    """

    @property
    def iter(self) -> Callable[..., Iterator[T]]:
        """
        ``iter(*args, **filters)``: every record ``list(*args, **filters)`` lists, its pages read
        lazily (decision 48): ``for appointment in ws.appointments.iter(status="BK"): ...``.

        A callable, not an operation of its own: each page is read by ``list``, behind its
        boundary (see :func:`all_pages`).
        """
        list_page: Callable[..., Page[T]] = getattr(self, "list")  # noqa: B009 (the subclass's)
        return functools.partial(all_pages, list_page)
