"""Customers, subscriptions, field definitions and custom-field values (slotwise.model.customers)."""

from __future__ import annotations

import datetime as datetime_module
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

import slotwise
from slotwise.errors import (
    FieldRequired,
    FieldTooLong,
    FieldTooShort,
    InconsistentFields,
    InvalidChoice,
    InvalidFormat,
    NaiveDatetime,
    OutOfRange,
)
from slotwise.model import (
    Customer,
    CustomerKind,
    FieldDefinition,
    FieldKind,
    FieldType,
    Subscription,
)
from slotwise.model.customers import CUSTOM_FIELD_KEYS, check_custom_fields

NAMESPACE: dict[str, Any] = {name: getattr(slotwise, name) for name in slotwise.__all__}
NAMESPACE["datetime"] = datetime_module

NOW = datetime(2026, 1, 5, 9, tzinfo=UTC)


def make_customer(**changes: Any) -> Customer:
    """Return a valid person customer with *changes* applied."""
    return Customer(**{"id": "cu1", "company_id": "c1", "first_name": "Ada", **changes})


def make_subscription(**changes: Any) -> Subscription:
    """Return a valid subscription with *changes* applied."""
    fields = {"id": "sub1", "company_id": "c1", "customer_id": "cu1", "customer_plan_id": "gold"}
    return Subscription(**{**fields, **changes})


def make_definition(**changes: Any) -> FieldDefinition:
    """Return a valid custom field definition (field1, text) with *changes* applied."""
    fields = {"id": "f1", "company_id": "c1", "location_id": "l1", "kind": "custom"}
    return FieldDefinition(**{**fields, "name": "field1", "label": "Allergies", **changes})


class TestCustomerNames:
    def test_person_with_first_or_last_name(self):
        """A person needs a first or a last name; either alone is enough."""
        assert "Ada" == make_customer().display_name
        assert "Lovelace" == make_customer(first_name=None, last_name="Lovelace").display_name

    def test_person_without_names(self):
        """A person with neither name is refused."""
        with pytest.raises(InconsistentFields) as info:
            make_customer(first_name=None)

        assert "first_name" == info.value.field

    def test_business_needs_business_name(self):
        """A business customer needs business_name, which is its display name."""
        business = make_customer(kind="business", business_name="Acme Ltd")
        assert (CustomerKind.BUSINESS, "Acme Ltd") == (business.kind, business.display_name)

        with pytest.raises(InconsistentFields) as info:
            make_customer(kind="business")

        assert "business_name" == info.value.field

    def test_unknown_kind(self):
        """Kinds other than person and business raise InvalidChoice naming kind."""
        with pytest.raises(InvalidChoice) as info:
            make_customer(kind="robot")

        assert ("kind", ("person", "business"), "robot") == (
            info.value.field,
            info.value.allowed,
            info.value.requested,
        )


class TestCustomerFields:
    @pytest.mark.parametrize(
        ("field", "limit"),
        [
            ("first_name", 255),
            ("last_name", 255),
            ("business_name", 255),
            ("phone_type", 32),
            ("phone_ext", 10),
            ("timezone", 64),
            ("notes", 4000),
        ],
    )
    def test_text_limits(self, field: str, limit: int):
        """Each text field is accepted at its limit and refused one past it."""
        assert limit == len(getattr(make_customer(**{field: "x" * limit}), field))
        with pytest.raises(FieldTooLong) as info:
            make_customer(**{field: "x" * (limit + 1)})

        assert (field, limit, limit + 1) == (
            info.value.field,
            info.value.limit,
            info.value.requested,
        )

    def test_phone_limits(self):
        """A customer phone takes 7..15 characters (spec: Limits)."""
        assert "5551234" == make_customer(phone="5551234").phone
        assert "1" * 15 == make_customer(phone="1" * 15).phone
        with pytest.raises(FieldTooShort) as short:
            make_customer(phone="555123")
        with pytest.raises(FieldTooLong) as long:
            make_customer(phone="1" * 16)

        assert ("phone", "phone") == (short.value.field, long.value.field)

    def test_email_format(self):
        """A customer e-mail must look like an address."""
        assert "ada@example.com" == make_customer(email="ada@example.com").email
        with pytest.raises(InvalidFormat) as info:
            make_customer(email="ada@example")

        assert "email" == info.value.field

    def test_created_at_must_be_aware(self):
        """A naive created_at is refused."""
        assert NOW == make_customer(created_at=NOW).created_at
        with pytest.raises(NaiveDatetime) as info:
            make_customer(created_at=datetime(2026, 1, 5, 9))

        assert "created_at" == info.value.field


