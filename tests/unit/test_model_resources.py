"""Resources, their phone numbers, options and calendar providers, and resource groups."""

from __future__ import annotations

import datetime as datetime_module
from datetime import UTC, datetime
from typing import Any

import pytest

import slotwise
from slotwise.errors import (
    FieldRequired,
    FieldTooLong,
    FieldTooShort,
    InvalidChoice,
    InvalidFormat,
    InvalidTimeZone,
    NaiveDatetime,
    OutOfRange,
)
from slotwise.model import (
    Address,
    CalendarProvider,
    DayWindow,
    PhoneNumbers,
    Resource,
    ResourceGroup,
    ResourceOptions,
    WeeklyHours,
)

NAMESPACE: dict[str, Any] = {name: getattr(slotwise, name) for name in slotwise.__all__}
NAMESPACE["datetime"] = datetime_module


def make_resource(**changes: Any) -> Resource:
    """Return a valid resource with *changes* applied."""
    fields = {"id": "r1", "company_id": "c1", "location_id": "l1", "name": "Alex"}
    return Resource(**{**fields, "timezone": "America/New_York", **changes})


def make_options(**changes: Any) -> ResourceOptions:
    """Return resource options with *changes* applied."""
    return ResourceOptions(**changes)


def make_phones(**changes: Any) -> PhoneNumbers:
    """Return phone numbers with *changes* applied."""
    return PhoneNumbers(**changes)


def make_provider(**changes: Any) -> CalendarProvider:
    """Return a calendar provider connection with *changes* applied."""
    return CalendarProvider(**changes)


class TestResourceName:
    def test_at_limit(self):
        """A 255-character resource name is accepted (spec: Limits)."""
        assert 255 == len(make_resource(name="r" * 255).name)

    def test_one_past_limit(self):
        """A 256-character resource name is refused (spec: Errors 2)."""
        with pytest.raises(FieldTooLong) as info:
            make_resource(name="r" * 256)

        assert ("name", 255, 256) == (info.value.field, info.value.limit, info.value.requested)

    def test_required(self):
        """A blank resource name is refused."""
        with pytest.raises(FieldRequired) as info:
            make_resource(name="")

        assert "name" == info.value.field


class TestResourceFields:
    @pytest.mark.parametrize("name", ["Asia/Kathmandu", "Australia/Lord_Howe", "UTC"])
    def test_timezone_accepted(self, name: str):
        """A resource's own zone may be any IANA name (decision 1)."""
        assert name == make_resource(timezone=name).timezone

    @pytest.mark.parametrize("name", ["Mars/Olympus", "", "localtime", "GMT+5"])
    def test_timezone_refused(self, name: str):
        """Unknown zone names are refused."""
        with pytest.raises(InvalidTimeZone) as info:
            make_resource(timezone=name)

        assert ("timezone", name) == (info.value.field, info.value.value)

    @pytest.mark.parametrize(
        ("field", "limit"), [("description", 4000), ("skype_name", 255), ("reason", 255)]
    )
    def test_text_limits(self, field: str, limit: int):
        """Each text field is accepted at its limit and refused one past it."""
        assert limit == len(getattr(make_resource(**{field: "t" * limit}), field))
        with pytest.raises(FieldTooLong) as info:
            make_resource(**{field: "t" * (limit + 1)})

        assert (field, limit, limit + 1) == (
            info.value.field,
            info.value.limit,
            info.value.requested,
        )

    def test_email_and_image_url(self):
        """email must look like an address and image_url like an http(s) URL."""
        with pytest.raises(InvalidFormat) as email:
            make_resource(email="alex")
        with pytest.raises(InvalidFormat) as image:
            make_resource(image_url="file:///x.png")

        assert ("email", "image_url") == (email.value.field, image.value.field)

    @pytest.mark.parametrize("field", ["recurring_availability", "deleted"])
    def test_flags_must_be_bool(self, field: str):
        """Boolean fields take real bools."""
        with pytest.raises(InvalidFormat) as info:
            make_resource(**{field: "yes"})

        assert field == info.value.field

    def test_deleted_time_must_be_aware(self):
        """A naive deleted_time is refused (STYLE rule 22)."""
        with pytest.raises(NaiveDatetime) as info:
            make_resource(deleted=True, deleted_time=datetime(2026, 1, 5, 9))

        assert "deleted_time" == info.value.field

    def test_deleted_time_must_be_datetime(self):
        """A string deleted_time is refused."""
        with pytest.raises(InvalidFormat) as info:
            make_resource(deleted_time="2026-01-05T09:00:00Z")

        assert "deleted_time" == info.value.field

    def test_defaults(self):
        """A new resource uses recurring availability and takes every service."""
        resource = make_resource()

        assert (True, (), False) == (
            resource.recurring_availability,
            resource.linked_service_ids,
            resource.deleted,
        )


