"""
What an availability search asks for (spec: Consumer interface: availability).
"""

from __future__ import annotations

from datetime import date

import attrs

from slotwise.errors import InconsistentFields, InvalidDateRange
from slotwise.model._checks import (
    check_bool,
    check_hhmm,
    check_int,
    check_optional_zone,
    id_list,
)
from slotwise.model._trusted import trusted_constructor
from slotwise.model.catalog import RoundRobin

__all__ = ["AvailabilityQuery", "one_date_query"]

MAX_TZ_OFFSET = 14 * 60


def _resource_ids(value: object) -> tuple[str, ...]:
    # The spec sends resourceIds as one comma-separated string; Python callers pass a sequence.
    ids = id_list(value, field="resource_ids")
    # A resource named twice is one resource, as a booking of the slot takes it.
    return tuple(dict.fromkeys(ids))


def _check_query(instance: AvailabilityQuery, _attribute: object, _value: object) -> None:
    if instance.start_date > instance.end_date:
        raise InvalidDateRange(field="start_date", start=instance.start_date, end=instance.end_date)
    if instance.tz_offset is not None and instance.timezone_name is not None:
        raise InconsistentFields("give tz_offset or timezone_name, not both", field="tz_offset")
    if (
        instance.start_time is not None
        and instance.end_time is not None
        and instance.start_time >= instance.end_time
    ):
        raise InconsistentFields(
            f"start_time ({instance.start_time}) must be less than end_time ({instance.end_time})",
            field="start_time",
        )
    if instance.first_day_available and instance.day_availability is None:
        raise InconsistentFields(
            "first_day_available works only with day_availability", field="first_day_available"
        )


@attrs.frozen(kw_only=True)
class AvailabilityQuery:
    """
    One availability search for a service over the dates ``start_date``..``end_date`` (inclusive).

    Dates are calendar dates in the location's zone. Without ``location_id`` a location-scoped
    service is searched at its own location, a company-scoped one at the primary location (the
    first permitted one for a principal limited to some locations; decisions 42 and 46).
    ``start_time``/``end_time`` (HHMM) narrow
    each day's search window (default: business hours). ``resource_id``, ``resource_ids`` (all
    must be free) and ``resource_group_id`` narrow the candidates. ``duration`` is a customer's
    chosen length (``duration_select`` services only, decision 16). ``interval`` overrides the
    slot step. Output times use ``tz_offset`` (minutes east of UTC) or ``timezone_name``, else
    the location's zone. ``round_robin`` overrides the service's setting.

    .. versionadded:: 0.1
    """

    service_id: str
    start_date: date
    end_date: date
    location_id: str | None = None
    resource_id: str | None = None
    resource_ids: tuple[str, ...] = attrs.field(default=(), converter=_resource_ids)
    resource_group_id: str | None = None
    start_time: int | None = attrs.field(
        default=None, validator=attrs.validators.optional(check_hhmm)
    )
    end_time: int | None = attrs.field(
        default=None, validator=attrs.validators.optional(check_hhmm)
    )
    duration: int | None = attrs.field(
        default=None, validator=check_int(low=1, high=10_080, optional=True)
    )
    interval: int | None = attrs.field(
        default=None, validator=check_int(low=1, high=1440, optional=True)
    )
    tz_offset: int | None = attrs.field(
        default=None, validator=check_int(low=-MAX_TZ_OFFSET, high=MAX_TZ_OFFSET, optional=True)
    )
    timezone_name: str | None = attrs.field(default=None, validator=check_optional_zone)
    day_availability: int | None = attrs.field(
        default=None, validator=check_int(low=1, high=366, optional=True)
    )
    first_day_available: bool = attrs.field(default=False, validator=check_bool)
    round_robin: RoundRobin | None = None
    skip_time_past_unavailability: bool = attrs.field(
        default=False, validator=[check_bool, _check_query]
    )

    @property
    def named_resources(self) -> tuple[str, ...]:
        """Return every resource the query names (``resource_id`` then ``resource_ids``)."""
        named = (self.resource_id,) if self.resource_id else ()
        if not self.resource_ids:
            return named
        return named + tuple(rid for rid in self.resource_ids if rid != self.resource_id)


_MAX_DURATION = 10_080
"""The longest ``duration`` a query takes (its validator's bound)."""
_trusted_query = trusted_constructor(AvailabilityQuery)
"""A query from values its converters keep as they are and its validators accept."""


def one_date_query(
    *,
    service_id: str,
    day: date,
    location_id: str,
    resource_ids: tuple[str, ...],
    duration: int | None,
) -> AvailabilityQuery:
    """
    Return the whole-day query of *day* naming *resource_ids* (the round robin ``none`` when it
    names any, else the service's), built without running the validators again.

    It equals ``AvailabilityQuery(service_id=service_id, start_date=day, end_date=day,
    location_id=location_id, resource_id=..., resource_ids=..., duration=duration,
    round_robin=...)``, with one id as ``resource_id`` and more as ``resource_ids``: the booking
    check's query, asked once per booking, whose values come from stored records (ids) and
    checked instants (the date and the length in whole minutes). What a validator would still
    refuse, a duration outside its bounds, goes through the validating constructor, so it
    raises the same error.
    """
    if duration is not None and not 1 <= duration <= _MAX_DURATION:
        return AvailabilityQuery(
            service_id=service_id,
            start_date=day,
            end_date=day,
            location_id=location_id,
            resource_id=resource_ids[0] if len(resource_ids) == 1 else None,
            resource_ids=resource_ids if len(resource_ids) > 1 else (),
            duration=duration,
            round_robin=RoundRobin.NONE if resource_ids else None,
        )
    named = len(resource_ids)
    # Frozen: the fields are set here, once, each by its slot (the others take their defaults).
    return _trusted_query(
        service_id=service_id,
        start_date=day,
        end_date=day,
        location_id=location_id,
        resource_id=resource_ids[0] if named == 1 else None,
        # As the converter does: a resource named twice is one resource.
        resource_ids=tuple(dict.fromkeys(resource_ids)) if named > 1 else (),
        duration=duration,
        round_robin=RoundRobin.NONE if named else None,
    )
