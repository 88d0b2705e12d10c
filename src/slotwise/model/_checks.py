"""
Field validators shared by the model classes.

Each returns an attrs validator that raises a slotwise ``ValidationError`` subclass naming the
field (the Python argument name) and the limit it broke.
"""

from __future__ import annotations

import enum
import math
import re
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, date, datetime
from typing import Any, Final, TypeVar

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

STATED: dict[Callable[..., Any], dict[str, Any]] = {}
"""
The JSON Schema keywords each validator enforces (``maxLength``, ``minimum``, ``enum``, ...).

The HTTP layer publishes them in its OpenAPI document, so a client generated from the document
sends what the validators accept: one declaration, read twice (decision 36's bounds included).
Keywords state what a schema can; a validator may refuse more (a weekday rule, a blank name).
"""


def _states(validate: Validator, **keywords: Any) -> Validator:
    STATED[validate] = {key: value for key, value in keywords.items() if value is not None}
    return validate


def stated(validator: Any) -> dict[str, Any]:
    """Return the JSON Schema keywords *validator* (one, a list or an ``and_``) enforces."""
    if isinstance(validator, list | tuple):
        parts: list[Any] = list(validator)
    else:
        parts = list(getattr(validator, "_validators", None) or [validator])
    keywords: dict[str, Any] = {}
    for part in parts:
        keywords.update(STATED.get(part, {}))
    return keywords


E = TypeVar("E", bound=enum.Enum)

# A pragmatic address check: one "@", a dot in the domain, no spaces. Full RFC 5322 parsing
# accepts addresses no mail system delivers to; this is what booking forms expect.
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s.]+$")
_URL = re.compile(r"^https?://[^\s/$.?#][^\s]*$", re.IGNORECASE)

PHONE_MIN = 7
PHONE_MAX = 15

# Decision 36: the dates and instants slotwise accepts. Year 1 and year 9999 instants overflow
# as soon as a zone offset or a day of padding is added; 9999-12-31 is the open end of a repeat.
DATE_MIN = date(1900, 1, 1)
DATE_MAX = date(9999, 12, 31)
INSTANT_YEARS = (1900, 9998)


def check_date_bounds(value: date, *, field: str) -> date:
    """
    Return *value* when it lies within 1900-01-01..9999-12-31 (decision 36).

    Raises:
        OutOfRange: naming *field* otherwise.
    """
    if not DATE_MIN <= value <= DATE_MAX:
        raise OutOfRange(
            field=field, allowed=f"between {DATE_MIN} and {DATE_MAX}", requested=value.isoformat()
        )
    return value


def check_instant_bounds(value: datetime, *, field: str) -> datetime:
    """
    Return the aware *value* when its wall time and its UTC time lie in years 1900..9998.

    Raises:
        OutOfRange: naming *field* otherwise (decision 36).
    """
    low, high = INSTANT_YEARS
    # The wall year is checked first: converting a year-9999 wall time to UTC may overflow.
    # Records keep instants in UTC, so the second check is usually the first again.
    if not low <= value.year <= high or (
        value.tzinfo is not UTC and not low <= value.astimezone(UTC).year <= high
    ):
        raise OutOfRange(
            field=field, allowed=f"in the years {low}..{high}", requested=value.isoformat()
        )
    return value


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

    # A required text must hold a character that is not white space.
    return _states(
        validate,
        maxLength=max_len,
        minLength=max(min_len, 1 if required else 0) or None,
        pattern=r"\S" if required else None,
    )


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

    return _states(validate, minimum=low, maximum=high)


def check_number(
    *, low: float | None = None, high: float | None = None, optional: bool = False
) -> Validator:
    """Validate a finite int or float within inclusive bounds (``None`` allowed when *optional*)."""

    def validate(_instance: object, attribute: attrs.Attribute[Any], value: Any) -> None:
        if value is None and optional:
            return
        _check_finite(value, field=attribute.name, low=low, high=high)

    return _states(validate, minimum=low, maximum=high)


def _check_finite(value: Any, *, field: str, low: float | None, high: float | None) -> None:
    # NaN passes every "< low" test and is unequal to itself; infinities are no amounts.
    if (
        not isinstance(value, int | float)
        or isinstance(value, bool)
        or (isinstance(value, float) and not math.isfinite(value))
    ):
        raise InvalidFormat(field=field, expected="a finite number", value=value)
    if (low is not None and value < low) or (high is not None and value > high):
        raise OutOfRange(field=field, allowed=_bounds(low, high), requested=value)


LATITUDE: Final = (-90, 90)
"""The degrees a latitude lies within (inclusive): south pole to north pole."""
LONGITUDE: Final = (-180, 180)
"""The degrees a longitude lies within (inclusive): -180 and 180 are the same meridian."""


def check_point(value: tuple[float, float], *, field: str) -> tuple[float, float]:
    """
    Return the ``(latitude, longitude)`` *value* when both are finite numbers within
    :data:`LATITUDE` and :data:`LONGITUDE`.

    Raises:
        InvalidFormat: naming ``field[0]`` or ``field[1]`` for a value that is no finite number.
        OutOfRange: naming ``field[0]`` (the latitude) or ``field[1]`` (the longitude) off its range.
    """
    for index, (low, high) in enumerate((LATITUDE, LONGITUDE)):
        _check_finite(value[index], field=f"{field}[{index}]", low=low, high=high)
    return value


