"""
Resources (people, places or objects that are booked) and resource groups.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

import attrs

from ._checks import (
    as_utc,
    check_aware,
    check_bool,
    check_choice,
    check_email,
    check_int,
    check_number,
    check_phone,
    check_text,
    check_url,
    check_zone,
    str_tuple,
)
from ._shared import shared
from .company import Address
from .hours import WeeklyHours

__all__ = [
    "CalendarProvider",
    "PhoneNumbers",
    "Resource",
    "ResourceConsumerView",
    "ResourceGroup",
    "ResourceOptions",
]

RESOURCE_NAME_MAX = 255

CALENDAR_AVAILABILITY = (0, 1, 2)
"""0 = no external calendar, 1 = provider A, 2 = provider B."""


@attrs.frozen(kw_only=True)
class PhoneNumbers:
    """
    A resource's phone numbers (``contact`` in the consumer view, ``phone`` in the setup view).

    .. versionadded:: 0.1
    """

    phone_type: str | None = attrs.field(default=None, validator=check_text(max_len=32))
    home_phone: str | None = attrs.field(default=None, validator=check_phone)
    mobile_phone: str | None = attrs.field(default=None, validator=check_phone)
    business_phone: str | None = attrs.field(default=None, validator=check_phone)
    business_phone_ext: str | None = attrs.field(default=None, validator=check_text(max_len=10))
    skype_username: str | None = attrs.field(default=None, validator=check_text(max_len=255))


@attrs.frozen(kw_only=True)
class CalendarProvider:
    """
    A resource's connection to one external calendar provider.

    ``calendar_id`` is the account e-mail to connect; ``auth_url`` is the authorization link the
    provider plugin created; ``authorized`` turns true when authorization succeeded.

    .. versionadded:: 0.1
    """

    calendar_id: str | None = attrs.field(default=None, validator=check_email)
    auth_return_url: str | None = attrs.field(default=None, validator=check_url)
    auth_url: str | None = attrs.field(default=None, validator=check_url)
    authorized: bool = attrs.field(default=False, validator=check_bool)


@attrs.frozen(kw_only=True)
class ResourceOptions:
    """
    The setup view's ``options`` of a resource.

    .. versionadded:: 0.1
    """

    effective_date: str | None = attrs.field(default=None, validator=check_text(max_len=32))
    notification_type: int = attrs.field(default=0, validator=check_int(low=0, high=10))
    display_color: str | None = attrs.field(default=None, validator=check_text(max_len=32))
    ignore_business_hours: bool = attrs.field(default=False, validator=check_bool)
    gender: str | None = attrs.field(default=None, validator=check_text(max_len=32))
    hourly: float | None = attrs.field(default=None, validator=check_number(low=0, optional=True))
    calendar_availability: int = attrs.field(
        default=0, validator=check_choice(*CALENDAR_AVAILABILITY)
    )
    booking_notification: int = attrs.field(default=0, validator=check_int(low=0, high=10))
    sort_key: int = attrs.field(default=0, validator=check_int(low=-(2**31), high=2**31 - 1))
    bio_link: str | None = attrs.field(default=None, validator=check_url)


def _to_linked_service_ids(value: Iterable[str]) -> tuple[str, ...]:
    return str_tuple(value, field="linked_service_ids")


def _shared_hours(value: WeeklyHours) -> WeeklyHours:
    # Resources of equal hours hold one object: the availability set-up tells resources alike
    # apart by their hours, and equal objects compare at once (issue 23; memory too).
    return shared(value) if value.__class__ is WeeklyHours else value


@attrs.frozen(kw_only=True)
class Resource:
    """
    A staff member, room or object that is booked (the setup view).

    ``weekly_hours`` are wall times in ``timezone`` (the resource's own zone, defaulting to the
    location's). With ``recurring_availability`` false, the resource is open only inside its
    allocations. ``linked_service_ids`` empty means every service may be booked for it.
    A deleted resource keeps its record (``deleted``, ``deleted_time``) and can be recovered.

    .. versionadded:: 0.1
    """

    id: str
    company_id: str
    location_id: str
    name: str = attrs.field(validator=check_text(max_len=RESOURCE_NAME_MAX, required=True))
    timezone: str = attrs.field(validator=check_zone)
    email: str | None = attrs.field(default=None, validator=check_email)
    group_id: str | None = None
    description: str | None = attrs.field(default=None, validator=check_text(max_len=4000))
    image_url: str | None = attrs.field(default=None, validator=check_url)
    skype_name: str | None = attrs.field(default=None, validator=check_text(max_len=255))
    phone: PhoneNumbers = attrs.field(factory=PhoneNumbers)
    address: Address = attrs.field(factory=Address)
    options: ResourceOptions = attrs.field(factory=ResourceOptions)
    provider_a: CalendarProvider = attrs.field(factory=CalendarProvider)
    provider_b: CalendarProvider = attrs.field(factory=CalendarProvider)
    recurring_availability: bool = attrs.field(default=True, validator=check_bool)
    weekly_hours: WeeklyHours = attrs.field(factory=WeeklyHours, converter=_shared_hours)
    linked_service_ids: tuple[str, ...] = attrs.field(default=(), converter=_to_linked_service_ids)
    reason: str | None = attrs.field(default=None, validator=check_text(max_len=255))
    deleted: bool = attrs.field(default=False, validator=check_bool)
    deleted_time: datetime | None = attrs.field(
        default=None, converter=as_utc, validator=check_aware
    )

    def takes_service(self, service_id: str) -> bool:
        """Tell whether this resource may be booked for *service_id* (deleted resources take none)."""
        if self.deleted:
            return False
        return not self.linked_service_ids or service_id in self.linked_service_ids

    def consumer_view(self, *, timezone_offset: int) -> ResourceConsumerView:
        """
        Return the consumer view: ``contact`` instead of ``phone``, flattened options.

        Args:
            timezone_offset: the zone's offset from UTC in minutes at the moment of the read.
        """
        return ResourceConsumerView(
            id=self.id,
            location_id=self.location_id,
            name=self.name,
            email=self.email,
            group_id=self.group_id,
            description=self.description,
            image_url=self.image_url,
            deleted_status=self.deleted,
            deleted_time=self.deleted_time,
            gender=self.options.gender,
            skype_name=self.skype_name,
            bio_link=self.options.bio_link,
            timezone_id=self.timezone,
            timezone_offset=timezone_offset,
            effective_date=self.options.effective_date,
            ignore_business_hours=self.options.ignore_business_hours,
            notification_type=self.options.notification_type,
            booking_notification=self.options.booking_notification,
            calendar_availability=self.options.calendar_availability,
            sort_key=self.options.sort_key,
            hourly=self.options.hourly,
            contact=self.phone,
            address=self.address,
            provider_a_calendar_id=self.provider_a.calendar_id,
            provider_b_calendar_id=self.provider_b.calendar_id,
            provider_a_calendar_authorized=self.provider_a.authorized,
            provider_b_calendar_authorized=self.provider_b.authorized,
        )


@attrs.frozen(kw_only=True)
class ResourceConsumerView:
    """
    What the consumer interface shows of a resource.

    .. versionadded:: 0.1
    """

    id: str
    location_id: str
    name: str
    email: str | None
    group_id: str | None
    description: str | None
    image_url: str | None
    deleted_status: bool
    deleted_time: datetime | None
    gender: str | None
    skype_name: str | None
    bio_link: str | None
    timezone_id: str
    timezone_offset: int
    effective_date: str | None
    ignore_business_hours: bool
    notification_type: int
    booking_notification: int
    calendar_availability: int
    sort_key: int
    hourly: float | None
    contact: PhoneNumbers
    address: Address
    provider_a_calendar_id: str | None
    provider_b_calendar_id: str | None
    provider_a_calendar_authorized: bool
    provider_b_calendar_authorized: bool


@attrs.frozen(kw_only=True)
class ResourceGroup:
    """
    A group of resources, for internal management and for narrowing availability searches.

    .. versionadded:: 0.1
    """

    id: str
    company_id: str
    location_id: str | None = None
    name: str = attrs.field(validator=check_text(max_len=255, required=True))
    description: str | None = attrs.field(default=None, validator=check_text(max_len=4000))
