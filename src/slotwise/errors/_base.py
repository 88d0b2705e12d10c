"""The root of the error tree, and how an error quotes what the caller sent."""

from __future__ import annotations

import enum
import math
from collections.abc import Mapping
from datetime import date, datetime, time
from typing import ClassVar

import attrs

__all__ = ["SlotwiseError"]

_SHOWN_MAX = 60


def _shown(value: object) -> str:
    """
    Return a short repr of *value* for an error message.

    Messages quote what the caller sent; a 50,000-character string would make the message as
    long, and ``repr`` of an integer with thousands of digits raises ``ValueError``.
    """
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**_SHOWN_MAX:
        return f"<an integer of about {value.bit_length() * 3 // 10} digits>"
    try:
        text = repr(value)
    except Exception:  # a hostile __repr__ must not replace the error being reported
        return f"<{type(value).__name__}>"
    if len(text) > _SHOWN_MAX:
        return f"{text[: _SHOWN_MAX - 5]}...{text[-2:]} ({len(text)} characters)"
    return text


def _json_ready(value: object) -> object:
    """
    Return *value* as data every JSON encoder writes: what an error's data fields quote.

    Those fields hold what the caller sent, which may be any object: dates, enums, sets,
    records, ``nan``. Text, booleans, integers, finite floats and ``None`` stay as they are;
    enums become their values; dates and times ISO 8601 text (UTC written ``Z``, as the HTTP
    interface writes it); mappings dicts with text keys; sets sorted lists (when their items
    sort); other iterables lists; attrs records dicts of their fields; anything else its short ``repr``.
    """
    if isinstance(value, enum.Enum):
        return _json_ready(value.value)
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    if isinstance(value, datetime | time):
        text = value.isoformat()
        return text[:-6] + "Z" if text.endswith("+00:00") else text
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, Mapping):
        return {str(key): _json_ready(item) for key, item in value.items()}
    if isinstance(value, set | frozenset):
        items = [_json_ready(item) for item in value]
        try:
            return sorted(items)  # type: ignore[type-var]
        except TypeError:
            return items
    if isinstance(value, list | tuple):
        return [_json_ready(item) for item in value]
    if attrs.has(type(value)):
        return _json_ready(attrs.asdict(value, recurse=False))  # type: ignore[arg-type]
    return _shown(value)


def _rebuild(
    kind: type[SlotwiseError], args: tuple[object, ...], state: dict[str, object]
) -> SlotwiseError:
    """Return an error of *kind* with *args* and *state*, without running its constructor."""
    error = kind.__new__(kind)
    Exception.__init__(error, *args)
    error.__dict__.update(state)
    return error


class SlotwiseError(Exception):
    """
    Root of every error slotwise raises.

    .. versionadded:: 0.1
    """

    code: ClassVar[str] = "SLOTWISE"
    http_status: ClassVar[int] = 500
    mentions: tuple[str, ...] = ()
    """Fields the message names besides ``field`` (the HTTP interface gives them wire names)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __reduce__(self) -> tuple[object, ...]:
        # Constructors take keyword data, so the default (positional message) cannot rebuild
        # them; rebuilding from the message and the data lets errors cross process boundaries
        # (multiprocessing workers, a pool's futures) unchanged.
        return (_rebuild, (type(self), self.args, self.__dict__))

    def to_dict(self) -> dict[str, object]:
        """
        Return a JSON-ready description: ``code``, ``message`` and the error's data fields.

        The data fields (``field``, ``limit``, ``requested``, ``allowed``, ``value``; those that
        apply) quote what the caller sent as plain JSON data, so ``json.dumps(error.to_dict())``
        always works: dates and datetimes as ISO 8601 text, enums as their values, sequences
        and sets as lists, records as dicts of their fields, any other object as its ``repr``.

        .. versionchanged:: 0.1
           The data fields are JSON data whatever the caller sent (before, a date, a set or a
           record was returned as given and ``json.dumps`` failed on it).
        """
        data: dict[str, object] = {"code": self.code, "message": self.message}
        for key in ("field", "limit", "requested", "allowed", "value"):
            if key in self.__dict__ and self.__dict__[key] is not None:
                data[key] = _json_ready(self.__dict__[key])
        return data