def check_choice(*choices: object) -> Validator:
    """Validate that the value is one of *choices*."""

    def validate(_instance: object, attribute: attrs.Attribute[Any], value: Any) -> None:
        if not any(value == choice and _same_kind(value, choice) for choice in choices):
            raise InvalidChoice(field=attribute.name, allowed=tuple(choices), requested=value)

    return _states(validate, enum=list(choices))


def _same_kind(value: object, choice: object) -> bool:
    # True == 1 and 15.0 == 15 in Python; a calendar interval of True or 15.0 is still refused.
    if isinstance(value, bool) or isinstance(choice, bool):
        return isinstance(value, bool) and isinstance(choice, bool)
    return isinstance(value, type(choice))


def to_enum(enum_type: type[E], value: object, *, field: str) -> E:
    """
    Return the member of *enum_type* that is or has the value *value*.

    Raises:
        InvalidChoice: naming *field* when *value* is no member's value (not a bare ``ValueError``).
    """
    if value.__class__ is enum_type:
        return value  # a member already: no lookup by value
    try:
        return enum_type(value)
    except ValueError:
        allowed = tuple(member.value for member in enum_type)
        raise InvalidChoice(field=field, allowed=allowed, requested=value) from None


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


def check_date(_instance: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    """Validate a calendar date (a ``datetime``, though a ``date`` subclass, is refused)."""
    if not isinstance(value, date) or isinstance(value, datetime):
        raise InvalidFormat(field=attribute.name, expected="a date", value=value)
    check_date_bounds(value, field=attribute.name)


def check_aware(_instance: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    """Validate an aware datetime (or None)."""
    if value is None:
        return
    if value.__class__ is datetime and value.tzinfo is UTC:
        # What as_utc made of an aware value (the usual case): only the years are left to check.
        if not INSTANT_YEARS[0] <= value.year <= INSTANT_YEARS[1]:
            check_instant_bounds(value, field=attribute.name)
        return
    if not isinstance(value, datetime):
        raise InvalidFormat(field=attribute.name, expected="a datetime", value=value)
    ensure_aware(value, field=attribute.name)
    check_instant_bounds(value, field=attribute.name)


def _bounds(low: float | None, high: float | None) -> str:
    if low is not None and high is not None:
        return f"between {low} and {high}"
    if low is not None:
        return f"at least {low}"
    return f"at most {high}"


def mapping_repr(value: Mapping[str, Any]) -> str:
    """
    Return the repr of a read-only mapping as a dict literal.

    ``mappingproxy({...})`` is not valid Python; ``{...}`` is, and the field's converter turns it
    back into an equal read-only mapping (STYLE rule 34: reprs paste into regression tests).
    """
    return repr(dict(value))


def str_tuple(value: Iterable[str], *, field: str = "value") -> tuple[str, ...]:
    """
    Convert any iterable of strings (not a lone string) to a tuple.

    Raises:
        InvalidFormat: naming *field* for a lone string, a non-iterable or a non-string item.
    """
    expected = "a sequence of strings, not one string"
    if isinstance(value, str):
        raise InvalidFormat(field=field, expected=expected, value=value)
    try:
        items = tuple(value)
    except TypeError:
        raise InvalidFormat(field=field, expected=expected, value=value) from None
    if not all(isinstance(item, str) for item in items):
        raise InvalidFormat(field=field, expected=expected, value=value)
    return items


def id_list(value: object, *, field: str) -> tuple[str, ...]:
    """
    Return the ids *value* names: a sequence of ids, or one string of ids separated by commas
    (the spec's ``resourceIds``), white space around each id dropped.

    An empty member names no record: ``"a,,b"``, ``",a"``, ``"a,"``, ``""`` and ``" "`` are
    refused rather than read as fewer ids (a client that means no ids leaves the value out).

    Raises:
        InvalidFormat: naming *field* for an empty member, or for a value that is neither a
            string nor a sequence of strings.
    """
    if isinstance(value, str):
        ids = tuple(part.strip() for part in value.split(","))
    else:
        ids = str_tuple(value, field=field)  # type: ignore[arg-type]
    if not all(ids):
        raise InvalidFormat(field=field, expected=_ID_LIST, value=value)
    return ids


_ID_LIST = "ids separated by commas, none of them empty"


def as_utc(value: Any) -> Any:
    """
    Convert an aware datetime to UTC; leave anything else for the validator to refuse.

    Records store instants in UTC so equal instants compare and serialise equally.
    """
    if value.__class__ is datetime and value.tzinfo is UTC:
        return value  # UTC already (what records and the clock hand over)
    if isinstance(value, datetime) and value.tzinfo is not None and value.utcoffset() is not None:
        try:
            return value.astimezone(UTC)
        except OverflowError:
            # Year 1 or 9999 near the edge: check_aware refuses it with the field's name.
            return value
    return value


_states(check_hhmm, minimum=0, maximum=2400)
_states(check_email, maxLength=254, pattern=_EMAIL.pattern)
_states(check_url, maxLength=2048, pattern=_URL.pattern)
_states(check_phone, minLength=PHONE_MIN, maxLength=PHONE_MAX)
