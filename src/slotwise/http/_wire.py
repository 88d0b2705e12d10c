"""
The spec's wire shapes, generated from the attrs records in one place.

Every record crosses the wire as a JSON object whose keys are its fields in camelCase, with the
few spec names that are not mechanical (:data:`RENAMED`, :data:`RENAMED_IN`), fields the spec
derives (an appointment's ``date``, ``time`` and ``duration``; a block's ``repeats``) and
nothing secret or internal (:data:`HIDDEN`). :func:`shape` compiles that description once per
record class into

* a function that turns a record into JSON-ready builtins (what a response carries), and
* a :mod:`msgspec` ``Struct`` type of the same shape (what the OpenAPI document shows),

so the document and the bytes on the wire cannot drift apart. Request bodies are generated from
the same names in :mod:`._bodies`.
"""

from __future__ import annotations

import collections.abc as abc
import enum
import functools
import types
import typing
from collections.abc import Callable
from datetime import date, datetime, tzinfo
from typing import Any, Final, Literal, Protocol, Union, get_args, get_origin

import attrs
import msgspec

from slotwise.availability.results import AvailableTimes, Slot
from slotwise.model import (
    Allocation,
    AllocationTarget,
    Appointment,
    Block,
    BlockTarget,
    Company,
    Location,
    LocationSettings,
    OutboxEvent,
    QueuedReminder,
    RepeatRule,
    Resource,
    ResourceConsumerView,
    Service,
    WeeklyHours,
)
from slotwise.operations.locations import LocationSettingsEntry
from slotwise.operations.resource_hours import ResourceWeeklyAvailability

from ._codegen import Converter, compile_record, converter, generic

__all__ = [
    "HIDDEN",
    "RENAMED",
    "Lookups",
    "camel",
    "shape",
    "wire_name",
    "wire_type",
]


def camel(name: str) -> str:
    """Return the camelCase form of the snake_case *name* (``is_24_hours`` -> ``is24Hours``)."""
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


RENAMED: Final[dict[str, str]] = {
    # Spec: Appointment and availability elements name instants by what they are.
    "start": "startDateTime",
    "end": "endDateTime",
    "created_at": "createDate",
    "last_modified_at": "lastModifiedOn",
    # Spec: Appointment "lastname, firstname"; one spelling everywhere (customers too).
    "first_name": "firstname",
    "last_name": "lastname",
    "location_text": "location",
    # Spec: Resource "deletedStatus"; Block "deletedStatus"; Location "businessHolidays".
    "deleted": "deletedStatus",
    "holidays": "businessHolidays",
}
"""Field names whose spec name is not their camelCase form, wherever they appear."""

RENAMED_IN: Final[dict[type, dict[str, str]]] = {
    Resource: {"timezone": "timezoneId"},
}
"""Spec names that hold for one record only (a resource's zone is ``timezoneId``)."""

HIDDEN: Final[dict[type, frozenset[str]]] = {
    # The fingerprint is how idempotent retries are recognised: internal, not the caller's.
    Appointment: frozenset({"idempotency_fingerprint", "resource_ids"}),
    # Flattened into the spec's providerACalendarId ... fields below.
    Resource: frozenset({"provider_a", "provider_b"}),
    # The signing key never leaves the store.
    Company: frozenset({"webhook_signature_hash"}),
}
"""Record fields that never cross the wire."""


LOCATED: Final[frozenset[type]] = frozenset(
    {
        Appointment,
        Block,
        Allocation,
        Resource,
        ResourceConsumerView,
        OutboxEvent,
        QueuedReminder,
    }
)
"""Records whose instants cross the wire in their location's zone (decision 43)."""


class Lookups(Protocol):
    """What a record's wire form reads from other records (made per request or send)."""

    def zone(self, location_id: str) -> tzinfo | None:
        """Return the zone of the location (``None``: unknown; instants stay UTC)."""

    def service_group_name(self, group_id: str) -> str | None:
        """Return the name of the service group (``None``: unknown)."""


def wire_name(kind: type | None, name: str) -> str:
    """Return the wire name of the field *name* of the record class *kind*."""
    if kind is not None and name in RENAMED_IN.get(kind, {}):
        return RENAMED_IN[kind][name]
    return RENAMED.get(name) or camel(name)