class TestLinkedServices:
    def test_list_becomes_tuple(self):
        """Linked service ids are stored as a tuple in the given order."""
        assert ("s2", "s1") == make_resource(linked_service_ids=["s2", "s1"]).linked_service_ids

    @pytest.mark.parametrize("value", ["s1", [1, 2], 5])
    def test_bad_values_refused(self, value: object):
        """A lone string, non-string ids or a non-iterable is refused, naming the field."""
        with pytest.raises(InvalidFormat) as info:
            make_resource(linked_service_ids=value)

        assert "linked_service_ids" == info.value.field

    def test_takes_service(self):
        """No links take every service; links take only theirs (decision 13)."""
        assert make_resource().takes_service("any")
        linked = make_resource(linked_service_ids=["s1"])

        assert (True, False) == (linked.takes_service("s1"), linked.takes_service("s2"))

    def test_deleted_takes_nothing(self):
        """A deleted resource takes no service (decision 13)."""
        assert not make_resource(deleted=True).takes_service("s1")


class TestPhoneNumbers:
    @pytest.mark.parametrize("field", ["home_phone", "mobile_phone", "business_phone"])
    def test_phone_limits(self, field: str):
        """Each phone takes 7..15 characters; 6 and 16 are refused (spec: Limits)."""
        assert "1" * 7 == getattr(make_phones(**{field: "1" * 7}), field)
        assert "1" * 15 == getattr(make_phones(**{field: "1" * 15}), field)
        with pytest.raises(FieldTooShort) as short:
            make_phones(**{field: "1" * 6})
        with pytest.raises(FieldTooLong) as long:
            make_phones(**{field: "1" * 16})

        assert (field, 7, 6) == (short.value.field, short.value.limit, short.value.requested)
        assert (field, 15, 16) == (long.value.field, long.value.limit, long.value.requested)

    @pytest.mark.parametrize(
        ("field", "limit"),
        [("phone_type", 32), ("business_phone_ext", 10), ("skype_username", 255)],
    )
    def test_text_limits(self, field: str, limit: int):
        """Phone text fields are accepted at their limit and refused one past it."""
        assert limit == len(getattr(make_phones(**{field: "9" * limit}), field))
        with pytest.raises(FieldTooLong) as info:
            make_phones(**{field: "9" * (limit + 1)})

        assert (field, limit) == (info.value.field, info.value.limit)


class TestResourceOptions:
    @pytest.mark.parametrize(
        ("field", "low", "high"),
        [
            ("notification_type", 0, 10),
            ("booking_notification", 0, 10),
            ("sort_key", -(2**31), 2**31 - 1),
        ],
    )
    def test_int_limits(self, field: str, low: int, high: int):
        """Integer options accept both ends and refuse one past either end."""
        assert low == getattr(make_options(**{field: low}), field)
        assert high == getattr(make_options(**{field: high}), field)
        for value in (low - 1, high + 1):
            with pytest.raises(OutOfRange) as info:
                make_options(**{field: value})

            assert (field, value) == (info.value.field, info.value.requested)

    @pytest.mark.parametrize("value", [0, 1, 2])
    def test_calendar_availability_choices(self, value: int):
        """0 = none, 1 = provider A, 2 = provider B (spec: Resource)."""
        assert value == make_options(calendar_availability=value).calendar_availability

    @pytest.mark.parametrize("value", [3, -1, True, 1.0])
    def test_calendar_availability_refused(self, value: object):
        """Other values, and True or 1.0 that merely compare equal to 1, are refused."""
        with pytest.raises(InvalidChoice) as info:
            make_options(calendar_availability=value)

        assert ("calendar_availability", (0, 1, 2)) == (info.value.field, info.value.allowed)

    def test_hourly(self):
        """hourly is None or a finite number of at least 0."""
        assert make_options(hourly=None).hourly is None
        assert 0 == make_options(hourly=0).hourly
        with pytest.raises(OutOfRange) as info:
            make_options(hourly=-1)

        assert "hourly" == info.value.field

    @pytest.mark.parametrize(
        ("field", "limit"), [("effective_date", 32), ("display_color", 32), ("gender", 32)]
    )
    def test_text_limits(self, field: str, limit: int):
        """Option text fields are accepted at their limit and refused one past it."""
        assert limit == len(getattr(make_options(**{field: "o" * limit}), field))
        with pytest.raises(FieldTooLong) as info:
            make_options(**{field: "o" * (limit + 1)})

        assert (field, limit) == (info.value.field, info.value.limit)

    def test_bio_link_is_url(self):
        """bio_link must be an http(s) URL."""
        with pytest.raises(InvalidFormat) as info:
            make_options(bio_link="my bio")

        assert "bio_link" == info.value.field

    def test_ignore_business_hours_is_bool(self):
        """ignore_business_hours takes a real bool."""
        with pytest.raises(InvalidFormat) as info:
            make_options(ignore_business_hours=1)

        assert "ignore_business_hours" == info.value.field