class TestSubscription:
    def test_plan_id_required(self):
        """customer_plan_id is required."""
        with pytest.raises(FieldRequired) as info:
            make_subscription(customer_plan_id="")

        assert "customer_plan_id" == info.value.field

    @pytest.mark.parametrize("field", ["customer_plan_id", "customer_plan_name"])
    def test_plan_text_limits(self, field: str):
        """Plan id and name are accepted at 255 and refused at 256."""
        assert 255 == len(getattr(make_subscription(**{field: "p" * 255}), field))
        with pytest.raises(FieldTooLong) as info:
            make_subscription(**{field: "p" * 256})

        assert (field, 255) == (info.value.field, info.value.limit)

    @pytest.mark.parametrize("field", ["plan_start", "trial_period_start", "trial_period_end"])
    def test_datetimes_must_be_aware(self, field: str):
        """Plan and trial datetimes must be aware."""
        with pytest.raises(NaiveDatetime) as info:
            make_subscription(**{field: datetime(2026, 1, 5)})

        assert field == info.value.field

    def test_trial_may_end_when_it_starts(self):
        """A trial that ends at its start is accepted."""
        assert (
            NOW == make_subscription(trial_period_start=NOW, trial_period_end=NOW).trial_period_end
        )

    def test_trial_end_before_start(self):
        """A trial that ends before it starts is refused."""
        with pytest.raises(InconsistentFields) as info:
            make_subscription(
                trial_period_start=NOW, trial_period_end=NOW - timedelta(microseconds=1)
            )

        assert "trial_period_end" == info.value.field


class TestFieldDefinition:
    @pytest.mark.parametrize("name", CUSTOM_FIELD_KEYS)
    def test_custom_field_keys(self, name: str):
        """Custom fields are named field1 .. field10 (spec: Appointment customFields)."""
        assert name == make_definition(name=name).name

    @pytest.mark.parametrize("name", ["field0", "field11", "Field1", "notes"])
    def test_other_custom_names_refused(self, name: str):
        """Other custom field names are refused."""
        with pytest.raises(InvalidFormat) as info:
            make_definition(name=name)

        assert ("name", name) == (info.value.field, info.value.value)

    def test_booking_field_names_are_free(self):
        """Booking fields may have any name up to 64 characters."""
        assert "n" * 64 == make_definition(kind="booking", name="n" * 64).name
        with pytest.raises(FieldTooLong) as info:
            make_definition(kind="booking", name="n" * 65)

        assert ("name", 64, 65) == (info.value.field, info.value.limit, info.value.requested)

    def test_label_limits(self):
        """A label is required, accepted at 255 and refused at 256."""
        assert 255 == len(make_definition(label="l" * 255).label)
        with pytest.raises(FieldTooLong) as info:
            make_definition(label="l" * 256)
        with pytest.raises(FieldRequired):
            make_definition(label=" ")

        assert ("label", 255) == (info.value.field, info.value.limit)

    def test_select_needs_choices(self):
        """A select field needs choices; a list becomes a tuple."""
        select = make_definition(type="select", choices=["a", "b"])
        assert (FieldType.SELECT, ("a", "b")) == (select.type, select.choices)

        with pytest.raises(InconsistentFields) as info:
            make_definition(type="select")

        assert "choices" == info.value.field

    def test_choices_only_on_select(self):
        """Choices on a text field are refused."""
        with pytest.raises(InconsistentFields) as info:
            make_definition(type="text", choices=["a"])

        assert "choices" == info.value.field

    def test_choices_lone_string(self):
        """One string is not a list of choices; the error names choices."""
        with pytest.raises(InvalidFormat) as info:
            make_definition(type="select", choices="abc")

        assert "choices" == info.value.field

    @pytest.mark.parametrize(("field", "allowed_count"), [("kind", 2), ("type", 9)])
    def test_unknown_codes(self, field: str, allowed_count: int):
        """Unknown kinds and types raise InvalidChoice naming the field."""
        with pytest.raises(InvalidChoice) as info:
            make_definition(**{field: "bogus"})

        assert (field, allowed_count) == (info.value.field, len(info.value.allowed))

    @pytest.mark.parametrize("value", [0, 10_000])
    def test_sort_order_accepted(self, value: int):
        """sort_order runs 0..10000."""
        assert value == make_definition(sort_order=value).sort_order

    @pytest.mark.parametrize("value", [-1, 10_001])
    def test_sort_order_refused(self, value: int):
        """-1 and 10001 are refused."""
        with pytest.raises(OutOfRange) as info:
            make_definition(sort_order=value)

        assert ("sort_order", value) == (info.value.field, info.value.requested)

    def test_required_must_be_bool(self):
        """required takes a real bool."""
        with pytest.raises(InvalidFormat) as info:
            make_definition(required="no")

        assert "required" == info.value.field


