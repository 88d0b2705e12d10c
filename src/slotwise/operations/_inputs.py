"""
What a caller may pass: one converter per declared type, shared by every operation.

:func:`converter` compiles a type hint of an operation's signature (an argument, a key of its
``**fields`` TypedDict, or a field of an attrs record given as a nested value) into a function
that returns the accepted value or raises a slotwise ``ValidationError`` naming the argument and
the limit. The rules are those of decision 36 and the model's own types:

* ``str``: no NUL, no lone surrogate, at most :data:`._values.TEXT_MAX` characters; an argument named
  ``id``, ``*_id`` (or an item of ``*_ids``) is an id: non-empty, at most :data:`._values.ID_MAX`.
* ``int``: a real integer (not ``bool``) within +-2**53; ``float``: a finite number within it.
* ``date``: a date (not a datetime) in 1900-01-01..9999-12-31; ``datetime``: aware, in the
  years 1900..9998 both as wall time and in UTC.
* enums and ``Literal``: one of the values (``InvalidChoice`` lists them).
* attrs records: the record, or a mapping of its fields that is structured into it; a given
  record is checked field by field against its own annotations. In an update's changes (the
  keys of a ``...Changes`` TypedDict) a mapping gives the record in part: its keys are converted
  and handed over as a :class:`._partial.Partial`, laid onto the stored value by the operation
  (a repeat rule and a day of hours are given whole: ``_partial.given_whole``). A field with its
  own attrs converter also takes that converter's other forms (weekdays as ``"125"``), bounded as
  text, numbers and sequences are, and whatever the converter cannot read is ``InvalidFormat``.
* ``TypedDict`` items (``create_many``, ``update_many``): a mapping of the declared keys only
  (``UnexpectedField`` otherwise, identity keys included), each converted by its own rule.
* sequences and mappings: at most :data:`._values.ITEMS_MAX` items, each converted.
* ``Mapping[str, Any]`` (options, payloads): JSON data nested at most :data:`._values.JSON_DEPTH_MAX`
  levels and at most :data:`._values.JSON_BYTES_MAX` bytes as JSON.

Everything is refused before any store is touched, so every store refuses the same input the
same way.
"""

from __future__ import annotations

import collections.abc as abc
import enum
import itertools
import types
import typing
from collections.abc import Callable, Mapping
from datetime import date, datetime
from typing import Any, Final, Literal, NoReturn, Union, get_args, get_origin

import attrs

from slotwise.errors import (
    FieldRequired,
    InvalidFormat,
    OutOfRange,
    SlotwiseError,
    UnexpectedField,
)

from ._partial import Partial, given_whole, placed
from ._quick import quick as _quick
from ._values import (
    ITEMS_MAX,
    Converter,
    WrongKind,
    anything,
    aware_datetime,
    boolean,
    enum_of,
    identifier,
    instance_of,
    integer,
    json_object,
    key_name,
    literal_of,
    none,
    number,
    plain_date,
    text,
)

__all__ = [
    "IDENTITY_FIELDS",
    "Converter",
    "changes_in_part",
    "converter",
    "id_mode",
    "required_keys",
    "stripped",
]

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


Mode = Literal["text", "id", "ids"]


def id_mode(name: str) -> Mode:
    """Return how the strings of the argument *name* are read: as ids or as text."""
    if name == "id" or name.endswith("_id") or name == "idempotency_key":
        return "id"
    if name.endswith("_ids"):
        return "ids"
    return "text"


def changes_in_part(fields: type) -> bool:
    """Tell whether the TypedDict *fields* holds an update's changes (``...Changes``)."""
    return fields.__name__.endswith("Changes")


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


def converter(hint: Any, *, name: str, partial: bool = False) -> Converter:
    """
    Return the converter of an argument *name* declared as *hint*; with *partial*, a mapping
    for a nested record gives it in part (an update's changes).

    Raises:
        TypeError: when slotwise has no rule for *hint* (a declaration bug, found at the first
            call of the operation).
    """
    mode = id_mode(name)
    inner = _compile(hint, mode, partial)

    def convert(value: Any, field: str) -> Any:
        # _item, inlined: every argument of every call passes here.
        try:
            return inner(value, field)
        except WrongKind as wrong:
            if value is None:
                raise FieldRequired(field=field) from None
            raise InvalidFormat(field=field, expected=wrong.expected, value=value) from None

    return _quick(hint, mode, convert) or convert


_cache: dict[tuple[Any, Mode, bool], Converter] = {}


def _compile(hint: Any, mode: Mode, partial: bool = False) -> Converter:
    try:
        return _cache[hint, mode, partial]
    except KeyError:
        pass
    except TypeError:  # an unhashable hint: compile it every time
        return _build(hint, mode, partial)
    built = _cache[hint, mode, partial] = _build(hint, mode, partial)
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


