"""
The leaves of the input rules (:mod:`._inputs` compiles type hints into them): numbers, text,
ids, dates, instants, choices and JSON data, each within decision 36's bounds.

A rule returns the accepted value, raises a slotwise ``ValidationError`` naming the field, or
raises :class:`WrongKind` when the value is not of its kind at all (a union then tries its next
member).
"""

from __future__ import annotations

import enum
import json
import math
from collections.abc import Callable, Mapping
from datetime import date, datetime
from typing import Any, Final, NoReturn

from slotwise.errors import FieldTooLong, InvalidChoice, InvalidFormat, NaiveDatetime, OutOfRange
from slotwise.model._checks import check_date_bounds, check_instant_bounds

__all__ = [
    "ID_MAX",
    "INT_LIMIT",
    "ITEMS_MAX",
    "JSON_BYTES_MAX",
    "JSON_DEPTH_MAX",
    "TEXT_MAX",
    "Converter",
    "WrongKind",
    "anything",
    "aware_datetime",
    "boolean",
    "checked_text",
    "enum_of",
    "identifier",
    "instance_of",
    "integer",
    "json_object",
    "key_name",
    "literal_of",
    "none",
    "number",
    "plain_date",
    "text",
    "too_deep",
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


def too_deep(field: str) -> OutOfRange:
    """Return the error of JSON nested deeper than :data:`JSON_DEPTH_MAX` in *field*."""
    return OutOfRange(
        field=field,
        allowed=f"JSON nested at most {JSON_DEPTH_MAX} levels deep",
        requested=f"more than {JSON_DEPTH_MAX} levels",
    )


Converter = Callable[[Any, str], Any]
"""``convert(value, field)``: the accepted value, or a ``ValidationError`` naming *field*."""


class WrongKind(Exception):
    """
    The value is not of the declared kind at all (internal to the boundary).

    A union tries its next member on it; anywhere else it becomes ``InvalidFormat``.
    """

    def __init__(self, expected: str) -> None:
        super().__init__(expected)
        self.expected = expected


def anything(value: Any, _field: str) -> Any:
    return value


def none(value: Any, _field: str) -> Any:
    if value is not None:
        raise WrongKind("None")
    return None


def boolean(value: Any, _field: str) -> bool:
    if not isinstance(value, bool):
        raise WrongKind("true or false")
    return value


def integer(value: Any, field: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise WrongKind("an integer")
    if not -INT_LIMIT <= value <= INT_LIMIT:
        raise OutOfRange(field=field, allowed=f"within +-{INT_LIMIT}", requested=value)
    # An int subclass (an IntEnum, say) is stored as the plain number it stands for.
    return value if type(value) is int else int.__index__(value)


def number(value: Any, field: str) -> float | int:
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise WrongKind("a number")
    if isinstance(value, float) and not math.isfinite(value):
        raise InvalidFormat(field=field, expected="a finite number", value=value)
    if not -INT_LIMIT <= value <= INT_LIMIT:
        raise OutOfRange(field=field, allowed=f"within +-{INT_LIMIT}", requested=value)
    return value


def checked_text(value: Any, field: str, *, limit: int, expected: str) -> str:
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


def text(value: Any, field: str) -> str:
    return checked_text(value, field, limit=TEXT_MAX, expected="a string")


def identifier(value: Any, field: str) -> str:
    text = checked_text(value, field, limit=ID_MAX, expected="an id (a non-empty string)")
    if not text:
        raise InvalidFormat(field=field, expected="an id (a non-empty string)", value=text)
    return text


def plain_date(value: Any, field: str) -> date:
    if not isinstance(value, date) or isinstance(value, datetime):
        raise WrongKind("a date")
    return check_date_bounds(value, field=field)


def aware_datetime(value: Any, field: str) -> datetime:
    if not isinstance(value, datetime):
        raise WrongKind("an aware datetime")
    try:
        offset = value.utcoffset()
    except Exception as exc:  # a tzinfo that cannot answer is no zone at all
        raise InvalidFormat(field=field, expected="an aware datetime", value=value) from exc
    if offset is None:
        raise NaiveDatetime(field=field)
    return check_instant_bounds(value, field=field)


def enum_of(kind: type[enum.Enum]) -> Converter:
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


def literal_of(choices: tuple[Any, ...]) -> Converter:
    def convert(value: Any, field: str) -> Any:
        for choice in choices:
            # True == 1 in Python; a Literal["IN"] or Literal[1] takes only its own kind.
            if type(value) is type(choice) and value == choice:
                return choice
        raise InvalidChoice(field=field, allowed=choices, requested=value)

    return convert


def instance_of(kind: type) -> Converter:
    def convert(value: Any, _field: str) -> Any:
        if not isinstance(value, kind):
            raise WrongKind(f"a {kind.__name__}")
        return value

    return convert


# -- JSON data ------------------------------------------------------------------------------


def json_object(value: Any, field: str) -> Any:
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
                raise too_deep(field)
            if isinstance(item, Mapping):
                for key in item:
                    if not isinstance(key, str):
                        raise InvalidFormat(field=field, expected="string keys", value=key)
                    budget -= len(checked_text(key, field, limit=TEXT_MAX, expected="text"))
                stack.extend((child, depth + 1) for child in item.values())
            else:
                stack.extend((child, depth + 1) for child in item)
        elif isinstance(item, str):
            budget -= len(checked_text(item, field, limit=TEXT_MAX, expected="text"))
        elif isinstance(item, bool) or item is None:
            pass
        elif isinstance(item, int | float):
            number(item, field)
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


def key_name(key: object) -> str:
    """Return a mapping key as it may appear in an error's field name (short, printable)."""
    if isinstance(key, str) and len(key) <= 60 and key.isprintable():
        return key
    return f"[{_shown_key(key)}]"


def _shown_key(key: object) -> str:
    text = repr(key) if not isinstance(key, str) else repr(key[:40])
    return text if len(text) <= 60 else text[:57] + "..."