# -- derived fields ---------------------------------------------------------------------------


@attrs.frozen
class Derived:
    """A field the spec shows that the record computes rather than stores."""

    name: str
    type: Any
    value: Callable[..., Any]
    needs: Literal["", "zone", "lookups"] = ""
    """What *value* takes besides the record: its location's zone (``None``: UTC), or the
    request's :class:`Lookups` (``None``: none, the field is null)."""


def _at(instant: datetime, zone: tzinfo | None) -> datetime:
    """Return *instant* in *zone* (``None``: as stored, UTC)."""
    return instant if zone is None else instant.astimezone(zone)


def _hhmm(moment: datetime) -> int:
    return moment.hour * 100 + moment.minute


def _offset_minutes(moment: datetime) -> int:
    offset = moment.utcoffset()
    return 0 if offset is None else int(offset.total_seconds() // 60)


def _target(window: Block | Allocation, kind: object) -> str | None:
    return window.target_id if window.target is kind else None


def _group_name(service: Service, lookups: Lookups | None) -> str | None:
    group = service.service_group_id
    return None if group is None or lookups is None else lookups.service_group_name(group)


def _minutes(appointment: Appointment) -> int:
    return int((appointment.end - appointment.start).total_seconds() // 60)


def _joined(ids: tuple[str, ...]) -> str | None:
    # Spec: "resourceIds (string, comma-separated resource ids for multi-resource booking)".
    return ",".join(ids) if ids else None


def _full_name(appointment: Appointment) -> str | None:
    words = [w for w in (appointment.first_name, appointment.last_name) if w]
    return " ".join(words) or None


def _provider(which: str, field: str) -> Callable[[Resource], Any]:
    def value(resource: Resource) -> Any:
        provider = getattr(resource, which)
        return None if provider is None else getattr(provider, field)

    return value


DERIVED: Final[dict[type, tuple[Derived, ...]]] = {
    Appointment: (
        Derived("resourceId", str | None, lambda a: a.resource_ids[0] if a.resource_ids else None),
        Derived("resourceIds", str | None, lambda a: _joined(a.resource_ids)),
        # Decision 43: the start's wall date, HHMM and offset (minutes) in the location's zone.
        Derived("date", date, lambda a, z: _at(a.start, z).date(), needs="zone"),
        Derived("time", int, lambda a, z: _hhmm(_at(a.start, z)), needs="zone"),
        Derived("duration", int, _minutes),
        Derived("timezone", int, lambda a, z: _offset_minutes(_at(a.start, z)), needs="zone"),
        Derived("name", str | None, _full_name),
    ),
    Block: (
        Derived("repeats", bool, lambda b: b.repeat is not None),
        Derived("businessId", str, lambda b: b.location_id),
        # Spec: Block "resourceId (response)": the resource a resource block blocks.
        Derived("resourceId", str | None, lambda b: _target(b, BlockTarget.RESOURCE)),
    ),
    Allocation: (
        Derived("repeats", bool, lambda a: a.repeat is not None),
        Derived("businessId", str, lambda a: a.location_id),
        Derived("resourceId", str | None, lambda a: _target(a, AllocationTarget.RESOURCE)),
        # Spec: Allocation input "serviceId": returned too, so a GET round-trips as a body.
        Derived("serviceId", str | None, lambda a: _target(a, AllocationTarget.SERVICE)),
    ),
    Service: (
        # Spec: Service "serviceGroupName": the name of the group the service belongs to.
        Derived("serviceGroupName", str | None, _group_name, needs="lookups"),
    ),
    Resource: (
        *(
            Derived(f"provider{p}{suffix}", kind, _provider(f"provider_{p.lower()}", field))
            for p in ("A", "B")
            for suffix, kind, field in (
                ("CalendarId", str | None, "calendar_id"),
                ("AuthReturnUrl", str | None, "auth_return_url"),
                ("CalendarAuthUrl", str | None, "auth_url"),
                ("CalendarAuthorized", bool | None, "authorized"),
            )
        ),
    ),
    ResourceConsumerView: (Derived("object", str, lambda _: "resource"),),
    AvailableTimes: (Derived("resourceIds", str | None, lambda t: _joined(t.resource_ids)),),
    OutboxEvent: (
        # Decision 44: what the webhook carries as its data (the record's HTTP form).
        Derived("payload", dict[str, Any] | None, lambda e, z: _event_data(e, z), needs="zone"),
        Derived("deliveryStatus", str, lambda e: e.delivery_status),
        # In the location's zone like the record's own instants (nextAttemptAt, createDate).
        Derived("dueAt", datetime | None, lambda e, z: _due_at(e, z), needs="zone"),
    ),
    Slot: (Derived("resourceIds", str | None, lambda s: _joined(s.resource_ids)),),
    ResourceWeeklyAvailability: (Derived("weekdays", Any, lambda a: _weekdays(a)),),
    Location: (Derived("settings", Any, lambda loc: _settings(loc.settings, loc)),),
    LocationSettingsEntry: (
        Derived("businessId", str, lambda entry: entry.location_id),
        Derived("settings", Any, lambda entry: _settings(entry.settings, entry)),
    ),
}


def _event_data(event: OutboxEvent, zone: tzinfo | None) -> dict[str, Any] | None:
    from ._documents import event_data  # the documents are built on the shapes defined here

    return event_data(event, zone)


def _due_at(event: OutboxEvent, zone: tzinfo | None) -> datetime | None:
    due = event.due_at
    return None if due is None else _at(due, zone)


def _weekdays(availability: ResourceWeeklyAvailability) -> dict[str, Any]:
    # Spec: Resource weekly availability, weekdays with startTime, endTime, displayStartTime,
    # displayEndTime.
    days = shape(WeeklyHours).dump(availability.weekdays)
    for name, day in days.items():
        day["displayStartTime"], day["displayEndTime"] = availability.display_times(name)
    return days


@functools.cache
def _weekdays_type() -> Any:
    day = msgspec.defstruct(
        "WeekdayHours",
        [("startTime", int), ("endTime", int), ("displayStartTime", str), ("displayEndTime", str)],
        kw_only=True,
    )
    names = [a.name for a in attrs.fields(WeeklyHours)]
    return msgspec.defstruct("ResourceWeekdays", [(n, day) for n in names], kw_only=True)


def _settings(settings: LocationSettings, owner: Any) -> dict[str, Any]:
    # Decision 33: the deprecated businessId is returned beside locationId, same value.
    data = shape(LocationSettings).dump(settings)
    # Spec: settings "id": the settings record is the location's, so it shares its id.
    data.update(
        object="settings",
        id=getattr(owner, "location_id", None) or owner.id,
        companyId=owner.company_id,
        locationId=getattr(owner, "location_id", None) or owner.id,
        businessId=getattr(owner, "location_id", None) or owner.id,
    )
    return data


@functools.cache
def _settings_type() -> Any:
    base = shape(LocationSettings).struct
    extra = [
        ("object", str),
        ("id", str),
        ("companyId", str),
        ("locationId", str),
        ("businessId", str),
    ]
    fields = [(f.encode_name, f.type) for f in msgspec.structs.fields(base)]
    return msgspec.defstruct("LocationSettingsView", fields + extra, kw_only=True)


def _object_name(kind: type) -> str:
    return camel("".join(f"_{c.lower()}" if c.isupper() else c for c in kind.__name__)[1:])


# -- shapes -----------------------------------------------------------------------------------


@attrs.frozen
class Shape:
    """How one record class crosses the wire: its converter and its documented type."""

    kind: type
    struct: type[msgspec.Struct]
    dump: Callable[..., dict[str, Any]]
    """Return a record of *kind* (and its location's zone) as the spec's JSON object."""
    build: Callable[..., msgspec.Struct]
    """The same object as an instance of a struct with the wire names, for msgspec to encode
    (an HTTP answer): ``dump``'s values, but enum members, tuples and nested records' structs
    left to the encoder."""
    located: bool = False
    """The record has a location whose zone its instants are given in (decision 43)."""
    looks_up: bool = False
    """A derived field reads other records (:class:`Lookups`)."""


@functools.cache
def shape(kind: type) -> Shape:
    """Return the wire shape of the attrs record class *kind* (compiled once)."""
    hints = typing.get_type_hints(kind)
    hidden = HIDDEN.get(kind, frozenset())
    fields: list[tuple[str, str, Converter]] = []
    built: list[tuple[str, str, Converter]] = []
    struct_fields: list[tuple[str, Any]] = []
    for attribute in attrs.fields(kind):
        if attribute.name.startswith("_") or attribute.name in hidden:
            continue
        key = wire_name(kind, attribute.name)
        hint = hints[attribute.name]
        if kind is RepeatRule and attribute.name == "weekdays":
            # Spec: Repeat object, weekdays "string of digits 0-6".
            digits = (attribute.name, key, lambda days: "".join(map(str, sorted(days))))
            fields.append(digits)
            built.append(digits)
            struct_fields.append((key, str))
            continue
        if kind is RepeatRule and attribute.name == "month_day":
            # Spec: Repeat object, monthDay "integer in input, string in response".
            text = (attribute.name, key, lambda day: None if day is None else str(day))
            fields.append(text)
            built.append(text)
            struct_fields.append((key, str | None))
            continue
        fields.append((attribute.name, key, converter(hint, _nested, build=False)))
        built.append((attribute.name, key, converter(hint, _nested, build=True)))
        struct_fields.append((key, wire_type(hint)))
    derived = DERIVED.get(kind, ())
    keys = {key for key, _ in struct_fields}
    if "id" in keys and "object" not in keys and all(d.name != "object" for d in derived):
        # Spec: every record carries its kind in ``object``.
        name = _object_name(kind)
        derived = (Derived("object", str, lambda _: name), *derived)
    for field in derived:
        documented = {"settings": _settings_type, "weekdays": _weekdays_type}.get(
            field.name, lambda field=field: field.type
        )()
        struct_fields = [(k, t) for k, t in struct_fields if k != field.name]
        struct_fields.append((field.name, documented))
    overridden = {d.name for d in derived}
    fields = [f for f in fields if f[1] not in overridden]
    built = [f for f in built if f[1] not in overridden]
    struct = msgspec.defstruct(kind.__name__, struct_fields, kw_only=True)
    # The struct answers are built in: the same fields in the same order, filled by position
    # (no keyword matching), and not tracked by the garbage collector (they hold no cycles).
    answer = msgspec.defstruct(
        f"{kind.__name__}Answer", [key for key, _ in struct_fields], gc=False
    )
    located = kind in LOCATED
    instants = frozenset(name for name, *_ in fields if located and _is_instant(hints[name]))
    computed = [(field.name, field.value, field.needs) for field in derived]
    return Shape(
        kind=kind,
        struct=struct,
        dump=compile_record(fields, computed, instants),
        build=compile_record(built, computed, instants, struct=answer),
        located=located,
        looks_up=any(field.needs == "lookups" for field in derived),
    )


def _is_instant(hint: Any) -> bool:
    return hint is datetime or (
        get_origin(hint) in (Union, types.UnionType) and datetime in get_args(hint)
    )


def _nested(kind: type, build: bool) -> Converter:
    """The converter of a field holding a record of the attrs class *kind*."""
    found = shape(kind)
    return found.build if build else found.dump


def wire_type(hint: Any) -> Any:
    """Return the type the OpenAPI document shows for a record field declared as *hint*."""
    hint = generic(hint)
    origin = get_origin(hint)
    if origin is Union or origin is types.UnionType:
        members = tuple(wire_type(m) for m in get_args(hint))
        return functools.reduce(lambda a, b: a | b, dict.fromkeys(members))
    if origin in (tuple, list, frozenset, set, abc.Sequence, abc.Set):
        args = [a for a in get_args(hint) if a is not Ellipsis]
        return list[wire_type(args[0]) if args else Any]  # type: ignore[misc]
    if origin in (abc.Mapping, dict):
        key, value = get_args(hint) or (str, Any)
        return dict[wire_type(key), wire_type(value)]  # type: ignore[misc]
    if isinstance(hint, type):
        if issubclass(hint, enum.Enum):
            return _enum_type(hint)
        if attrs.has(hint):
            return shape(hint).struct
        if issubclass(hint, dict):
            return dict[str, Any]
        if hint in (str, int, float, bool, date, datetime, types.NoneType):
            return hint
    return Any


@functools.cache
def _enum_type(kind: type[enum.Enum]) -> Any:
    """Return a ``Literal`` of the enum's values: the wire carries the value, not the name."""
    return typing.Literal.__getitem__(tuple(member.value for member in kind))
