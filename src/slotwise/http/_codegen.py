"""
The generated functions that give a record its wire form, in two targets from one field table.

``dump`` returns the spec's JSON object as builtins (a dict of plain values: what a webhook's
``data``, a JSON Patch and a host's own code read). ``build`` returns the same object as an
instance of a :mod:`msgspec` ``Struct`` whose fields are the wire names, for the HTTP answer:
msgspec encodes it straight to bytes, so an answer makes no dict per record, and enum members,
tuples and ``None`` go to the encoder as they are instead of through a Python call per field.
Both encode to the same JSON (``tests/http/test_wire_build.py`` holds them to it).

The functions are generated source, as attrs generates ``__init__``: an availability week holds
over a hundred slots of fourteen fields, and a loop over a field table costs twice as much.
"""

from __future__ import annotations

import collections.abc as abc
import enum
import types
from collections.abc import Callable, Sequence
from datetime import datetime, tzinfo
from typing import Any, Union, get_args, get_origin

import attrs

__all__ = [
    "Converter",
    "Nested",
    "builtins",
    "compile_record",
    "converter",
    "generic",
    "identity",
    "local",
]

Converter = Callable[[Any], Any]
Nested = Callable[[type, bool], Converter]
"""``(attrs class, build)``: that class's ``build`` function (``True``) or its ``dump``."""


def identity(value: Any) -> Any:
    """Return *value*: a field that crosses the wire as it is."""
    return value


def local(instant: datetime | None, zone: tzinfo | None) -> datetime | None:
    """Return *instant* in *zone* (``None``: as stored, UTC)."""
    # Decision 43: every instant of a located record carries its location's offset.
    return instant if instant is None or zone is None else instant.astimezone(zone)


def _enum_value(value: Any) -> Any:
    return None if value is None else value.value


_PLAIN = frozenset({str, int, float, bool, types.NoneType})


def builtins(nested: Nested, *, build: bool) -> Converter:
    """
    Return the converter of a value of no single declared type (a union's member, a mapping's
    item): attrs records by their shape, containers item by item. For *build*, enum members and
    other values msgspec encodes natively stay as they are.
    """

    def convert(value: Any) -> Any:
        kind = type(value)
        if kind in _PLAIN:
            return value
        if isinstance(value, dict):  # before the attrs check: a record is never a dict
            return {key: convert(item) for key, item in value.items()}
        if getattr(kind, "__attrs_attrs__", None) is not None:  # attrs.has, without its checks
            return nested(kind, build)(value)
        if isinstance(value, enum.Enum):
            return value if build else value.value
        if isinstance(value, abc.Mapping):
            return {key: convert(item) for key, item in value.items()}
        if isinstance(value, list | tuple | frozenset | set | abc.Sequence) and not isinstance(
            value, str | bytes
        ):
            return [convert(item) for item in value]
        return value

    return convert


def generic(hint: Any) -> Any:
    """
    Return *hint*, or ``Sequence[X]`` for a class of its own that is a ``Sequence[X]``.

    A field may hold a sequence class of slotwise's (``Slots``, a ``Sequence[Slot]``): it
    crosses the wire as the JSON array of its items.
    """
    if isinstance(hint, type) and issubclass(hint, abc.Sequence) and hint not in _BUILT_IN:
        for base in getattr(hint, "__orig_bases__", ()):
            if get_origin(base) is abc.Sequence:
                return base
    return hint


_BUILT_IN = frozenset({str, bytes, tuple, list, range, memoryview, bytearray})


def converter(hint: Any, nested: Nested, *, build: bool) -> Converter:
    """Return the converter of a record field declared as *hint* (:func:`identity`: none)."""
    hint = generic(hint)
    origin = get_origin(hint)
    if origin is Union or origin is types.UnionType:
        members = [m for m in get_args(hint) if m is not types.NoneType]
        if len(members) == 1:
            inner = converter(members[0], nested, build=build)
            if inner is identity:
                return identity
            return lambda value: None if value is None else inner(value)
        return builtins(nested, build=build)
    if origin in (tuple, list, frozenset, set, abc.Sequence, abc.Set):
        args = [a for a in get_args(hint) if a is not Ellipsis]
        inner = converter(args[0], nested, build=build) if args else builtins(nested, build=build)
        if inner is identity:
            # msgspec writes a tuple, a list or a set (in iteration order) as a JSON array.
            return identity if build else list
        return lambda values: [inner(v) for v in values]
    if origin in (abc.Mapping, dict):
        return builtins(nested, build=build)
    if isinstance(hint, type):
        if issubclass(hint, enum.Enum):
            return identity if build else _enum_value  # msgspec writes a member's value
        if attrs.has(hint):
            return nested(hint, build)
        if issubclass(hint, dict):  # FrozenJSON: a JSON object (msgspec writes dict subclasses)
            return identity if build else dict
    return identity


def compile_record(
    fields: Sequence[tuple[str, str, Converter]],
    derived: Sequence[tuple[str, Callable[..., Any], str]],
    instants: frozenset[str] = frozenset(),
    *,
    struct: type | None = None,
) -> Callable[..., Any]:
    """
    Return a function giving a record's wire form in one expression.

    *fields* are ``(attribute, wire name, converter)``, *derived* ``(wire name, function,
    needs)`` where *needs* is what the function takes besides the record (``""``, ``"zone"``
    or ``"lookups"``). The function takes the record, the zone of its location (decision 43:
    the *instants* fields and the zoned derived fields are given in it; ``None``: UTC) and the
    request's lookups. Without *struct* it returns a dict display; with it, ``struct(...)``
    with the values in field order (the struct's fields are the wire names in that order).
    """
    namespace: dict[str, Any] = {"_local": local, "_struct": struct}
    values: list[tuple[str, str]] = []
    for number, (name, key, convert) in enumerate(fields):
        if name in instants:
            values.append((key, f"_local(record.{name}, zone)"))
        elif convert is identity:
            values.append((key, f"record.{name}"))
        else:
            namespace[f"convert{number}"] = convert
            values.append((key, f"convert{number}(record.{name})"))
    for number, (key, value, needs) in enumerate(derived):
        namespace[f"derive{number}"] = value
        extra = f", {needs}" if needs else ""
        values.append((key, f"derive{number}(record{extra})"))
    if struct is None:
        body = ["    return {", *(f"        {key!r}: {value}," for key, value in values), "    }"]
    else:
        body = ["    return _struct(", *(f"        {value}," for _, value in values), "    )"]
    source = "\n".join(["def wire(record, zone=None, lookups=None):", *body])
    exec(source, namespace)  # the source holds attrs field names and wire names only
    function: Callable[..., Any] = namespace["wire"]
    return function
