"""
What a caller may pass: one converter per declared type, shared by every operation.

:func:`converter` compiles a type hint of an operation's signature (an argument, a key of its
``**fields`` TypedDict, or a field of an attrs record given as a nested value) into a function
that returns the accepted value or raises a slotwise ``ValidationError`` naming the argument and
the limit. The rules are those of decision 36 and the model's own types:

* ``str``: no NUL, no lone surrogate, at most :data:`TEXT_MAX` characters; an argument named
  ``id``, ``*_id`` (or an item of ``*_ids``) is an id: non-empty, at most :data:`ID_MAX`.
* ``int``: a real integer (not ``bool``) within +-2**53; ``float``: a finite number within it.
* ``date``: a date (not a datetime) in 1900-01-01..9999-12-31; ``datetime``: aware, in the
  years 1900..9998 both as wall time and in UTC.
* enums and ``Literal``: one of the values (``InvalidChoice`` lists them).
* attrs records: the record, or a mapping of its fields that is structured into it; a given
  record is checked field by field against its own annotations. A field with its own attrs
  converter also takes that converter's other forms (weekdays as ``"125"``), bounded as text,
  numbers and sequences are, and whatever the converter cannot read is ``InvalidFormat``.
* ``TypedDict`` items (``create_many``, ``update_many``): a mapping of the declared keys only
  (``UnexpectedField`` otherwise, identity keys included), each converted by its own rule.
* sequences and mappings: at most :data:`ITEMS_MAX` items, each converted.
* ``Mapping[str, Any]`` (options, payloads): JSON data nested at most :data:`JSON_DEPTH_MAX`
  levels and at most :data:`JSON_BYTES_MAX` bytes as JSON.

Everything is refused before any store is touched, so every store refuses the same input the
same way.
"""

from __future__ import annotations

import collections.abc as abc
import enum
import itertools
import json
import math
import types
import typing
from collections.abc import Callable, Mapping
from datetime import date, datetime
from typing import Any, Final, Literal, NoReturn, Union, get_args, get_origin

import attrs

from slotwise.errors import (
    FieldRequired,
    FieldTooLong,
    InvalidChoice,
    InvalidFormat,
    NaiveDatetime,
    OutOfRange,
    SlotwiseError,
    UnexpectedField,
)
from slotwise.model._checks import check_date_bounds, check_instant_bounds

__all__ = [
    "IDENTITY_FIELDS",
    "ID_MAX",
    "INT_LIMIT",
    "ITEMS_MAX",
    "JSON_BYTES_MAX",
    "JSON_DEPTH_MAX",
    "TEXT_MAX",
    "Converter",
    "WrongKind",
    "converter",
    "id_mode",
    "required_keys",
    "stripped",
]

INT_LIMIT: Final = 2**53
"""Largest magnitude of an integer (what a JSON number holds exactly; decision 36)."""
TEXT_MAX: Final = 65_536
"""Longest string of any argument; the model's fields have their own, smaller limits."""
ID_MAX: Final = 255
"""Longest id (what a SQL store's key column holds)."""
ITEMS_MAX: Final = 1_000
"""Most items of one sequence or mapping argument."""
JSON_DEPTH_MAX: Final = 32
JSON_BYTES_MAX: Final = 65_536

IDENTITY_FIELDS: Final = frozenset(
    {
        "id",
        "company_id",
        "location_id",
        "target",
        "target_id",
        "customer_id",
        "is_primary",
        "deleted",
        "deleted_time",
        "created_at",
    }
)
"""Fields no update changes: identity, placement and bookkeeping (decision 35)."""

Converter = Callable[[Any, str], Any]
"""``convert(value, field)``: the accepted value, or a ``ValidationError`` naming *field*."""

Mode = Literal["text", "id", "ids"]


class WrongKind(Exception):
    """
    The value is not of the declared kind at all (internal to the boundary).

    A union tries its next member on it; anywhere else it becomes ``InvalidFormat``.
    """

    def __init__(self, expected: str) -> None:
        super().__init__(expected)
        self.expected = expected


def id_mode(name: str) -> Mode:
    """Return how the strings of the argument *name* are read: as ids or as text."""
    if name == "id" or name.endswith("_id") or name == "idempotency_key":
        return "id"
    if name.endswith("_ids"):
        return "ids"
    return "text"


def stripped(hint: Any) -> Any:
    """Return *hint* without its ``Required[...]`` or ``NotRequired[...]`` marker."""
    if get_origin(hint) in (typing.Required, typing.NotRequired):
        return get_args(hint)[0]
    return hint


