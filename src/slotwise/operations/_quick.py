"""
The boundary's quick test of everyday arguments (issue 23): an id, a text or an instant that a
caller passes as the converter would keep it is accepted without the converter's chain of calls.
"""

from __future__ import annotations

import types
from datetime import UTC, datetime
from typing import Any, Union, get_args, get_origin

from slotwise.model._checks import INSTANT_YEARS

from ._values import ID_MAX, TEXT_MAX, Converter

__all__ = ["optional", "quick"]


def quick(hint: Any, is_id: bool, convert: Converter) -> Converter | None:
    """
    Return *convert* behind a test that passes the everyday values of an id (*is_id*), text or
    instant argument (optional or not) as they are, or ``None`` for other hints.

    The test only lets through values *convert* returns unchanged (an ASCII string within the
    limit, without NUL; a UTC datetime within decision 36's years), so anything else meets
    *convert* itself and its errors: the same result, without a chain of calls per argument.
    """
    members = get_args(hint) if get_origin(hint) in (Union, types.UnionType) else (hint,)
    optional = types.NoneType in members
    kinds = [member for member in members if member is not types.NoneType]
    if kinds == [str]:
        limit = ID_MAX if is_id else TEXT_MAX
        low = 1 if is_id else 0

        def quick_text(value: Any, field: str) -> Any:
            if value is None and optional:
                return None
            if (
                value.__class__ is str
                and low <= len(value) <= limit
                and value.isascii()
                and "\x00" not in value
            ):
                return value
            return convert(value, field)

        return quick_text
    if kinds == [datetime]:
        first, last = INSTANT_YEARS

        def quick_instant(value: Any, field: str) -> Any:
            if value is None and optional:
                return None
            if value.__class__ is datetime and value.tzinfo is UTC and first <= value.year <= last:
                return value
            return convert(value, field)

        return quick_instant
    return None


def optional(convert: Converter) -> Converter:
    """Return the converter of "X | None" for *convert*, X's: ``None`` as it is, else X's rule."""

    def convert_optional(value: Any, field: str) -> Any:
        return None if value is None else convert(value, field)

    return convert_optional
