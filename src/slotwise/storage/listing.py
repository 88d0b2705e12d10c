"""
One page of a list, read by the store: what to select (:class:`ListQuery`) and what comes back
(:class:`Listed`).

A list operation asks the store for one page and the number of matches instead of reading every
record and slicing, so a SQL store answers with one indexed ``SELECT ... LIMIT`` and one
``COUNT``, and ``MemoryStore`` from sorted indexes. :meth:`ListQuery.matches` is the reference
meaning of a query: a store may answer any way it likes as long as it returns exactly the
matching records, in creation order, from *offset*, at most *limit* of them.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Mapping
from datetime import datetime
from typing import Any, Generic, TypeVar

import attrs

from slotwise.errors import InvalidFormat, OutOfRange, StoreError, UnexpectedField
from slotwise.paging import Page

__all__ = ["ListQuery", "Listed", "as_page", "check_query", "fold", "listable_fields"]

FilterValue = str | bool | None
T = TypeVar("T")


def fold(text: str) -> str:
    """Return *text* as ``folded`` filters compare it: stripped of surrounding space, case-folded."""
    return text.strip().casefold()


def _text(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if value is None and attribute.name == "location_id":
        return
    if not isinstance(value, str) or not value:
        raise InvalidFormat(field=attribute.name, expected="a non-empty string", value=value)


def _offset(instance: object, attribute: attrs.Attribute[int], value: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise OutOfRange(field=attribute.name, allowed="at least 0", requested=value)


def _limit(instance: object, attribute: attrs.Attribute[int], value: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise OutOfRange(field=attribute.name, allowed="at least 1", requested=value)


def _instant_range(
    instance: object, attribute: attrs.Attribute[Any], value: tuple[datetime, datetime] | None
) -> None:
    if value is None:
        return
    if (
        not isinstance(value, tuple)
        or len(value) != 2
        or not all(isinstance(end, datetime) and end.utcoffset() is not None for end in value)
    ):
        raise InvalidFormat(
            field=attribute.name, expected="a pair of aware datetimes (from, until)", value=value
        )
    if value[1] < value[0]:
        raise OutOfRange(
            field=attribute.name, allowed=f"until at or after {value[0]}", requested=value[1]
        )


def _sorted_copy(value: Mapping[str, Any]) -> Mapping[str, Any]:
    return dict(sorted(value.items()))


def _sorted_choices(value: Mapping[str, Any]) -> Mapping[str, frozenset[FilterValue]]:
    return {name: frozenset(choices) for name, choices in sorted(value.items())}


@attrs.frozen(kw_only=True)
class ListQuery:
    """
    Which records of one company a list read selects, and which page of them.

    A record matches when its ``company_id`` is *company_id*, its ``location_id`` is
    *location_id* (when given), and every filter holds:

    - ``equal``: ``{field: value}``, the record's field equals the value (an enum field by its
      value, so ``{"status": "BK"}``);
    - ``contains``: ``{field: member}``, the record's tuple field holds the member
      (``{"resource_ids": "res-1"}``);
    - ``folded``: ``{field: text}``, the record's text field is not ``None`` and equals the text
      after :func:`fold` on both sides (*text* is given folded);
    - ``one_of``: ``{field: values}``, the record's field is one of the values (an empty set
      matches nothing): ``{"location_id": {"loc-1", "loc-2"}}``;
    - ``starting``: ``(from, until)``, the record's ``start`` is at or after *from* and before
      *until* (appointments between two dates, decision 48).

    Matches are ordered by creation (first insert), as :meth:`Reader.find` orders them, or the
    newest first with *newest_first*; the page skips *offset* of them and holds at most
    *limit*.

    .. versionadded:: 0.1
    """

    company_id: str = attrs.field(validator=_text)
    location_id: str | None = attrs.field(default=None, validator=_text)
    equal: Mapping[str, FilterValue] = attrs.field(factory=dict, converter=_sorted_copy)
    contains: Mapping[str, str] = attrs.field(factory=dict, converter=_sorted_copy)
    folded: Mapping[str, str] = attrs.field(factory=dict, converter=_sorted_copy)
    one_of: Mapping[str, frozenset[FilterValue]] = attrs.field(
        factory=dict, converter=_sorted_choices
    )
    starting: tuple[datetime, datetime] | None = attrs.field(default=None, validator=_instant_range)
    newest_first: bool = False
    offset: int = attrs.field(default=0, validator=_offset)
    limit: int = attrs.field(default=20, validator=_limit)

    def matches(self, record: Any) -> bool:
        """Tell whether *record* is one this query selects (its page position aside)."""
        if record.company_id != self.company_id:
            return False
        if self.location_id is not None and record.location_id != self.location_id:
            return False
        for name, value in self.equal.items():
            found = getattr(record, name)
            if isinstance(found, enum.Enum):
                found = found.value
            if found != value:
                return False
        for name, member in self.contains.items():
            if member not in getattr(record, name):
                return False
        for name, text in self.folded.items():
            found = getattr(record, name)
            if found is None or fold(found) != text:
                return False
        for name, choices in self.one_of.items():
            found = getattr(record, name)
            if isinstance(found, enum.Enum):
                found = found.value
            if found not in choices:
                return False
        if self.starting is not None:
            since, until = self.starting
            if not since <= record.start < until:
                return False
        return True

    @property
    def filtered(self) -> bool:
        """Tell whether any filter beyond company and location applies."""
        return bool(
            self.equal or self.contains or self.folded or self.one_of or self.starting is not None
        )


@attrs.frozen
class Listed(Generic[T]):
    """One page of a list read: the page's records and how many records match in all."""

    records: list[T]
    total: int


@functools.cache
def listable_fields(kind: type[Any]) -> frozenset[str]:
    """Return the names a query may filter *kind* on: its fields and its properties (per class, once)."""
    names = {field.name for field in attrs.fields(kind)}
    names.update(name for name in dir(kind) if isinstance(getattr(kind, name, None), property))
    return frozenset(names)


def check_query(kind: type[Any], query: ListQuery) -> None:
    """
    Refuse a query that names what *kind* does not have (a store calls it first).

    Raises:
        UnexpectedField: for a filter on a field *kind* has not.
        StoreError: for a location filter on a kind without ``location_id``.
    """
    if not attrs.has(kind):
        raise StoreError(
            f"{getattr(kind, '__name__', kind)!r} is not a record kind slotwise stores"
        )
    known = listable_fields(kind)
    for filters in (query.equal, query.contains, query.folded, query.one_of):
        for name in filters:
            if name not in known:
                raise UnexpectedField(
                    field=name, allowed=sorted(known), reason=f"is not a field of {kind.__name__}"
                )
    if query.starting is not None and "start" not in known:
        raise UnexpectedField(
            field="start", allowed=sorted(known), reason=f"is not a field of {kind.__name__}"
        )
    if query.location_id is not None and "location_id" not in known:
        raise StoreError(f"{kind.__name__} records have no location_id to filter on")


def as_page(listed: Listed[T], query: ListQuery, *, url: str) -> Page[T]:
    """Return the list envelope of one page a store read for *query*."""
    return Page(
        url=url,
        data=tuple(listed.records),
        total=listed.total,
        offset=query.offset,
        limit=query.limit,
    )