class TestCalendarProvider:
    def test_calendar_id_is_email(self):
        """The provider calendar id is the account e-mail address."""
        assert "a@b.com" == make_provider(calendar_id="a@b.com").calendar_id
        with pytest.raises(InvalidFormat) as info:
            make_provider(calendar_id="not-an-email")

        assert "calendar_id" == info.value.field

    @pytest.mark.parametrize("field", ["auth_return_url", "auth_url"])
    def test_urls(self, field: str):
        """Authorization links must be http(s) URLs."""
        with pytest.raises(InvalidFormat) as info:
            make_provider(**{field: "javascript:alert(1)"})

        assert field == info.value.field

    def test_authorized_is_bool(self):
        """authorized takes a real bool."""
        with pytest.raises(InvalidFormat) as info:
            make_provider(authorized="true")

        assert "authorized" == info.value.field


class TestConsumerView:
    def test_maps_fields(self):
        """The consumer view renames phone to contact and flattens options and providers."""
        deleted_at = datetime(2026, 1, 5, 9, tzinfo=UTC)
        resource = make_resource(
            phone=PhoneNumbers(mobile_phone="5551234"),
            options=ResourceOptions(gender="f", sort_key=3, hourly=50.0),
            provider_a=CalendarProvider(calendar_id="a@b.com", authorized=True),
            deleted=True,
            deleted_time=deleted_at,
        )

        view = resource.consumer_view(timezone_offset=-300)

        assert (
            PhoneNumbers(mobile_phone="5551234"),
            "f",
            3,
            50.0,
            "a@b.com",
            True,
            None,
            False,
            True,
            deleted_at,
            "America/New_York",
            -300,
        ) == (
            view.contact,
            view.gender,
            view.sort_key,
            view.hourly,
            view.provider_a_calendar_id,
            view.provider_a_calendar_authorized,
            view.provider_b_calendar_id,
            view.provider_b_calendar_authorized,
            view.deleted_status,
            view.deleted_time,
            view.timezone_id,
            view.timezone_offset,
        )


class TestResourceGroup:
    def test_name_limits(self):
        """A group name is required, accepted at 255 and refused at 256."""
        group = ResourceGroup(id="g1", company_id="c1", name="g" * 255)
        assert 255 == len(group.name)

        with pytest.raises(FieldTooLong) as info:
            ResourceGroup(id="g1", company_id="c1", name="g" * 256)
        with pytest.raises(FieldRequired):
            ResourceGroup(id="g1", company_id="c1", name=" ")

        assert ("name", 255) == (info.value.field, info.value.limit)

    def test_description_limit(self):
        """A group description is accepted at 4000 and refused at 4001."""
        assert 4000 == len(
            ResourceGroup(id="g1", company_id="c1", name="g", description="d" * 4000).description
            or ""
        )
        with pytest.raises(FieldTooLong) as info:
            ResourceGroup(id="g1", company_id="c1", name="g", description="d" * 4001)

        assert ("description", 4000) == (info.value.field, info.value.limit)


class TestReprs:
    @pytest.mark.parametrize(
        "value",
        [
            make_resource(
                linked_service_ids=["s1"],
                weekly_hours=WeeklyHours(tue=DayWindow(start_time=800, end_time=1630)),
                phone=PhoneNumbers(home_phone="5551234"),
                address=Address(city="Leeds"),
                options=ResourceOptions(hourly=12.5),
                deleted=True,
                deleted_time=datetime(2026, 1, 5, 9, tzinfo=UTC),
            ),
            ResourceGroup(id="g1", company_id="c1", name="Therapists"),
        ],
        ids=lambda value: type(value).__name__,
    )
    def test_reprs_are_valid_python(self, value: object):
        """Resource reprs evaluate back to equal records (STYLE rule 34)."""
        assert value == eval(repr(value), NAMESPACE)
