"""Company, location, settings, booking window and reminder records (slotwise.model.company), and Principal."""

from __future__ import annotations

import datetime as datetime_module
from datetime import date
from typing import Any

import attrs
import pytest

import slotwise
from slotwise.errors import (
    FieldRequired,
    FieldTooLong,
    FieldTooShort,
    InconsistentFields,
    InvalidChoice,
    InvalidFormat,
    InvalidTimeZone,
    OutOfRange,
)
from slotwise.model import (
    Address,
    BookingWindow,
    BusinessHours,
    Company,
    Holiday,
    Location,
    LocationSettings,
    Principal,
    Reminder,
    ReminderSchedule,
    SettingsScope,
)

NAMESPACE: dict[str, Any] = {name: getattr(slotwise, name) for name in slotwise.__all__}
NAMESPACE["datetime"] = datetime_module


def make_company(**changes: Any) -> Company:
    """Return a valid company with *changes* applied."""
    return Company(**{"id": "c1", "name": "Acme Spa", "timezone": "America/New_York", **changes})


def make_location(**changes: Any) -> Location:
    """Return a valid location with *changes* applied."""
    fields = {"id": "l1", "company_id": "c1", "name": "Downtown", "timezone": "Europe/London"}
    return Location(**{**fields, **changes})


def make_settings(**changes: Any) -> LocationSettings:
    """Return location settings with *changes* applied."""
    return LocationSettings(**changes)


def email_of_length(length: int) -> str:
    """Return a syntactically valid e-mail address of exactly *length* characters."""
    domain = "@example.com"
    return "a" * (length - len(domain)) + domain


class TestCompanyName:
    def test_at_limit(self):
        """A 255-character company name is accepted."""
        assert "x" * 255 == make_company(name="x" * 255).name

    def test_one_past_limit(self):
        """A 256-character company name is refused with the limit and the length."""
        with pytest.raises(FieldTooLong) as info:
            make_company(name="x" * 256)

        assert ("name", 255, 256) == (info.value.field, info.value.limit, info.value.requested)

    @pytest.mark.parametrize("name", ["", "   ", None])
    def test_required(self, name: str | None):
        """A blank or missing company name is refused."""
        with pytest.raises(FieldRequired) as info:
            make_company(name=name)

        assert "name" == info.value.field

    def test_not_a_string(self):
        """A non-string name is refused as a format error."""
        with pytest.raises(InvalidFormat) as info:
            make_company(name=42)

        assert "name" == info.value.field


class TestCompanyTimezone:
    @pytest.mark.parametrize(
        "name", ["America/New_York", "UTC", "Asia/Kathmandu", "Pacific/Chatham", "EST5EDT"]
    )
    def test_iana_names(self, name: str):
        """IANA names shipped by tzdata are accepted (decision 1; EST5EDT is one)."""
        assert name == make_company(timezone=name).timezone

    @pytest.mark.parametrize(
        "name", ["Mars/Olympus", "", "localtime", " UTC", "utc/x", "+05:00", None, 5]
    )
    def test_other_values_are_refused(self, name: object):
        """Unknown names, blanks, 'localtime', offsets and non-strings are refused (spec: Errors 7)."""
        with pytest.raises(InvalidTimeZone) as info:
            make_company(timezone=name)

        assert ("timezone", name) == (info.value.field, info.value.value)


