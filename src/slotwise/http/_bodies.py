"""
Request bodies and query parameters, generated from the operations' own declarations.

An operation declares what it accepts (its keyword arguments, the keys of its ``**fields``
TypedDict, the fields of the attrs records it takes nested). :func:`body_struct` turns such a
declaration into a :mod:`msgspec` ``Struct`` with the spec's camelCase names, every field
optional and unknown fields refused, so that

* the JSON decoder refuses a body with a field the operation does not declare (400 naming it),
  or a value of the wrong JSON type, before any slotwise code runs;
* the OpenAPI document shows exactly what the operation accepts;
* :func:`to_python` hands the operation the given fields only, under their Python names, where
  the operation's own boundary checks them as it checks every Python caller's values.

Omitted fields stay omitted: the operation's defaults (and, on updates, the record's current
values) apply, as in a Python call.
"""

from __future__ import annotations

import collections.abc as abc
import enum
import functools
import types
import typing
from collections.abc import Mapping
from datetime import date, datetime
from typing import Any, Final, Union, get_args, get_origin

import attrs
import msgspec
from msgspec import UNSET, UnsetType

from slotwise.model import RepeatRule
from slotwise.operations._inputs import required_keys, stripped

from ._wire import wire_name

__all__ = [
    "PatchOperation",
    "body_struct",
    "input_type",
    "record_input",
    "sources",
    "to_python",
]

_NAMES: dict[type, dict[str, str]] = {}
"""Wire name -> Python name, per generated struct (read by :func:`to_python`)."""
_SOURCES: dict[type, tuple[type | None, dict[str, tuple[str, Any]]]] = {}
"""Per generated struct: its record and wire name -> (Python name, declared hint)."""