def required_keys(fields: Any, hints: Mapping[str, Any]) -> frozenset[str]:
    """Return the required keys of the TypedDict *fields*, whose resolved *hints* are given."""
    # With postponed annotations (PEP 563) a TypedDict cannot see ``Required[...]`` when it is
    # built, so ``__required_keys__`` misses them; the resolved hints show them.
    marked = {key for key, hint in hints.items() if get_origin(hint) is typing.Required}
    unmarked = {key for key, hint in hints.items() if get_origin(hint) is typing.NotRequired}
    return frozenset((set(fields.__required_keys__) | marked) - unmarked)


def converter(hint: Any, *, name: str) -> Converter:
    """
    Return the converter of an argument *name* declared as *hint*.

    Raises:
        TypeError: when slotwise has no rule for *hint* (a declaration bug, found at the first
            call of the operation).
    """
    inner = _compile(hint, id_mode(name))

    def convert(value: Any, field: str) -> Any:
        return _item(inner, value, field)

    return convert


_cache: dict[tuple[Any, Mode], Converter] = {}


def _compile(hint: Any, mode: Mode) -> Converter:
    try:
        return _cache[hint, mode]
    except KeyError:
        pass
    except TypeError:  # an unhashable hint: compile it every time
        return _build(hint, mode)
    built = _cache[hint, mode] = _build(hint, mode)
    return built


_SEQUENCES: Final = {
    abc.Sequence,
    abc.Iterable,
    abc.Collection,
    abc.Set,
    list,
    tuple,
    set,
    frozenset,
}
_MAPPINGS: Final = {abc.Mapping, dict}


def _build(hint: Any, mode: Mode) -> Converter:
    if hint is Any or hint is object or isinstance(hint, typing.TypeVar):
        return _anything
    if hint is None or hint is types.NoneType:
        return _none
    origin = get_origin(hint)
    if origin is typing.Annotated:
        return _compile(get_args(hint)[0], mode)
    if origin is Union or origin is types.UnionType:
        return _union(get_args(hint), mode)
    if origin is Literal:
        return _literal(get_args(hint))
    if origin in _SEQUENCES:
        return _sequence(origin, get_args(hint), mode)
    if origin in _MAPPINGS:
        return _mapping(get_args(hint), mode)
    if isinstance(hint, type):
        return _of_class(hint, mode)
    raise TypeError(f"slotwise has no input rule for {hint!r}")


def _of_class(hint: type, mode: Mode) -> Converter:
    if hint is bool:
        return _bool
    if hint is int:
        return _int
    if hint is float:
        return _float
    if hint is str:
        return _id if mode == "id" else _text
    if hint is datetime:
        return _datetime
    if hint is date:
        return _date
    if issubclass(hint, enum.Enum):
        return _enum(hint)
    if attrs.has(hint):
        return _record(hint)
    if typing.is_typeddict(hint):
        return _typed_dict(hint)
    if issubclass(hint, dict):  # FrozenJSON and plain dicts: JSON objects
        return _json_object
    if getattr(hint, "_is_protocol", False):
        return _anything  # a host's plugin object: structural, nothing to check here
    return _instance(hint)


# -- leaves ----------------------------------------------------------------------------------


def _anything(value: Any, _field: str) -> Any:
    return value


def _none(value: Any, _field: str) -> Any:
    if value is not None:
        raise WrongKind("None")
    return None


def _bool(value: Any, _field: str) -> bool:
    if not isinstance(value, bool):
        raise WrongKind("true or false")
    return value


