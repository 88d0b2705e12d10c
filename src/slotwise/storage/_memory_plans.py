"""
What one record of each kind touches in ``MemoryStore``'s list and child indexes, worked out once
per kind (a plan), so a write reads the few fields that matter rather than asking of every record
which indexes its kind has.
"""

from __future__ import annotations

import enum
import functools
import operator
import typing
from collections.abc import Callable
from typing import Any, NamedTuple

import attrs

from slotwise.model import (
    RECORD_KINDS,
    Allocation,
    Appointment,
    AuditEntry,
    Block,
    Customer,
    OutboxEvent,
    QueuedReminder,
)
from slotwise.storage.configuration import CONFIGURATION_KINDS
from slotwise.storage.listing import fold

__all__ = [
    "INDEXED_CONTAINS",
    "INDEXED_EQUAL",
    "INDEXED_FOLDED",
    "PLANS",
    "ListKeys",
    "Plan",
    "list_keys",
    "parent_of",
    "value_of",
]

INDEXED_EQUAL: dict[type[Any], tuple[str, ...]] = {
    Appointment: ("service_id", "customer_id", "status"),
    OutboxEvent: ("delivery_status",),
    Block: ("target_id",),
    Allocation: ("target_id",),
}
"""The fields each kind's ``equal`` filters are answered from an index for (besides location)."""
INDEXED_CONTAINS: dict[type[Any], tuple[str, ...]] = {Appointment: ("resource_ids",)}
INDEXED_FOLDED: dict[type[Any], tuple[str, ...]] = {Appointment: ("email",), Customer: ("email",)}

_PARENTS: dict[type[Any], str] = {
    Block: "target_id",
    Allocation: "target_id",
    Appointment: "customer_id",
    QueuedReminder: "appointment_id",
    AuditEntry: "appointment_id",
}
"""The field naming a record's parent in the child indexes."""
_OPTIONAL_PARENTS: frozenset[type[Any]] = frozenset({Appointment})
"""The kinds whose parent field may be ``None`` (no parent: in no child index)."""

ListKeys = list[tuple[str | None, object]]
"""The (field, value) list indexes of one record; (``None``, ``None``) is its company's list."""


def value_of(record: Any, name: str) -> object:
    """Return *record*'s *name* as list indexes and ``ListQuery`` filters compare it."""
    found = getattr(record, name)
    # ``_value_``: the enum's own attribute (``value`` is a Python-level property).
    return found._value_ if isinstance(found, enum.Enum) else found


class Plan(NamedTuple):
    """One kind's list and child indexes, as a write of one of its records touches them."""

    configuration: bool
    """Whether the kind is configuration (a write bumps its company's configuration version)."""
    equal: tuple[tuple[str, Callable[[Any], object]], ...]
    """``location_id`` (for a located kind) and the ``equal`` fields, each with its getter."""
    contains: tuple[str, ...]
    """The fields whose every member is a list index (``resource_ids``)."""
    folded: tuple[str, ...]
    """The text fields indexed folded (``None``: in no list)."""
    parent: Callable[[Any], str | None] | None
    """The getter of the record's parent id in the child indexes, if its kind has one."""
    list_new: Callable[[dict[Any, list[str]], dict[Any, list[str]], str, str, Any], None]
    """
    ``list_new(lists, children, company_id, record_id, record)``: append a new record's id to
    each of its lists and to its parent's children (the newest of each: no bisection).
    """


def _hint(kind: type[Any], name: str) -> Any:
    """Return the type of *kind*'s field (or property) *name*, ``None`` when not annotated."""
    found = typing.get_type_hints(kind).get(name)
    if found is None and isinstance(getter := getattr(kind, name, None), property):
        found = typing.get_type_hints(getter.fget).get("return")
    return found


def _holds_enum(hint: Any) -> bool:
    return any(
        isinstance(member, type) and issubclass(member, enum.Enum)
        for member in (typing.get_args(hint) or (hint,))
    )


def _path(kind: type[Any], name: str) -> str | None:
    """
    Return the attribute path that reads ``value_of(record, name)`` without a call: an enum
    field's ``_value_``, a field that never holds an enum as it is; ``None`` for the rest.
    """
    hint = _hint(kind, name)
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return f"{name}._value_"
    if hint is None or _holds_enum(hint):
        return None
    return name