class PatchOperation(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """One operation of an RFC 6902 JSON Patch (``application/json-patch+json``)."""

    op: typing.Literal["add", "remove", "replace", "move", "copy", "test"]
    path: str
    value: Any = None
    from_: str | UnsetType = msgspec.field(default=UNSET, name="from")


@functools.cache
def record_input(kind: type) -> type[msgspec.Struct]:
    """Return the input struct of the attrs record *kind* given nested in a body."""
    hints = typing.get_type_hints(kind)
    items = [
        ((attribute.alias or attribute.name), hints[attribute.name], attribute.name)
        for attribute in attrs.fields(kind)
        if attribute.init
    ]
    required = frozenset(
        attribute.alias or attribute.name
        for attribute in attrs.fields(kind)
        if attribute.init and attribute.default is attrs.NOTHING
    )
    return _struct(
        f"{kind.__name__}Input",
        [(wire_name(kind, name), python, hint) for python, hint, name in items],
        owner=kind,
        required=required,
    )


def body_struct(
    name: str,
    items: Mapping[str, Any],
    *,
    record: type | None,
    rename: Mapping[str, str],
    required: frozenset[str] = frozenset(),
) -> type[msgspec.Struct]:
    """
    Return the body struct of an operation accepting *items* (Python name -> type hint).

    *record* is the record class the operation creates or changes (its spec names apply);
    *rename* gives route-specific wire names (``start`` -> ``startDateTime``); the fields named
    in *required* (Python names: the operation's parameters without a default) must be sent.
    """
    fields = [
        (rename.get(python) or wire_name(record, python), python, stripped(hint))
        for python, hint in items.items()
    ]
    return _struct(name, fields, owner=record, required=required)


def _struct(
    name: str,
    fields: list[tuple[str, str, Any]],
    *,
    owner: type | None,
    required: frozenset[str] = frozenset(),
) -> type[msgspec.Struct]:
    declared: list[tuple[str, Any] | tuple[str, Any, Any]] = []
    names: dict[str, str] = {}
    for wire, python, hint in fields:
        kind = input_type(hint, owner=owner, field=python)
        # A required field is declared without a default: msgspec refuses a body without it
        # and the OpenAPI document lists it as required, from the operation's own signature.
        declared.append((wire, kind) if python in required else (wire, kind | UnsetType, UNSET))
        names[wire] = python
    struct = msgspec.defstruct(
        name, declared, kw_only=True, forbid_unknown_fields=True, omit_defaults=True
    )
    _NAMES[struct] = names
    _SOURCES[struct] = (owner, {wire: (python, hint) for wire, python, hint in fields})
    return struct


def sources() -> dict[type, tuple[type | None, dict[str, tuple[str, Any]]]]:
    """Return every generated struct's record and fields (for the OpenAPI constraints)."""
    return dict(_SOURCES)


_STRINGY: Final = (str, date, datetime)


def input_type(hint: Any, *, owner: type | None = None, field: str = "") -> Any:
    """Return the type a JSON value declared as *hint* is decoded to."""
    if owner is RepeatRule and field == "weekdays":
        return str | list[int]  # spec: "string of digits 0-6"; a list of digits reads too
    if owner is RepeatRule and field == "month_day":
        # Spec: "integer in input, string in response"; the answer's string reads too (a JSON
        # Patch edits the record as GET shows it).
        return int | str | None
    origin = get_origin(hint)
    if origin is typing.Annotated:
        return input_type(get_args(hint)[0], owner=owner, field=field)
    if origin is typing.Literal:
        return hint
    if origin is Union or origin is types.UnionType:
        return _union(get_args(hint))
    if origin in (tuple, list, frozenset, set, abc.Sequence, abc.Set, abc.Iterable):
        args = [a for a in get_args(hint) if a is not Ellipsis]
        if origin is tuple and len(args) > 1 and len(set(args)) == 1:
            return list[input_type(args[0])]  # type: ignore[misc]
        return list[input_type(args[0]) if args else Any]  # type: ignore[misc]
    if origin in (abc.Mapping, dict):
        key, value = get_args(hint) or (str, Any)
        if get_origin(key) is Union or get_origin(key) is types.UnionType or key is not str:
            key = str
        return dict[key, input_type(value)]  # type: ignore[misc,valid-type]
    if isinstance(hint, type):
        if issubclass(hint, enum.Enum):
            return typing.Literal.__getitem__(tuple(member.value for member in hint))
        if attrs.has(hint):
            return record_input(hint)
        if typing.is_typeddict(hint):
            hints = typing.get_type_hints(hint, include_extras=True)
            required = required_keys(hint, hints)
            return body_struct(
                f"{hint.__name__}Input", hints, record=owner, rename={}, required=required
            )
        if issubclass(hint, dict):
            return dict[str, Any]
        if hint in (str, int, float, bool, date, datetime, types.NoneType):
            return hint
    return Any


def _union(members: tuple[Any, ...]) -> Any:
    takes_none = types.NoneType in members or None in members
    options = [m for m in members if m is not types.NoneType and m is not None]
    if any(isinstance(m, type) and issubclass(m, enum.Enum) for m in options):
        options = [m for m in options if m is not str]  # "Enum | str": the enum's values
    converted = [input_type(m) for m in options]
    # JSON has one string type: a union of text-like types decodes as text, which the
    # operation reads as it reads a Python caller's text ("never", "2026-11-23").
    if sum(1 for c in converted if c in _STRINGY or get_origin(c) is typing.Literal) > 1:
        converted = [
            c for c in converted if c not in _STRINGY and get_origin(c) is not typing.Literal
        ]
        converted.append(str)
    # An object may decode to one type only: the record, not also "a mapping of its fields".
    if any(isinstance(c, type) and issubclass(c, msgspec.Struct) for c in converted):
        converted = [c for c in converted if get_origin(c) is not dict]
    lists = [c for c in converted if get_origin(c) is list]
    if len(lists) > 1:
        converted = [c for c in converted if get_origin(c) is not list] + [lists[0]]
    result = functools.reduce(lambda a, b: a | b, dict.fromkeys(converted))
    return result | None if takes_none else result


def to_python(value: Any) -> Any:
    """Return a decoded body value with generated structs turned into dicts of Python names."""
    if isinstance(value, msgspec.Struct):
        names = _NAMES[type(value)]
        # Generated structs name their fields by their wire names (no rename).
        return {
            names[wire]: to_python(item)
            for wire in value.__struct_fields__
            if (item := getattr(value, wire)) is not UNSET
        }
    if isinstance(value, list):
        return [to_python(item) for item in value]
    return value


def fields_of(struct: type[msgspec.Struct]) -> dict[str, str]:
    """Return the struct's wire name -> Python name map."""
    return _NAMES[struct]