class TestCompanyContact:
    def test_email_at_limit(self):
        """A 254-character e-mail address is accepted."""
        assert 254 == len(make_company(email=email_of_length(254)).email or "")

    def test_email_one_past_limit(self):
        """A 255-character e-mail address is refused."""
        with pytest.raises(InvalidFormat) as info:
            make_company(email=email_of_length(255))

        assert "email" == info.value.field

    @pytest.mark.parametrize("value", ["nobody", "a@b", "a b@c.de", "a@@b.de", "@b.de", "a@b."])
    def test_email_shapes_are_refused(self, value: str):
        """Addresses without one '@', a dotted domain or with spaces are refused."""
        with pytest.raises(InvalidFormat) as info:
            make_company(email=value)

        assert ("email", value) == (info.value.field, info.value.value)

    def test_phone_at_lower_limit(self):
        """A 7-character phone is accepted (spec: Limits)."""
        assert "5551234" == make_company(phone="5551234").phone

    def test_phone_below_lower_limit(self):
        """A 6-character phone is refused as too short."""
        with pytest.raises(FieldTooShort) as info:
            make_company(phone="555123")

        assert ("phone", 7, 6) == (info.value.field, info.value.limit, info.value.requested)

    def test_phone_at_upper_limit(self):
        """A 15-character phone is accepted; spacing and characters are not checked (spec: Errors 4)."""
        assert "+1 (555) 123-45" == make_company(phone="+1 (555) 123-45").phone

    def test_phone_above_upper_limit(self):
        """A 16-character phone is refused as too long."""
        with pytest.raises(FieldTooLong) as info:
            make_company(phone="1" * 16)

        assert ("phone", 15, 16) == (info.value.field, info.value.limit, info.value.requested)

    def test_phone_not_a_string(self):
        """A numeric phone is refused as a format error."""
        with pytest.raises(InvalidFormat) as info:
            make_company(phone=5551234)

        assert "phone" == info.value.field

    @pytest.mark.parametrize(
        "field",
        ["website", "booking_webhook_url", "customer_webhook_url", "reminder_webhook_url"],
    )
    def test_url_limit(self, field: str):
        """URLs up to 2048 characters are accepted; 2049 are refused."""
        url = "https://example.com/" + "x" * (2048 - len("https://example.com/"))
        assert url == getattr(make_company(**{field: url}), field)

        with pytest.raises(InvalidFormat) as info:
            make_company(**{field: url + "x"})

        assert field == info.value.field

    @pytest.mark.parametrize("value", ["ftp://example.com", "example.com", "https://", "http:// x"])
    def test_url_shapes_are_refused(self, value: str):
        """Only http and https URLs with a host are accepted."""
        with pytest.raises(InvalidFormat) as info:
            make_company(website=value)

        assert "website" == info.value.field

    def test_webhook_signature_hash_limit(self):
        """The webhook signature key is at most 255 characters."""
        assert 255 == len(
            make_company(webhook_signature_hash="k" * 255).webhook_signature_hash or ""
        )
        with pytest.raises(FieldTooLong) as info:
            make_company(webhook_signature_hash="k" * 256)

        assert ("webhook_signature_hash", 255) == (info.value.field, info.value.limit)

    def test_notifications_disabled_must_be_bool(self):
        """notifications_disabled takes a real bool, not 1."""
        with pytest.raises(InvalidFormat) as info:
            make_company(notifications_disabled=1)

        assert "notifications_disabled" == info.value.field


class TestCompanyUsers:
    def test_business_user_emails_become_a_tuple(self):
        """A list of business user e-mails is stored as a tuple."""
        company = make_company(business_user_emails=["a@x.com", "b@x.com"])

        assert ("a@x.com", "b@x.com") == company.business_user_emails

    def test_lone_string_is_refused(self):
        """One string is not a list of e-mails; the error names the field."""
        with pytest.raises(InvalidFormat) as info:
            make_company(business_user_emails="a@x.com")

        assert "business_user_emails" == info.value.field

    def test_company_is_its_own_tenant(self):
        """A company's company_id is its id."""
        assert "c1" == make_company().company_id


class TestAddress:
    @pytest.mark.parametrize(
        ("field", "limit"),
        [
            ("address_line1", 255),
            ("address_line2", 255),
            ("city", 255),
            ("state", 255),
            ("country", 255),
            ("postal_code", 32),
        ],
    )
    def test_length_limits(self, field: str, limit: int):
        """Each address line is accepted at its limit and refused one past it."""
        assert "a" * limit == getattr(Address(**{field: "a" * limit}), field)
        with pytest.raises(FieldTooLong) as info:
            Address(**{field: "a" * (limit + 1)})

        assert (field, limit, limit + 1) == (
            info.value.field,
            info.value.limit,
            info.value.requested,
        )


