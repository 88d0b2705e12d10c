"""
Records to JSON documents and back, with ``cattrs``.

A record is stored whole as one JSON document; the columns next to it only index it. The
converter writes instants as ISO 8601 text in UTC with an explicit offset
(``2026-03-10T10:00:00.123456+00:00``, never naive local time), dates as ISO dates, enums by
value, sets as sorted lists, read-only mappings as objects and tuples as lists. Structuring
calls the record class itself, so attrs converters and validators run on the way back in and a
stored record reads back equal (``==``) to the one written.
"""

from __future__ import annotations

import enum
import json
import typing
from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from datetime import UTC, date, datetime
from functools import lru_cache
from typing import Any, TypeVar, cast

import attrs
import cattrs

from slotwise.errors import StoreError
from slotwise.model import FrozenJSON, Record

R = TypeVar("R")

__all__ = ["decode", "encode"]


def _unstructure_instant(value: datetime) -> str:
    # Records keep instants in UTC already; converting again costs nothing and guarantees
    # that equal instants are stored as equal text.
    return value.astimezone(UTC).isoformat()


def _structure_instant(value: str, _type: object) -> datetime:
    return datetime.fromisoformat(value)


def _structure_date(value: str, _type: object) -> date:
    return date.fromisoformat(value)


def _make_converter() -> cattrs.Converter:
    converter = cattrs.Converter(
        # Sets become sorted lists so equal records give equal documents; mappings (read-only
        # MappingProxyType and FrozenJSON values) become plain dicts for json.dumps.
        unstruct_collection_overrides={AbstractSet: sorted, Mapping: dict},
        # The documents were written by this converter: field-by-field error reports would only
        # slow every read down. A document that no longer fits the model raises StoreError.
        detailed_validation=False,
    )
    converter.register_unstructure_hook(datetime, _unstructure_instant)
    converter.register_structure_hook(datetime, _structure_instant)
    converter.register_unstructure_hook(date, date.isoformat)
    converter.register_structure_hook(date, _structure_date)
    return converter


_CONVERTER = _make_converter()


def encode(record: Record) -> str:
    """Return *record* as a compact JSON document (UTF-8 text, non-ASCII kept as is)."""
    kind = record.__class__
    unstructure = _UNSTRUCTURE.get(kind)
    if unstructure is None:
        unstructure = _UNSTRUCTURE[kind] = _unstructure_function(kind)
    return _DUMPS(unstructure(record))


_DUMPS = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode
_UNSTRUCTURE: dict[type[Any], Any] = {}
# Written as they are (json.dumps writes a tuple as a list, as cattrs' list).
_PLAIN = frozenset({str, int, bool, str | None, int | None, bool | None, tuple[str, ...]})


def _unstructure_function(kind: type[Any]) -> Any:
    """
    Return a function that gives what ``_CONVERTER.unstructure`` gives for a *kind* record, as
    far as ``json.dumps`` can tell (a tuple for a list): made once per class, as attrs makes
    ``__init__``, with plain fields read in place, instants and enums converted inline, and
    frozen JSON data (``FrozenJSON`` and tuples of it, what payloads and options hold) left to
    the JSON encoder; cattrs for every other field. cattrs spent about 140 calls on the four
    records a booking writes.
    """
    if not attrs.has(kind):
        return _CONVERTER.unstructure
    hints = typing.get_type_hints(kind)
    items: list[str] = []
    namespace: dict[str, Any] = {"_UTC": UTC, "_frozen": FrozenJSON}
    for field in attrs.fields(kind):
        name, hint = field.name, hints[field.name]
        read = f"value.{name}"
        if hint in _PLAIN:
            items.append(f"{name!r}: {read}")
        elif hint is datetime:
            items.append(f"{name!r}: {read}.astimezone(_UTC).isoformat()")
        elif hint == datetime | None:
            items.append(
                f"{name!r}: None if (_v := {read}) is None else _v.astimezone(_UTC).isoformat()"
            )
        elif isinstance(hint, type) and issubclass(hint, enum.Enum):
            items.append(f"{name!r}: {read}.value")
        elif typing.get_origin(hint) is Mapping:
            # Frozen JSON data as it is: json.dumps writes a FrozenJSON as the dict it is.
            namespace[f"_hint_{name}"] = hint
            items.append(
                f"{name!r}: _v if (_v := {read}).__class__ is _frozen"
                f" else _unstructure(_v, _hint_{name})"
            )
        else:
            namespace[f"_hint_{name}"] = hint
            items.append(f"{name!r}: _unstructure({read}, _hint_{name})")
    namespace["_unstructure"] = _CONVERTER.unstructure
    source = "def unstructure(value):\n    return {" + ", ".join(items) + "}\n"
    exec(compile(source, f"<slotwise document of {kind.__name__}>", "exec"), namespace)
    return namespace["unstructure"]


def decode(kind: type[R], document: str) -> R:
    """
    Return the record of *kind* that *document* holds.

    Records are immutable values, so equal documents may share one decoded record: the cache
    keeps repeated reads (an availability query reading the same appointments again) from
    paying for structuring and validation each time.

    Raises:
        StoreError: when the document is not a valid record of *kind* (a damaged row, or a
            document written by an incompatible slotwise version).
    """
    key: Any = kind  # a class is hashable; typing cannot say so of type[R]
    return cast(R, _decode(key, document))


@lru_cache(maxsize=4096)
def _decode(kind: Any, document: str) -> Any:
    try:
        return _CONVERTER.structure(json.loads(document), kind)
    except Exception as exc:
        raise StoreError(f"a stored {kind.__name__} document cannot be read: {exc}") from exc
