"""
Customers, their plan subscriptions, and the definitions of custom and booking fields.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any, Final

import attrs

from slotwise.errors import InconsistentFields, InvalidFormat

from ._checks import (
    as_utc,
    check_aware,
    check_bool,
    check_email,
    check_int,
    check_phone,
    check_text,
    str_tuple,
    to_enum,
)
from ._enum import SpecEnum
from ._frozen import FrozenJSON, freeze_json
from .company import Address

__all__ = [
    "CUSTOM_FIELD_KEYS",
    "Customer",
    "CustomerKind",
    "FieldDefinition",
    "FieldKind",
    "FieldType",
    "Subscription",
    "check_custom_fields",
]

CUSTOM_FIELD_KEYS = tuple(f"field{number}" for number in range(1, 11))
NO_CUSTOM_FIELDS: Final = FrozenJSON()
"""Shared by every record without custom fields (read-only, so one is enough)."""
"""The keys of an appointment's ``customFields``: field1 .. field10."""


def check_custom_fields(values: Mapping[str, str]) -> Mapping[str, str]:
    """
    Return *values* as a read-only mapping after checking keys ``field1``..``field10``.

    Raises:
        InvalidFormat: for another key or a value that is not a string of at most 4000 characters.
    """
    if not isinstance(values, Mapping):
        raise InvalidFormat(field="custom_fields", expected="a mapping", value=values)
    for key, value in values.items():
        if key not in CUSTOM_FIELD_KEYS:
            raise InvalidFormat(field="custom_fields", expected="keys field1 .. field10", value=key)
        if not isinstance(value, str) or len(value) > 4000:
            raise InvalidFormat(
                field=f"custom_fields.{key}",
                expected="a string of at most 4000 characters",
                value=value,
            )
    if not values:
        return NO_CUSTOM_FIELDS
    if type(values) is FrozenJSON:
        return values  # read-only already (a record's own, evolved): kept, not copied
    # FrozenJSON, not MappingProxyType: read-only and still picklable and deep-copyable.
    frozen: Mapping[str, str] = freeze_json(dict(values), field="custom_fields")
    return frozen


class CustomerKind(SpecEnum):
    """
    A customer is a person or a business.

    .. versionadded:: 0.1
    """

    PERSON = "person"
    BUSINESS = "business"


def _to_customer_kind(value: object) -> CustomerKind:
    # Named converter: an unknown code raises InvalidChoice naming the field, not a bare ValueError.
    return to_enum(CustomerKind, value, field="kind")


def _check_names(instance: Customer, _attribute: Any, _value: Any) -> None:
    if instance.kind is CustomerKind.BUSINESS and not instance.business_name:
        raise InconsistentFields("a business customer needs business_name", field="business_name")
    if instance.kind is CustomerKind.PERSON and not (instance.first_name or instance.last_name):
        raise InconsistentFields(
            "a person customer needs first_name or last_name", field="first_name"
        )


@attrs.frozen(kw_only=True)
class Customer:
    """
    Someone who books: a person (first and last name) or a business (business name).

    The spec does not show the customer record; these fields are slotwise's
    (``docs/semantics.md``, "Customer record").

    .. versionadded:: 0.1
    """

    id: str
    company_id: str
    kind: CustomerKind = attrs.field(default=CustomerKind.PERSON, converter=_to_customer_kind)
    first_name: str | None = attrs.field(default=None, validator=check_text(max_len=255))
    last_name: str | None = attrs.field(default=None, validator=check_text(max_len=255))
    business_name: str | None = attrs.field(default=None, validator=check_text(max_len=255))
    email: str | None = attrs.field(default=None, validator=check_email)
    phone: str | None = attrs.field(default=None, validator=check_phone)
    phone_type: str | None = attrs.field(default=None, validator=check_text(max_len=32))
    phone_ext: str | None = attrs.field(default=None, validator=check_text(max_len=10))
    address: Address = attrs.field(factory=Address)
    timezone: str | None = attrs.field(default=None, validator=check_text(max_len=64))
    notes: str | None = attrs.field(default=None, validator=check_text(max_len=4000))
    created_at: datetime | None = attrs.field(
        default=None, converter=as_utc, validator=[check_aware, _check_names]
    )

    @property
    def display_name(self) -> str:
        """Return the business name, or first and last name joined."""
        if self.kind is CustomerKind.BUSINESS and self.business_name:
            return self.business_name
        return " ".join(part for part in (self.first_name, self.last_name) if part)