class TestBookingWindow:
    def test_default_is_one_week(self):
        """The default book-ahead is 1 week with no lead time (spec: Limits)."""
        window = BookingWindow()

        assert ("weeks", 1, 0) == (
            window.book_ahead_unit,
            window.book_ahead_value,
            window.book_in_advance_mins,
        )

    @pytest.mark.parametrize(("unit", "limit"), [("days", 730), ("weeks", 104), ("months", 24)])
    def test_book_ahead_at_limit(self, unit: str, limit: int):
        """About two years ahead is accepted in each unit."""
        window = BookingWindow(book_ahead_unit=unit, book_ahead_value=limit)  # type: ignore[arg-type]

        assert limit == window.book_ahead_value

    @pytest.mark.parametrize(("unit", "limit"), [("days", 730), ("weeks", 104), ("months", 24)])
    def test_book_ahead_one_past_limit(self, unit: str, limit: int):
        """One unit past two years is refused, naming the unit's limit."""
        with pytest.raises(OutOfRange) as info:
            BookingWindow(book_ahead_unit=unit, book_ahead_value=limit + 1)  # type: ignore[arg-type]

        assert ("book_ahead_value", limit + 1) == (info.value.field, info.value.requested)
        assert f"between 1 and {limit} {unit}" == info.value.allowed

    @pytest.mark.parametrize("unit", ["days", "weeks", "months"])
    def test_book_ahead_lower_bound(self, unit: str):
        """1 is the smallest horizon; 0 is refused."""
        assert 1 == BookingWindow(book_ahead_unit=unit, book_ahead_value=1).book_ahead_value  # type: ignore[arg-type]
        with pytest.raises(OutOfRange) as info:
            BookingWindow(book_ahead_unit=unit, book_ahead_value=0)  # type: ignore[arg-type]

        assert "book_ahead_value" == info.value.field

    def test_book_ahead_unit_choices(self):
        """Units other than days, weeks and months are refused."""
        with pytest.raises(InvalidChoice) as info:
            BookingWindow(book_ahead_unit="years")  # type: ignore[arg-type]

        assert ("book_ahead_unit", ("days", "weeks", "months"), "years") == (
            info.value.field,
            info.value.allowed,
            info.value.requested,
        )

    def test_book_ahead_value_must_be_int(self):
        """A bool horizon is refused as a format error."""
        with pytest.raises(InvalidFormat) as info:
            BookingWindow(book_ahead_value=True)

        assert "book_ahead_value" == info.value.field

    def test_book_in_advance_bounds(self):
        """Lead time runs 0..525600 minutes (one year); -1 and 525601 are refused."""
        assert 0 == BookingWindow(book_in_advance_mins=0).book_in_advance_mins
        assert 525_600 == BookingWindow(book_in_advance_mins=525_600).book_in_advance_mins
        for value in (-1, 525_601):
            with pytest.raises(OutOfRange) as info:
                BookingWindow(book_in_advance_mins=value)

            assert ("book_in_advance_mins", value) == (info.value.field, info.value.requested)


class TestHoliday:
    def test_name_limit(self):
        """A holiday name is accepted at 255 characters and refused at 256."""
        assert "h" * 255 == Holiday(date=date(2026, 12, 25), name="h" * 255).name
        with pytest.raises(FieldTooLong) as info:
            Holiday(date=date(2026, 12, 25), name="h" * 256)

        assert ("name", 255) == (info.value.field, info.value.limit)


SETTINGS_INTS = [
    ("booking_timer_mins", 1, 1440),
    ("customer_bookings_per_day", 0, 1000),
    ("late_cancel_hours", 0, 8760),
    ("late_cancel_action", 0, 10),
    ("late_reschedule_hours", 0, 8760),
    ("late_reschedule_action", 0, 10),
    ("form_flow", 0, 100),
    ("availability_form", 0, 100),
]
SETTINGS_TEXTS = [
    ("booking_policy", 4000),
    ("booking_message", 4000),
    ("booking_confirmation_message", 4000),
    ("service_label", 255),
    ("resource_label", 255),
    ("resource_any_label", 255),
]
SETTINGS_BOOLS = [
    field.name
    for field in attrs.fields(LocationSettings)
    if isinstance(getattr(LocationSettings(), field.name), bool)
]