def _int(value: Any, field: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise WrongKind("an integer")
    if not -INT_LIMIT <= value <= INT_LIMIT:
        raise OutOfRange(field=field, allowed=f"within +-{INT_LIMIT}", requested=value)
    # An int subclass (an IntEnum, say) is stored as the plain number it stands for.
    return value if type(value) is int else int.__index__(value)


def _float(value: Any, field: str) -> float | int:
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise WrongKind("a number")
    if isinstance(value, float) and not math.isfinite(value):
        raise InvalidFormat(field=field, expected="a finite number", value=value)
    if not -INT_LIMIT <= value <= INT_LIMIT:
        raise OutOfRange(field=field, allowed=f"within +-{INT_LIMIT}", requested=value)
    return value


def _checked_text(value: Any, field: str, *, limit: int, expected: str) -> str:
    if not isinstance(value, str):
        raise WrongKind(expected)
    if len(value) > limit:
        raise FieldTooLong(field=field, limit=limit, requested=len(value))
    text = value if type(value) is str else str.__str__(value)
    if "\x00" in text:
        raise InvalidFormat(field=field, expected="text without NUL characters", value=text)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidFormat(
            field=field, expected="valid Unicode text (no lone surrogates)", value=text
        ) from None
    return text


def _text(value: Any, field: str) -> str:
    return _checked_text(value, field, limit=TEXT_MAX, expected="a string")


def _id(value: Any, field: str) -> str:
    text = _checked_text(value, field, limit=ID_MAX, expected="an id (a non-empty string)")
    if not text:
        raise InvalidFormat(field=field, expected="an id (a non-empty string)", value=text)
    return text


def _date(value: Any, field: str) -> date:
    if not isinstance(value, date) or isinstance(value, datetime):
        raise WrongKind("a date")
    return check_date_bounds(value, field=field)


def _datetime(value: Any, field: str) -> datetime:
    if not isinstance(value, datetime):
        raise WrongKind("an aware datetime")
    try:
        offset = value.utcoffset()
    except Exception as exc:  # a tzinfo that cannot answer is no zone at all
        raise InvalidFormat(field=field, expected="an aware datetime", value=value) from exc
    if offset is None:
        raise NaiveDatetime(field=field)
    return check_instant_bounds(value, field=field)


def _enum(kind: type[enum.Enum]) -> Converter:
    allowed = tuple(member.value for member in kind)

    def convert(value: Any, field: str) -> enum.Enum:
        if isinstance(value, kind):
            return value
        if isinstance(value, bool) or not isinstance(value, str | int):
            raise InvalidChoice(field=field, allowed=allowed, requested=value)
        try:
            return kind(value)
        except ValueError:
            raise InvalidChoice(field=field, allowed=allowed, requested=value) from None

    return convert


def _literal(choices: tuple[Any, ...]) -> Converter:
    def convert(value: Any, field: str) -> Any:
        for choice in choices:
            # True == 1 in Python; a Literal["IN"] or Literal[1] takes only its own kind.
            if type(value) is type(choice) and value == choice:
                return choice
        raise InvalidChoice(field=field, allowed=choices, requested=value)

    return convert


def _instance(kind: type) -> Converter:
    def convert(value: Any, _field: str) -> Any:
        if not isinstance(value, kind):
            raise WrongKind(f"a {kind.__name__}")
        return value

    return convert


# -- compounds ------------------------------------------------------------------------------


def _union(members: tuple[Any, ...], mode: Mode) -> Converter:
    # "SomeEnum | str" means the enum or its value as text: the text is checked as the enum.
    if any(isinstance(m, type) and issubclass(m, enum.Enum) for m in members):
        members = tuple(m for m in members if m is not str)
    takes_none = any(m is None or m is types.NoneType for m in members)
    options = [_compile(m, mode) for m in members if m is not None and m is not types.NoneType]

    def convert(value: Any, field: str) -> Any:
        if value is None and takes_none:
            return None
        expected: list[str] = []
        for option in options:
            try:
                return option(value, field)
            except WrongKind as wrong:
                expected.append(wrong.expected)
        raise WrongKind(" or ".join(dict.fromkeys(expected)))

    return convert


def _item(convert: Converter, value: Any, field: str) -> Any:
    """Convert one value; a value of the wrong kind is ``InvalidFormat``, a missing one required."""
    try:
        return convert(value, field)
    except WrongKind as wrong:
        if value is None:
            raise FieldRequired(field=field) from None
        raise InvalidFormat(field=field, expected=wrong.expected, value=value) from None


def _too_many(field: str, count: int | str) -> NoReturn:
    raise OutOfRange(field=field, allowed=f"at most {ITEMS_MAX} items", requested=count)


def _sequence(origin: Any, args: tuple[Any, ...], mode: Mode) -> Converter:
    item_mode: Mode = "id" if mode in ("id", "ids") else "text"
    if origin is tuple and args and (len(args) != 2 or args[1] is not Ellipsis):
        return _fixed_tuple(tuple(_compile(arg, item_mode) for arg in args))
    convert_item = _compile(args[0] if args else Any, item_mode)
    as_set = origin in (frozenset, set, abc.Set)

    def convert(value: Any, field: str) -> Any:
        if isinstance(value, str | bytes | bytearray | Mapping) or not isinstance(
            value, abc.Iterable
        ):
            raise WrongKind("a sequence (a list or tuple)")
        if isinstance(value, abc.Sized):
            if len(value) > ITEMS_MAX:
                _too_many(field, len(value))
            items = list(value)
        else:  # a generator: read one item past the limit to tell it is too long
            items = list(itertools.islice(value, ITEMS_MAX + 1))
            if len(items) > ITEMS_MAX:
                _too_many(field, f"more than {ITEMS_MAX}")
        converted = [_item(convert_item, item, f"{field}[{i}]") for i, item in enumerate(items)]
        return frozenset(converted) if as_set else tuple(converted)

    return convert


def _fixed_tuple(items: tuple[Converter, ...]) -> Converter:
    def convert(value: Any, field: str) -> tuple[Any, ...]:
        if not isinstance(value, list | tuple) or len(value) != len(items):
            raise WrongKind(f"a sequence of {len(items)} items")
        return tuple(
            _item(c, v, f"{field}[{i}]") for i, (c, v) in enumerate(zip(items, value, strict=True))
        )

    return convert


def _mapping(args: tuple[Any, ...], mode: Mode) -> Converter:
    key_hint, value_hint = args if args else (str, Any)
    if value_hint is Any or value_hint is object:
        return _json_object
    convert_key = _compile(key_hint, "text")
    convert_value = _compile(value_hint, mode)

    def convert(value: Any, field: str) -> dict[Any, Any]:
        if not isinstance(value, Mapping):
            raise WrongKind("a mapping")
        if len(value) > ITEMS_MAX:
            _too_many(field, len(value))
        result: dict[Any, Any] = {}
        for key, item in value.items():
            name = f"{field}[{key!r}]" if isinstance(key, str) and len(key) <= 60 else field
            result[_item(convert_key, key, field)] = _item(convert_value, item, name)
        return result

    return convert


def _record(kind: type) -> Converter:
    fields: list[tuple[str, str, Converter]] = []
    required: set[str] = set()
    # Fields with their own attrs converter also take what that converter takes (weekdays
    # "12345"); the record built from them is checked against the annotations.
    converted: dict[str, Callable[[Any], Any]] = {}
    ready = False

    def prepare() -> None:
        nonlocal ready
        # Annotations are resolved at the first use: the module defining *kind* is complete
        # by then, whatever order the classes were defined in.
        hints = typing.get_type_hints(kind)
        for attribute in attrs.fields(kind):
            if not attribute.init:
                continue
            alias = attribute.alias or attribute.name
            fields.append((attribute.name, alias, _compile(hints[attribute.name], id_mode(alias))))
            if attribute.default is attrs.NOTHING:
                required.add(alias)
            if attribute.converter is not None:
                converted[alias] = attribute.converter
        ready = True

    def check(record: Any, field: str) -> Any:
        for name, alias, convert_field in fields:
            _item(convert_field, getattr(record, name), f"{field}.{alias}")
        return record

    def structure(alias: str, convert_field: Converter, value: Any, field: str) -> Any:
        if alias not in converted or value is None:
            return _item(convert_field, value, field)
        try:
            return convert_field(value, field)
        except WrongKind as wrong:
            # Another form the record's own converter reads; bounded here like any input.
            _plain(value, field, wrong.expected)
            try:
                converted[alias](value)
            except SlotwiseError:
                raise
            except (TypeError, ValueError, OverflowError, AttributeError):
                raise InvalidFormat(field=field, expected=wrong.expected, value=value) from None
            return value

    def build(values: dict[str, Any], value: Any, field: str) -> Any:
        try:
            return kind(**values)
        except SlotwiseError:
            raise
        except (TypeError, ValueError, OverflowError, AttributeError):
            # A converter met a value of a form it does not read: a wrong value, not a crash.
            raise InvalidFormat(
                field=field, expected=f"a {kind.__name__} or a mapping of its fields", value=value
            ) from None

    def convert(value: Any, field: str) -> Any:
        if not ready:
            prepare()
        if isinstance(value, kind):
            # A record built by the caller: its validators ran, but not every field has one
            # (a Holiday's date given as text used to pass); check each against its type.
            return check(value, field)
        if not isinstance(value, Mapping):
            raise WrongKind(f"a {kind.__name__} or a mapping of its fields")
        allowed = [alias for _, alias, _ in fields]
        for key in value:
            if not isinstance(key, str) or key not in allowed:
                raise UnexpectedField(field=f"{field}.{_key_name(key)}", allowed=allowed)
        for alias in sorted(required - set(value)):
            raise FieldRequired(field=f"{field}.{alias}")
        values = {
            alias: structure(alias, convert_field, value[alias], f"{field}.{alias}")
            for _, alias, convert_field in fields
            if alias in value
        }
        record = build(values, value, field)
        return check(record, field) if converted else record

    return convert


def _plain(value: Any, field: str, expected: str) -> Any:
    """
    Accept *value* for a record's own converter only if it is plain, bounded data.

    Text, numbers and short sequences of them pass with the bounds of their kind; anything else
    (an object, a mapping where the record has no nested record) is not a form of the field.
    """
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        return _text(value, field)
    if isinstance(value, int | float):
        return _float(value, field)
    if isinstance(value, list | tuple | set | frozenset):
        if len(value) > ITEMS_MAX:
            _too_many(field, len(value))
        for index, item in enumerate(value):
            if isinstance(item, list | tuple | set | frozenset | Mapping):
                raise InvalidFormat(field=f"{field}[{index}]", expected=expected, value=item)
            _plain(item, f"{field}[{index}]", expected)
        return value
    raise InvalidFormat(field=field, expected=expected, value=value)


def _typed_dict(kind: type) -> Converter:
    keys: dict[str, Converter] = {}
    required: set[str] = set()

    def prepare() -> None:
        hints = typing.get_type_hints(kind, include_extras=True)
        required.update(required_keys(kind, hints))
        keys.update({key: converter(stripped(hint), name=key) for key, hint in hints.items()})

    def convert(value: Any, field: str) -> dict[str, Any]:
        if not keys:
            prepare()
        if not isinstance(value, Mapping):
            raise WrongKind(f"a mapping of {kind.__name__} keys")
        allowed = sorted(keys)
        for key in value:
            if not isinstance(key, str) or key not in keys:
                reason = (
                    "cannot be set here: a record keeps its identity and its place"
                    if key in IDENTITY_FIELDS
                    else None
                )
                raise UnexpectedField(
                    field=f"{field}.{_key_name(key)}", allowed=allowed, reason=reason
                )
        for key in sorted(required - set(value)):
            raise FieldRequired(field=f"{field}.{key}")
        return {key: keys[key](item, f"{field}.{key}") for key, item in value.items()}

    return convert


def _key_name(key: object) -> str:
    """Return a mapping key as it may appear in an error's field name (short, printable)."""
    if isinstance(key, str) and len(key) <= 60 and key.isprintable():
        return key
    return f"[{_shown_key(key)}]"


def _shown_key(key: object) -> str:
    text = repr(key) if not isinstance(key, str) else repr(key[:40])
    return text if len(text) <= 60 else text[:57] + "..."


# -- JSON data ------------------------------------------------------------------------------


def _json_object(value: Any, field: str) -> Any:
    if not isinstance(value, Mapping):
        raise WrongKind("a mapping of JSON data")
    _check_json(value, field)
    return value


def _check_json(value: Any, field: str) -> None:
    """
    Refuse what is not JSON data within decision 36's bounds.

    The walk keeps its own stack, so a value nested a thousand levels deep is refused rather
    than exhausting Python's recursion limit, and it stops as soon as the value is certainly
    too large, so a 20 MB value costs no more than the first 64 KiB of it.
    """
    budget = JSON_BYTES_MAX
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        budget -= 1
        if isinstance(item, Mapping | list | tuple):
            if depth > JSON_DEPTH_MAX:
                raise OutOfRange(
                    field=field,
                    allowed=f"JSON nested at most {JSON_DEPTH_MAX} levels deep",
                    requested=f"more than {JSON_DEPTH_MAX} levels",
                )
            if isinstance(item, Mapping):
                for key in item:
                    if not isinstance(key, str):
                        raise InvalidFormat(field=field, expected="string keys", value=key)
                    budget -= len(_checked_text(key, field, limit=TEXT_MAX, expected="text"))
                stack.extend((child, depth + 1) for child in item.values())
            else:
                stack.extend((child, depth + 1) for child in item)
        elif isinstance(item, str):
            budget -= len(_checked_text(item, field, limit=TEXT_MAX, expected="text"))
        elif isinstance(item, bool) or item is None:
            pass
        elif isinstance(item, int | float):
            _float(item, field)
        else:
            raise InvalidFormat(
                field=field,
                expected="JSON data (objects, arrays, strings, numbers, booleans, null)",
                value=item,
            )
        if budget < 0:
            _too_large(field, f"more than {JSON_BYTES_MAX} bytes")
    size = len(json.dumps(value, default=dict, ensure_ascii=False).encode("utf-8"))
    if size > JSON_BYTES_MAX:
        _too_large(field, f"{size} bytes")


def _too_large(field: str, requested: str) -> NoReturn:
    raise OutOfRange(
        field=field, allowed=f"at most {JSON_BYTES_MAX} bytes as JSON", requested=requested
    )
