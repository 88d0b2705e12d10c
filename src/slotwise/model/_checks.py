"""
Field validators shared by the model classes.

Each returns an attrs validator that raises a slotwise ``ValidationError`` subclass naming the
field (the Python argument name) and the limit it broke.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

import attrs

from slotwise._time import ensure_aware, validate_hhmm, zone
from slotwise.errors import (
    FieldRequired,
    FieldTooLong,
    FieldTooShort,
    InvalidChoice,
    InvalidFormat,
    OutOfRange,
)

Validator = Callable[[Any, "attrs.Attribute[Any]", Any], None]

# A pragmatic address check: one "@", a dot in the domain, no spaces. Full RFC 5322 parsing
# accepts addresses no mail system delivers to; this is what booking forms expect.
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s.]+$")
_URL = re.compile(r"^https?://[^\s/$.?#][^\s]*$", re.IGNORECASE)

PHONE_MIN = 7
PHONE_MAX = 15


def check_text(*, max_len: int, required: bool = False, min_len: int = 0) -> Validator:
    """Validate a string (or None when not *required*) against a length limit."""

    def validate(_instance: object, attribute: attrs.Attribute[Any], value: Any) -> None:
        name = attribute.name
        if value is None or (isinstance(value, str) and not value.strip()):
            if required:
                raise FieldRequired(field=name)
            if value is None:
                return
        if not isinstance(value, str):
            raise InvalidFormat(field=name, expected="a string", value=value)
        if len(value) > max_len:
            raise FieldTooLong(field=name, limit=max_len, requested=len(value))
        if value and len(value) < min_len:
            raise FieldTooShort(field=name, limit=min_len, requested=len(value))

    return validate


def check_int(
    *, low: int | None = None, high: int | None = None, optional: bool = False
) -> Validator:
    """Validate an int within inclusive bounds (``None`` allowed when *optional*)."""

    def validate(_instance: object, attribute: attrs.Attribute[Any], value: Any) -> None:
        if value is None and optional:
            return
        if not isinstance(value, int) or isinstance(value, bool):
            raise InvalidFormat(field=attribute.name, expected="an integer", value=value)
        if (low is not None and value < low) or (high is not None and value > high):
            raise OutOfRange(field=attribute.name, allowed=_bounds(low, high), requested=value)

    return validate


def check_number(*, low: float | None = None, optional: bool = False) -> Validator:
    """Validate an int or float at least *low*."""

    def validate(_instance: object, attribute: attrs.Attribute[Any], value: Any) -> None:
        if value is None and optional:
            return
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise InvalidFormat(field=attribute.name, expected="a number", value=value)
        if low is not None and value < low:
            raise OutOfRange(field=attribute.name, allowed=_bounds(low, None), requested=value)

    return validate


def check_choice(*choices: object) -> Validator:
    """Validate that the value is one of *choices*."""

    def validate(_instance: object, attribute: attrs.Attribute[Any], value: Any) -> None:
        if value not in choices:
            raise InvalidChoice(field=attribute.name, allowed=tuple(choices), requested=value)

    return validate


def check_bool(_instance: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    """Validate a real bool (1 and "yes" are refused)."""
    if not isinstance(value, bool):
        raise InvalidFormat(field=attribute.name, expected="true or false", value=value)


def check_hhmm(_instance: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    """Validate an HHMM time of day."""
    validate_hhmm(value, field=attribute.name)


def check_zone(_instance: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    """Validate an IANA time zone name."""
    zone(value, field=attribute.name)


def check_optional_zone(instance: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    """Validate an IANA time zone name or None."""
    if value is not None:
        check_zone(instance, attribute, value)


def check_email(_instance: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    """Validate an e-mail address or None."""
    if value is None:
        return
    if not isinstance(value, str) or len(value) > 254 or not _EMAIL.match(value):
        raise InvalidFormat(field=attribute.name, expected="an e-mail address", value=value)


def is_email(value: str) -> bool:
    """Tell whether *value* looks like a deliverable e-mail address."""
    return len(value) <= 254 and _EMAIL.match(value) is not None


def check_url(_instance: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    """Validate an http(s) URL or None."""
    if value is None:
        return
    if not isinstance(value, str) or len(value) > 2048 or not _URL.match(value):
        raise InvalidFormat(field=attribute.name, expected="an http or https URL", value=value)


def check_phone(_instance: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    """
    Validate a phone value: 7 to 15 characters (spec: Limits). Spacing and characters are not checked.
    """
    if value is None:
        return
    if not isinstance(value, str):
        raise InvalidFormat(field=attribute.name, expected="a string", value=value)
    if len(value) < PHONE_MIN:
        raise FieldTooShort(field=attribute.name, limit=PHONE_MIN, requested=len(value))
    if len(value) > PHONE_MAX:
        raise FieldTooLong(field=attribute.name, limit=PHONE_MAX, requested=len(value))


def check_aware(_instance: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    """Validate an aware datetime (or None)."""
    if value is None:
        return
    if not isinstance(value, datetime):
        raise InvalidFormat(field=attribute.name, expected="a datetime", value=value)
    ensure_aware(value, field=attribute.name)


def _bounds(low: float | None, high: float | None) -> str:
    if low is not None and high is not None:
        return f"between {low} and {high}"
    if low is not None:
        return f"at least {low}"
    return f"at most {high}"


def str_tuple(value: Iterable[str]) -> tuple[str, ...]:
    """Convert any iterable of strings (not a lone string) to a tuple."""
    if isinstance(value, str):
        raise InvalidFormat(
            field="value", expected="a sequence of strings, not one string", value=value
        )
    return tuple(value)