class TestLocationSettings:
    def test_defaults(self):
        """The booking timer defaults to 10 minutes with a one-week booking window (decision 19)."""
        settings = LocationSettings()

        assert (10, BookingWindow()) == (settings.booking_timer_mins, settings.booking_window)

    @pytest.mark.parametrize(("field", "low", "high"), SETTINGS_INTS)
    def test_int_bounds_accept_limits(self, field: str, low: int, high: int):
        """Each integer setting accepts both ends of its range."""
        assert low == getattr(make_settings(**{field: low}), field)
        assert high == getattr(make_settings(**{field: high}), field)

    @pytest.mark.parametrize(("field", "low", "high"), SETTINGS_INTS)
    def test_int_bounds_refuse_one_past(self, field: str, low: int, high: int):
        """Each integer setting refuses one below and one above its range."""
        for value in (low - 1, high + 1):
            with pytest.raises(OutOfRange) as info:
                make_settings(**{field: value})

            assert (field, value, f"between {low} and {high}") == (
                info.value.field,
                info.value.requested,
                info.value.allowed,
            )

    @pytest.mark.parametrize(("field", "limit"), SETTINGS_TEXTS)
    def test_text_limits(self, field: str, limit: int):
        """Each text setting is accepted at its limit and refused one past it."""
        assert limit == len(getattr(make_settings(**{field: "t" * limit}), field))
        with pytest.raises(FieldTooLong) as info:
            make_settings(**{field: "t" * (limit + 1)})

        assert (field, limit, limit + 1) == (
            info.value.field,
            info.value.limit,
            info.value.requested,
        )

    @pytest.mark.parametrize("field", SETTINGS_BOOLS)
    def test_flags_must_be_bool(self, field: str):
        """Every flag takes a real bool; 1 is refused."""
        with pytest.raises(InvalidFormat) as info:
            make_settings(**{field: 1})

        assert field == info.value.field

    def test_flags_cover_the_spec_booleans(self):
        """The spec's boolean settings are all present (spec: Location, settings fields)."""
        assert {"book_with_account", "customer_verification", "hide_bread_crumb_nav"} <= set(
            SETTINGS_BOOLS
        )


class TestReminder:
    @pytest.mark.parametrize(
        ("unit", "limit"), [("minutes", 1440), ("hours", 24), ("days", 30), ("weeks", 8)]
    )
    def test_value_bounds_accepted(self, unit: str, limit: int):
        """1 and the unit's maximum are accepted (decision 28: hours 1..24; 47: minutes)."""
        assert 1 == Reminder(unit=unit, value=1).value  # type: ignore[arg-type]
        assert limit == Reminder(unit=unit, value=limit).value  # type: ignore[arg-type]

    @pytest.mark.parametrize(
        ("unit", "limit"), [("minutes", 1440), ("hours", 24), ("days", 30), ("weeks", 8)]
    )
    def test_value_bounds_refused(self, unit: str, limit: int):
        """0 and one past the unit's maximum are refused, naming the unit's range."""
        for value in (0, limit + 1):
            with pytest.raises(OutOfRange) as info:
                Reminder(unit=unit, value=value)  # type: ignore[arg-type]

            assert ("value", value, f"between 1 and {limit} {unit}") == (
                info.value.field,
                info.value.requested,
                info.value.allowed,
            )

    @pytest.mark.parametrize("value", [True, 2.0, "2"])
    def test_value_must_be_int(self, value: object):
        """A bool, float or string lead time is refused."""
        with pytest.raises(OutOfRange) as info:
            Reminder(unit="hours", value=value)  # type: ignore[arg-type]

        assert "value" == info.value.field

    def test_unit_choices(self):
        """Seconds are not a reminder unit."""
        with pytest.raises(InvalidChoice) as info:
            Reminder(unit="seconds", value=30)  # type: ignore[arg-type]

        assert ("unit", "seconds") == (info.value.field, info.value.requested)

    def test_minutes(self):
        """A reminder of 30 minutes is due half an hour before; it may follow one of an hour."""
        schedule = ReminderSchedule(
            email_first=Reminder(unit="hours", value=1),
            email_second=Reminder(unit="minutes", value=30),
        )

        assert 30 == Reminder(unit="minutes", value=30).lead_minutes
        assert schedule.email_second == Reminder(unit="minutes", value=30)

    @pytest.mark.parametrize(
        ("unit", "value", "minutes"), [("hours", 2, 120), ("days", 1, 1440), ("weeks", 1, 10080)]
    )
    def test_lead_minutes(self, unit: str, value: int, minutes: int):
        """A reminder's lead time converts to minutes."""
        assert minutes == Reminder(unit=unit, value=value).lead_minutes  # type: ignore[arg-type]