class TestCustomFieldValues:
    def test_keys_field1_to_field10(self):
        """field1 and field10 are accepted and the result is read-only."""
        values = check_custom_fields({"field1": "a", "field10": "b"})

        assert {"field1": "a", "field10": "b"} == values
        with pytest.raises(TypeError):
            values["field2"] = "c"  # type: ignore[index]

    @pytest.mark.parametrize("key", ["field0", "field11", "notes"])
    def test_other_keys_refused(self, key: str):
        """Keys outside field1..field10 are refused."""
        with pytest.raises(InvalidFormat) as info:
            check_custom_fields({key: "x"})

        assert ("custom_fields", key) == (info.value.field, info.value.value)

    def test_value_limit(self):
        """A value is accepted at 4000 characters and refused at 4001."""
        assert 4000 == len(check_custom_fields({"field3": "v" * 4000})["field3"])
        with pytest.raises(InvalidFormat) as info:
            check_custom_fields({"field3": "v" * 4001})

        assert "custom_fields.field3" == info.value.field

    def test_values_must_be_strings(self):
        """A non-string value is refused."""
        with pytest.raises(InvalidFormat) as info:
            check_custom_fields({"field1": 5})  # type: ignore[dict-item]

        assert "custom_fields.field1" == info.value.field

    def test_must_be_a_mapping(self):
        """A list of pairs is not a mapping of custom fields."""
        with pytest.raises(InvalidFormat) as info:
            check_custom_fields([("field1", "x")])  # type: ignore[arg-type]

        assert "custom_fields" == info.value.field


class TestReprs:
    @pytest.mark.parametrize(
        "value",
        [
            make_customer(last_name="Lovelace", created_at=NOW),
            make_subscription(plan_start=NOW, trial_period_end=NOW),
            make_definition(kind=FieldKind.BOOKING, name="size", type="select", choices=["S"]),
        ],
        ids=lambda value: type(value).__name__,
    )
    def test_reprs_are_valid_python(self, value: object):
        """Customer-side reprs evaluate back to equal records (STYLE rule 34)."""
        assert value == eval(repr(value), NAMESPACE)

    @pytest.mark.parametrize(
        ("member", "text"),
        [
            (CustomerKind.BUSINESS, "CustomerKind.BUSINESS"),
            (FieldKind.CUSTOM, "FieldKind.CUSTOM"),
            (FieldType.TEXTAREA, "FieldType.TEXTAREA"),
        ],
    )
    def test_enum_reprs(self, member: object, text: str):
        """Enum reprs read Class.MEMBER."""
        assert text == repr(member)