def _check_trial(instance: Subscription, _attribute: Any, _value: Any) -> None:
    start, end = instance.trial_period_start, instance.trial_period_end
    if start is not None and end is not None and end < start:
        raise InconsistentFields(
            "trial_period_end must not be before trial_period_start", field="trial_period_end"
        )


@attrs.frozen(kw_only=True)
class Subscription:
    """
    A customer's subscription to a plan.

    ``trial_period_start`` is the plan start when a trial end is given (decision of slotwise).

    .. versionadded:: 0.1
    """

    id: str
    company_id: str
    customer_id: str
    customer_plan_id: str = attrs.field(validator=check_text(max_len=255, required=True))
    customer_plan_name: str | None = attrs.field(default=None, validator=check_text(max_len=255))
    plan_start: datetime | None = attrs.field(default=None, converter=as_utc, validator=check_aware)
    trial_period_start: datetime | None = attrs.field(
        default=None, converter=as_utc, validator=check_aware
    )
    trial_period_end: datetime | None = attrs.field(
        default=None, converter=as_utc, validator=[check_aware, _check_trial]
    )


class FieldKind(SpecEnum):
    """
    ``CUSTOM``: appointment custom fields field1..field10; ``BOOKING``: booking-form fields.

    .. versionadded:: 0.1
    """

    CUSTOM = "custom"
    BOOKING = "booking"


class FieldType(SpecEnum):
    """
    How a field's value is entered and sent in the book operation.

    .. versionadded:: 0.1
    """

    TEXT = "text"
    TEXTAREA = "textarea"
    NUMBER = "number"
    CHECKBOX = "checkbox"
    SELECT = "select"
    DATE = "date"
    EMAIL = "email"
    PHONE = "phone"
    ADDRESS = "address"


def _to_field_kind(value: object) -> FieldKind:
    return to_enum(FieldKind, value, field="kind")


def _to_field_type(value: object) -> FieldType:
    return to_enum(FieldType, value, field="type")


def _to_choices(value: Iterable[str]) -> tuple[str, ...]:
    return str_tuple(value, field="choices")


def _check_definition(instance: FieldDefinition, _attribute: Any, _value: Any) -> None:
    if instance.kind is FieldKind.CUSTOM and instance.name not in CUSTOM_FIELD_KEYS:
        raise InvalidFormat(
            field="name", expected="field1 .. field10 for a custom field", value=instance.name
        )
    if instance.type is FieldType.SELECT and not instance.choices:
        raise InconsistentFields("a select field needs choices", field="choices")
    if instance.type is not FieldType.SELECT and instance.choices:
        raise InconsistentFields("choices apply to select fields only", field="choices")


@attrs.frozen(kw_only=True)
class FieldDefinition:
    """
    The definition of an appointment custom field or booking field at a location.

    .. versionadded:: 0.1
    """

    id: str
    company_id: str
    location_id: str
    kind: FieldKind = attrs.field(converter=_to_field_kind)
    name: str = attrs.field(validator=check_text(max_len=64, required=True))
    label: str = attrs.field(validator=check_text(max_len=255, required=True))
    type: FieldType = attrs.field(default=FieldType.TEXT, converter=_to_field_type)
    required: bool = attrs.field(default=False, validator=check_bool)
    choices: tuple[str, ...] = attrs.field(default=(), converter=_to_choices)
    sort_order: int = attrs.field(
        default=0, validator=[check_int(low=0, high=10_000), _check_definition]
    )