class TestReminderSchedule:
    @pytest.mark.parametrize("channel", ["email", "sms"])
    def test_second_closer_to_start_is_accepted(self, channel: str):
        """A second reminder 23 hours before follows a first one 1 day before (decision 28)."""
        schedule = ReminderSchedule(
            **{
                f"{channel}_first": Reminder(unit="days", value=1),
                f"{channel}_second": Reminder(unit="hours", value=23),
            }
        )

        assert Reminder(unit="hours", value=23) == getattr(schedule, f"{channel}_second")

    @pytest.mark.parametrize("channel", ["email", "sms"])
    def test_second_at_same_lead_is_refused(self, channel: str):
        """A second reminder as early as the first (24 hours vs 1 day) is refused."""
        with pytest.raises(InconsistentFields) as info:
            ReminderSchedule(
                **{
                    f"{channel}_first": Reminder(unit="days", value=1),
                    f"{channel}_second": Reminder(unit="hours", value=24),
                }
            )

        assert f"{channel}_second" == info.value.field

    @pytest.mark.parametrize("channel", ["email", "sms"])
    def test_second_before_first_is_refused(self, channel: str):
        """A second reminder earlier than the first is refused."""
        with pytest.raises(InconsistentFields):
            ReminderSchedule(
                **{
                    f"{channel}_first": Reminder(unit="hours", value=2),
                    f"{channel}_second": Reminder(unit="hours", value=3),
                }
            )

    @pytest.mark.parametrize("channel", ["email", "sms"])
    def test_second_needs_first(self, channel: str):
        """A second reminder without a first is refused, naming the missing first."""
        with pytest.raises(FieldRequired) as info:
            ReminderSchedule(**{f"{channel}_second": Reminder(unit="hours", value=2)})

        assert f"{channel}_first" == info.value.field

    def test_first_alone_and_empty_are_fine(self):
        """A schedule with only first reminders, or none, is valid."""
        first = Reminder(unit="weeks", value=1)

        assert first == ReminderSchedule(email_first=first, sms_first=first).sms_first
        assert ReminderSchedule().email_first is None


class TestLocation:
    def test_name_at_limit(self):
        """A 50-character location name is accepted (spec: Limits)."""
        assert "n" * 50 == make_location(name="n" * 50).name

    def test_name_one_past_limit(self):
        """A 51-character location name is refused (spec: Errors 3)."""
        with pytest.raises(FieldTooLong) as info:
            make_location(name="n" * 51)

        assert ("name", 50, 51) == (info.value.field, info.value.limit, info.value.requested)

    def test_name_required(self):
        """A blank location name is refused."""
        with pytest.raises(FieldRequired) as info:
            make_location(name=" ")

        assert "name" == info.value.field

    def test_timezone_validated(self):
        """A location's zone must be an IANA name too (decision 1)."""
        with pytest.raises(InvalidTimeZone) as info:
            make_location(timezone="Mars/Olympus")

        assert "timezone" == info.value.field

    @pytest.mark.parametrize("field", ["phone", "fax"])
    def test_phone_limits(self, field: str):
        """Phone and fax take 7..15 characters."""
        assert "1" * 7 == getattr(make_location(**{field: "1" * 7}), field)
        assert "1" * 15 == getattr(make_location(**{field: "1" * 15}), field)
        with pytest.raises(FieldTooShort) as short:
            make_location(**{field: "1" * 6})
        with pytest.raises(FieldTooLong) as long:
            make_location(**{field: "1" * 16})

        assert (field, field) == (short.value.field, long.value.field)

    @pytest.mark.parametrize("field", ["website", "logo"])
    def test_urls(self, field: str):
        """Website and logo must be http(s) URLs."""
        with pytest.raises(InvalidFormat) as info:
            make_location(**{field: "not a url"})

        assert field == info.value.field

    def test_friendly_id_at_limit(self):
        """A 64-character friendly id of letters, digits, '-' and '_' is accepted."""
        value = "Main-1_" + "x" * 57

        assert value == make_location(friendly_id=value).friendly_id

    @pytest.mark.parametrize("value", ["x" * 65, "", "main street", "main/1", "ümlaut!"])
    def test_friendly_id_refused(self, value: str):
        """Friendly ids past 64 characters, empty, or with other characters are refused."""
        with pytest.raises(InvalidFormat) as info:
            make_location(friendly_id=value)

        assert ("friendly_id", value) == (info.value.field, info.value.value)

    def test_holidays_are_sorted(self):
        """Holidays are kept in date order whatever order they came in."""
        later, earlier = Holiday(date=date(2026, 12, 25)), Holiday(date=date(2026, 1, 1))

        location = make_location(holidays=[later, earlier])

        assert (earlier, later) == location.holidays
        assert location.is_holiday(date(2026, 1, 1))
        assert not location.is_holiday(date(2026, 1, 2))

    def test_settings_scope_converts_codes(self):
        """The spec code 'company' converts to SettingsScope.COMPANY."""
        assert SettingsScope.COMPANY is make_location(settings_scope="company").settings_scope

    def test_settings_scope_refuses_unknown_codes(self):
        """An unknown scope is refused naming settings_scope."""
        with pytest.raises(InvalidChoice) as info:
            make_location(settings_scope="region")

        assert ("settings_scope", ("company", "location"), "region") == (
            info.value.field,
            info.value.allowed,
            info.value.requested,
        )

    def test_defaults(self):
        """A new location has 9-5 weekday hours, default settings and its own scope."""
        location = make_location()

        assert (BusinessHours(), LocationSettings(), SettingsScope.LOCATION) == (
            location.business_hours,
            location.settings,
            location.settings_scope,
        )

    @pytest.mark.parametrize(
        ("latitude", "longitude"), [(-90, -180), (90, 180), (0, 0), (52.3676, 4.9041), (-33.9, 18)]
    )
    def test_coordinates_within_the_globe(self, latitude: float, longitude: float):
        """Latitudes -90..90 and longitudes -180..180 are kept, both ends included."""
        location = make_location(latitude=latitude, longitude=longitude)

        assert (latitude, longitude) == (location.latitude, location.longitude)

    @pytest.mark.parametrize(
        ("field", "value", "allowed"),
        [
            ("latitude", 90.0001, "between -90 and 90"),
            ("latitude", -91, "between -90 and 90"),
            ("longitude", 180.5, "between -180 and 180"),
            ("longitude", -181, "between -180 and 180"),
        ],
    )
    def test_coordinates_off_the_globe_are_refused(self, field: str, value: float, allowed: str):
        """A latitude off -90..90 or a longitude off -180..180 is OutOfRange naming its field."""
        with pytest.raises(OutOfRange) as info:
            make_location(**{field: value})

        assert (field, allowed, value) == (
            info.value.field,
            info.value.allowed,
            info.value.requested,
        )
        assert f"{field} must be {allowed}" in info.value.message

    @pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf"), "52.1", True])
    @pytest.mark.parametrize("field", ["latitude", "longitude"])
    def test_a_coordinate_is_a_finite_number(self, field: str, value: object):
        """NaN, infinities, text and booleans are InvalidFormat naming the field."""
        with pytest.raises(InvalidFormat) as info:
            make_location(**{field: value})

        assert field == info.value.field