def _build(hint: Any, mode: Mode, partial: bool) -> Converter:
    if hint is Any or hint is object or isinstance(hint, typing.TypeVar):
        return anything
    if hint is None or hint is types.NoneType:
        return none
    origin = get_origin(hint)
    if origin is typing.Annotated:
        return _compile(get_args(hint)[0], mode, partial)
    if origin is Union or origin is types.UnionType:
        return _union(get_args(hint), mode, partial)
    if origin is Literal:
        return literal_of(get_args(hint))
    if origin in _SEQUENCES:
        return _sequence(origin, get_args(hint), mode)
    if origin in _MAPPINGS:
        return _mapping(get_args(hint), mode)
    if isinstance(hint, type):
        return _of_class(hint, mode, partial)
    raise TypeError(f"slotwise has no input rule for {hint!r}")


def _of_class(hint: type, mode: Mode, partial: bool) -> Converter:
    if hint is bool:
        return boolean
    if hint is int:
        return integer
    if hint is float:
        return number
    if hint is str:
        return identifier if mode == "id" else text
    if hint is datetime:
        return aware_datetime
    if hint is date:
        return plain_date
    if issubclass(hint, enum.Enum):
        return enum_of(hint)
    if attrs.has(hint):
        return _record(hint, partial and not given_whole(hint))
    if typing.is_typeddict(hint):
        return _typed_dict(hint)
    if issubclass(hint, dict):  # FrozenJSON and plain dicts: JSON objects
        return json_object
    if getattr(hint, "_is_protocol", False):
        return anything  # a host's plugin object: structural, nothing to check here
    return instance_of(hint)


# -- compounds ------------------------------------------------------------------------------


def _union(members: tuple[Any, ...], mode: Mode, partial: bool) -> Converter:
    # "SomeEnum | str" means the enum or its value as text: the text is checked as the enum.
    if any(isinstance(m, type) and issubclass(m, enum.Enum) for m in members):
        members = tuple(m for m in members if m is not str)
    takes_none = any(m is None or m is types.NoneType for m in members)
    options = [
        _compile(m, mode, partial) for m in members if m is not None and m is not types.NoneType
    ]

    if takes_none and len(options) == 1:
        # "X | None", the most common union: no list of what each option expected.
        (only,) = options

        def convert_optional(value: Any, field: str) -> Any:
            return None if value is None else only(value, field)

        return convert_optional

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
        return json_object
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


def _record(kind: type, partial: bool) -> Converter:
    fields: list[tuple[str, str, Converter]] = []
    required: set[str] = set()
    # Fields with their own attrs converter also take what that converter takes (weekdays
    # "12345"); the record built from them is checked against the annotations.
    converted: dict[str, Callable[[Any], Any]] = {}
    names: dict[str, str] = {}
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
            convert_field = _compile(hints[attribute.name], id_mode(alias), partial)
            fields.append((attribute.name, alias, convert_field))
            names[alias] = attribute.name
            if attribute.default is attrs.NOTHING:
                required.add(alias)
            if attribute.converter is not None:
                converted[alias] = attribute.converter
        ready = True

    def check(record: Any, field: str) -> Any:
        for name, alias, convert_field in fields:
            _item(convert_field, getattr(record, name), f"{field}.{alias}")
        return record

    def settled(record: Any, field: str) -> Any:
        # A field's own converter may have read another form: the result is checked too.
        return check(record, field) if converted else record

    def whole(values: dict[str, Any], field: str) -> Any:
        for alias in sorted(required - set(values)):
            raise FieldRequired(field=f"{field}.{alias}")
        return settled(build(values, values, field), field)

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
            except SlotwiseError as error:
                raise placed(error, field.rpartition(".")[0], names) from error.__cause__
            except (TypeError, ValueError, OverflowError, AttributeError):
                raise InvalidFormat(field=field, expected=wrong.expected, value=value) from None
            return value

    def build(values: dict[str, Any], value: Any, field: str) -> Any:
        try:
            return kind(**values)
        except SlotwiseError as error:
            raise placed(error, field, names) from error.__cause__
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
                raise UnexpectedField(field=f"{field}.{key_name(key)}", allowed=allowed)
        if not partial:
            for alias in sorted(required - set(value)):
                raise FieldRequired(field=f"{field}.{alias}")
        values = {
            alias: structure(alias, convert_field, value[alias], f"{field}.{alias}")
            for _, alias, convert_field in fields
            if alias in value
        }
        if partial:
            return Partial(kind, values, names, whole, settled)
        return settled(build(values, value, field), field)

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
        return text(value, field)
    if isinstance(value, int | float):
        return number(value, field)
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
        partial = changes_in_part(kind)
        keys.update(
            {
                key: converter(stripped(hint), name=key, partial=partial)
                for key, hint in hints.items()
            }
        )

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
                    field=f"{field}.{key_name(key)}", allowed=allowed, reason=reason
                )
        for key in sorted(required - set(value)):
            raise FieldRequired(field=f"{field}.{key}")
        return {key: keys[key](item, f"{field}.{key}") for key, item in value.items()}

    return convert
