"""
The boundary's quick paths (issue 23): an everyday argument passed as it is, without the chain
of calls of its full converter (:mod:`._inputs`), which still answers every other value.
"""

from __future__ import annotations

import types
from datetime import UTC, datetime
from typing import Any, Literal, Union, get_args, get_origin

from slotwise.model._checks import INSTANT_YEARS

from ._values import ID_MAX, TEXT_MAX, Converter

__all__ = ["quick"]


def quick(hint: Any, mode: str, convert: Converter) -> Converter | None:
    """
    Return *convert* behind a test that passes the everyday values of an id, text, instant or
    text-choice (``Literal``) argument (optional or not) as they are, or ``None`` for other
    hints.

    The test only lets through values *convert* returns unchanged (an ASCII string within the
    limit, without NUL; a UTC datetime within decision 36's years; one of the choices, as the
    choice itself), so anything else meets *convert* itself and its errors: the same result,
    without a chain of calls per argument.
    """
    members = get_args(hint) if get_origin(hint) in (Union, types.UnionType) else (hint,)
    optional = types.NoneType in members
    kinds = [member for member in members if member is not types.NoneType]
    if kinds == [str]:
        limit = ID_MAX if mode == "id" else TEXT_MAX
        low = 1 if mode == "id" else 0

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
    if len(kinds) == 1 and get_origin(kinds[0]) is Literal:
        # Text choices only: a dict lookup must not take True for 1 (True == 1, equal hashes).
        choices = get_args(kinds[0])
        if not all(choice.__class__ is str for choice in choices):
            return None
        chosen = {choice: choice for choice in choices}

        def quick_choice(value: Any, field: str) -> Any:
            if value is None and optional:
                return None
            if value.__class__ is str:
                found = chosen.get(value)
                if found is not None:
                    return found
            return convert(value, field)

        return quick_choice
    return None