class TestPrincipal:
    @pytest.mark.parametrize("company_id", ["", None])
    def test_company_id_required(self, company_id: str | None):
        """A principal without a company is refused."""
        with pytest.raises(FieldRequired) as info:
            Principal(company_id=company_id)  # type: ignore[arg-type]

        assert "company_id" == info.value.field

    def test_all_locations_by_default(self):
        """Without location_ids a principal may use every location."""
        assert Principal(company_id="c1").may_use_location("anything")

    def test_location_ids_limit_the_caller(self):
        """A list of location ids becomes a frozenset that limits the caller (decision 30)."""
        principal = Principal(company_id="c1", location_ids=["l1", "l2"])

        assert frozenset({"l1", "l2"}) == principal.location_ids
        assert principal.may_use_location("l1")
        assert not principal.may_use_location("l3")

    def test_lone_string_location_ids_refused(self):
        """One string is not a set of location ids (it would become a set of characters)."""
        with pytest.raises(InvalidFormat) as info:
            Principal(company_id="c1", location_ids="l1")

        assert "location_ids" == info.value.field


class TestReprs:
    @pytest.mark.parametrize(
        "value",
        [
            make_company(business_user_emails=["a@x.com"], phone="5551234"),
            make_location(
                holidays=[Holiday(date=date(2026, 12, 25), name="Xmas")],
                reminders=ReminderSchedule(email_first=Reminder(unit="days", value=1)),
                settings_scope=SettingsScope.COMPANY,
            ),
            LocationSettings(booking_window=BookingWindow(book_ahead_unit="days")),
            Principal(company_id="c1", location_ids=["l1"]),
        ],
        ids=lambda value: type(value).__name__,
    )
    def test_reprs_are_valid_python(self, value: object):
        """Record reprs evaluate back to equal records (STYLE rule 34)."""
        assert value == eval(repr(value), NAMESPACE)

    def test_enum_repr(self):
        """Enum reprs read Class.MEMBER."""
        assert "SettingsScope.COMPANY" == repr(SettingsScope.COMPANY)

    def test_records_are_frozen(self):
        """Records cannot be changed in place; attrs.evolve makes a validated copy."""
        company = make_company()

        with pytest.raises(attrs.exceptions.FrozenInstanceError):
            company.name = "Other"  # type: ignore[misc]
        with pytest.raises(FieldTooLong):
            attrs.evolve(company, name="x" * 256)