def _getter(kind: type[Any], name: str) -> Callable[[Any], object]:
    """Return a getter of ``value_of(record, name)``, a C-level one where :func:`_path` allows."""
    path = _path(kind, name)
    if path is None:
        return functools.partial(_value_named, name=name)
    return operator.attrgetter(path)


def _value_named(record: Any, *, name: str) -> object:
    return value_of(record, name)


def _list_new(
    kind: type[Any], equal: tuple[str, ...], contains: tuple[str, ...], folded: tuple[str, ...]
) -> Any:
    """
    Return ``Plan.list_new`` for *kind*: a function made for its indexes, as attrs makes
    ``__init__``, one line per list (every booking writes three records, ~10 lists).
    """
    append = ".append(record_id)"
    lines = [f"    lists[(kind, company_id, None, None)]{append}"]
    for name in equal:
        path = _path(kind, name)
        value = f"_value_of(record, {name!r})" if path is None else f"record.{path}"
        lines.append(f"    lists[(kind, company_id, {name!r}, {value})]{append}")
    for name in contains:
        # Only a record naming a member twice repeats a key (every other key has its own name).
        lines.append(f"    for member in _once(record.{name}):")
        lines.append(f"        lists[(kind, company_id, {name!r}, member)]{append}")
    for name in folded:
        lines.append(f"    if (text := record.{name}) is not None:")
        lines.append(f"        lists[(kind, company_id, {name!r}, _fold(text))]{append}")
    parent = _PARENTS.get(kind)
    if kind in _OPTIONAL_PARENTS:
        lines.append(f"    if (parent_id := record.{parent}) is not None:")
        lines.append(f"        children[(kind, parent_id)]{append}")
    elif parent is not None:
        lines.append(f"    children[(kind, record.{parent})]{append}")
    source = "def list_new(lists, children, company_id, record_id, record):\n"
    namespace: dict[str, Any] = {
        "kind": kind,
        "_value_of": value_of,
        "_once": dict.fromkeys,
        "_fold": fold,
    }
    exec(
        compile(source + "\n".join(lines) + "\n", f"<slotwise list_new {kind.__name__}>", "exec"),
        namespace,
    )
    return namespace["list_new"]


def _plan(kind: type[Any]) -> Plan:
    fields = attrs.fields_dict(kind)
    equal = (*(("location_id",) if "location_id" in fields else ()), *INDEXED_EQUAL.get(kind, ()))
    contains = INDEXED_CONTAINS.get(kind, ())
    folded = INDEXED_FOLDED.get(kind, ())
    parent = _PARENTS.get(kind)
    return Plan(
        configuration=kind in CONFIGURATION_KINDS,
        equal=tuple((name, _getter(kind, name)) for name in equal),
        contains=contains,
        folded=folded,
        parent=None if parent is None else operator.attrgetter(parent),
        list_new=_list_new(kind, equal, contains, folded),
    )


PLANS: dict[type[Any], Plan] = {kind: _plan(kind) for kind in RECORD_KINDS}
"""Each record kind's :class:`Plan` (a kind missing here is not stored)."""


def list_keys(record: Any) -> ListKeys:
    """Return the (field, value) list indexes *record* belongs to, once each (``ListQuery``)."""
    plan = PLANS[type(record)]
    keys: ListKeys = [(None, None)]
    keys.extend((name, get(record)) for name, get in plan.equal)
    for name in plan.contains:
        # Only a record naming a member twice repeats a key (every other key has its own name).
        keys.extend((name, member) for member in dict.fromkeys(getattr(record, name)))
    for name in plan.folded:
        text = getattr(record, name)
        if text is not None:
            keys.append((name, fold(text)))
    return keys


def parent_of(record: Any) -> tuple[type[Any], str] | None:
    """Return the (kind, parent id) child index *record* belongs to, if any."""
    parent = PLANS[type(record)].parent
    if parent is None:
        return None
    parent_id = parent(record)
    if parent_id is None and type(record) in _OPTIONAL_PARENTS:
        return None
    # None here only for a record built without its parent's id (no validator refuses one):
    # it keeps the (kind, None) child index it has always had.
    return (type(record), parent_id)  # type: ignore[return-value]
