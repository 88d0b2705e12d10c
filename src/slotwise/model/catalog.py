"""
The catalogue: services (bookable offerings) and service groups.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from slotwise.errors import InconsistentFields

from ._checks import (
    check_bool,
    check_choice,
    check_int,
    check_number,
    check_text,
    mapping_repr,
    to_enum,
)
from ._enum import SpecEnum
from ._frozen import freeze_json
from .calendar import SLOT_INTERVALS
from .company import BookingWindow
from .hours import WeeklyHours

__all__ = ["RoundRobin", "Service", "ServiceGroup", "ServiceScope", "ServiceType"]

SERVICE_NAME_MAX = 255
SERVICE_NAME_CREATE_MAX = 50
DURATION_MAX = 1440 * 7


class ServiceType(SpecEnum):
    """
    Kind of service: ``APPOINTMENT`` is open in its weekly hours; ``EVENT`` only inside its allocations.

    .. versionadded:: 0.1
    """

    APPOINTMENT = "appointment"
    EVENT = "event"


class ServiceScope(SpecEnum):
    """
    ``COMPANY`` services live at the primary location and are usable at every location.

    .. versionadded:: 0.1
    """

    COMPANY = "company"
    LOCATION = "location"


class RoundRobin(SpecEnum):
    """
    How availability picks a resource when none is named (decision 12).

    .. versionadded:: 0.1
    """

    NONE = "none"
    BALANCED = "balanced"
    RANDOM = "random"


# Named converters, so an unknown code raises InvalidChoice naming the field (not a bare ValueError).
def _to_service_type(value: object) -> ServiceType:
    return to_enum(ServiceType, value, field="type")


def _to_service_scope(value: object) -> ServiceScope:
    return to_enum(ServiceScope, value, field="scope")


def _to_round_robin(value: object) -> RoundRobin:
    return to_enum(RoundRobin, value, field="round_robin")


def _frozen_options(value: Mapping[str, Any] | None) -> Mapping[str, Any]:
    # FrozenJSON, not MappingProxyType: read-only and still picklable and deep-copyable.
    frozen: Mapping[str, Any] = freeze_json(dict(value or {}), field="options")
    return frozen


def _check_group_limits(instance: Service, _attribute: Any, _value: Any) -> None:
    # Spec: Errors, rule 1: "maxCapacity and maxGroupSize must both be 0 or both greater than 0".
    if (instance.max_capacity == 0) != (instance.max_group_size == 0):
        raise InconsistentFields(
            "max_capacity and max_group_size must both be 0 or both greater than 0, got "
            f"max_capacity={instance.max_capacity}, max_group_size={instance.max_group_size}",
            field="max_group_size",
        )
    if instance.max_capacity and instance.max_group_size > instance.max_capacity:
        raise InconsistentFields(
            f"max_group_size ({instance.max_group_size}) must not exceed max_capacity "
            f"({instance.max_capacity})",
            field="max_group_size",
        )


def _check_durations(instance: Service, _attribute: Any, _value: Any) -> None:
    low, high = instance.duration_min, instance.duration_max
    if low is not None and high is not None:
        if high < low:
            raise InconsistentFields(
                f"duration_max ({high}) must be at least duration_min ({low})", field="duration_max"
            )
        # Spec: Errors, rule 1: "durationMax must be evenly divisible by durationMin".
        if high % low:
            raise InconsistentFields(
                f"duration_max ({high}) must be evenly divisible by duration_min ({low})",
                field="duration_max",
            )
    if instance.duration_select and (low is None or high is None):
        raise InconsistentFields(
            "duration_select needs duration_min and duration_max", field="duration_select"
        )


@attrs.frozen(kw_only=True)
class Service:
    """
    A bookable offering.

    ``booking_limit`` 0 means the calendar's ``bookings_per_slot`` applies; ``max_capacity`` and
    ``max_group_size`` are both 0 (one person per booking) or both positive. ``availability``
    holds the service's weekly hours in the location's zone; ``booking_window`` overrides the
    location's book-ahead and book-in-advance settings when set.

    .. versionadded:: 0.1
    """

    id: str
    company_id: str
    location_id: str
    name: str = attrs.field(validator=check_text(max_len=SERVICE_NAME_MAX, required=True))
    duration: int = attrs.field(validator=check_int(low=1, high=DURATION_MAX))
    type: ServiceType = attrs.field(default=ServiceType.APPOINTMENT, converter=_to_service_type)
    scope: ServiceScope = attrs.field(default=ServiceScope.LOCATION, converter=_to_service_scope)
    description: str | None = attrs.field(default=None, validator=check_text(max_len=4000))
    image_url: str | None = attrs.field(default=None, validator=check_text(max_len=2048))
    service_group_id: str | None = None
    show_online: bool = attrs.field(default=True, validator=check_bool)
    default_service: bool = attrs.field(default=False, validator=check_bool)
    duration_select: bool = attrs.field(default=False, validator=check_bool)
    duration_min: int | None = attrs.field(
        default=None, validator=check_int(low=1, high=DURATION_MAX, optional=True)
    )
    duration_max: int | None = attrs.field(
        default=None, validator=check_int(low=1, high=DURATION_MAX, optional=True)
    )
    duration_interval: int | None = attrs.field(
        default=None, validator=check_int(low=1, high=DURATION_MAX, optional=True)
    )
    padding: int = attrs.field(default=0, validator=check_int(low=0, high=1440))
    consumer_padding: bool = attrs.field(default=False, validator=check_bool)
    booking_interval: int | None = attrs.field(
        default=None, validator=attrs.validators.optional(check_choice(*SLOT_INTERVALS))
    )
    fee_amount: float = attrs.field(default=0, validator=check_number(low=0))
    fee_taxable: bool = attrs.field(default=False, validator=check_bool)
    cancellation_fee_amount: float = attrs.field(default=0, validator=check_number(low=0))
    cancellation_fee_taxable: bool = attrs.field(default=False, validator=check_bool)
    non_refundable: bool = attrs.field(default=False, validator=check_bool)
    booking_limit: int = attrs.field(default=0, validator=check_int(low=0, high=1000))
    max_capacity: int = attrs.field(default=0, validator=check_int(low=0, high=10_000))
    max_group_size: int = attrs.field(
        default=0, validator=[check_int(low=0, high=10_000), _check_group_limits]
    )
    daily_booking_limit_count: int = attrs.field(default=0, validator=check_int(low=0, high=1000))
    daily_booking_limit_minutes: int = attrs.field(default=0, validator=check_int(low=0, high=1440))
    max_booking_limit: int = attrs.field(default=0, validator=check_int(low=0, high=1000))
    max_resource_booking_limit: int = attrs.field(default=0, validator=check_int(low=0, high=1000))
    round_robin: RoundRobin = attrs.field(default=RoundRobin.BALANCED, converter=_to_round_robin)
    booking_window: BookingWindow | None = None
    availability: WeeklyHours = attrs.field(factory=WeeklyHours, validator=_check_durations)
    options: Mapping[str, Any] = attrs.field(
        factory=dict, converter=_frozen_options, hash=False, repr=mapping_repr
    )
    reason: str | None = attrs.field(default=None, validator=check_text(max_len=255))

    @property
    def is_event(self) -> bool:
        """Tell whether this service is open only inside its allocations."""
        return self.type is ServiceType.EVENT

    @property
    def allows_groups(self) -> bool:
        """Tell whether one booking may bring more than one person."""
        return self.max_group_size > 0


@attrs.frozen(kw_only=True)
class ServiceGroup:
    """
    A named group of services shown together in the booking flow.

    .. versionadded:: 0.1
    """

    id: str
    company_id: str
    location_id: str | None = None
    name: str = attrs.field(validator=check_text(max_len=255, required=True))
    description: str | None = attrs.field(default=None, validator=check_text(max_len=4000))
    label: str | None = attrs.field(default=None, validator=check_text(max_len=255))
    image_url: str | None = attrs.field(default=None, validator=check_text(max_len=2048))
