"""
Every public operation of ``Workspace``, found by introspection, and a baseline call of each
that names only the caller's own records (shared by the tenant and fuzz tests).

A new operation is found without editing anything here; one whose required arguments this module
cannot fill fails ``test_tenants.py::test_baselines_are_within_the_callers_reach`` with a
``KeyError`` naming the argument, so the table below grows with the API.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable
from typing import Any

from slotwise import ReminderSchedule, Workspace
from slotwise.operations._boundary import is_declared

from ._tenant_world import TUESDAY, at

# -- what each argument names -------------------------------------------------------------------

KIND_OF_NAME: dict[str, str] = {
    "location_id": "location",
    "calendar_id": "calendar",
    "service_id": "service",
    "resource_id": "resource",
    "customer_id": "customer",
    "appointment_id": "appointment",
    "subscription_id": "subscription",
    "field_id": "location_field",
    "service_group_id": "service_group",
    "resource_group_id": "resource_group",
    "event_ids": "event",
    "event_id": "event",
    "reminder_ids": "reminder",
    "service_ids": "service",
    "linked_service_ids": "service",
    "resource_ids": "resource",
}
"""The record kind an argument names, by its name (the group refines a few below)."""

KIND_IN_GROUP: dict[tuple[str, str], str] = {
    ("service_groups", "group_id"): "service_group",
    ("resource_groups", "group_id"): "resource_group",
    ("resources", "group_id"): "resource_group",
    ("calendars", "block_id"): "calendar_block",
    ("services", "block_id"): "service_block",
    ("resources", "block_id"): "resource_block",
    ("services", "allocation_id"): "service_allocation",
    ("resources", "allocation_id"): "resource_allocation",
}

KIND_IN_OPERATION: dict[tuple[str, str, str], str] = {
    # Allocations belong to event-type services; a hold is what book, reserve and delete take.
    ("services", "create_allocation", "service_id"): "event_service",
    ("appointments", "book", "appointment_id"): "hold",
    ("appointments", "reserve", "appointment_id"): "hold",
    ("appointments", "delete", "appointment_id"): "hold",
}

LISTS = {"event_ids", "reminder_ids", "service_ids", "linked_service_ids", "resource_ids"}

# -- the values a baseline call gives what is not an id -----------------------------------------

PLAIN: dict[str, Any] = {
    "start_date": TUESDAY,
    "end_date": TUESDAY,
    "name": "Renamed",
    "label": "Label",
    "reason": "r",
    "duration": 30,
    "customer_plan_id": "silver",
    "holidays": [],
    "schedule": ReminderSchedule(),
    "scope": "location",
    "days": {},
    "provider": "A",
    "email": "someone@alpha.example",
    "country": "US",
    "url": "https://hooks.alpha.example/booking",
}

IN_OPERATION: dict[tuple[str, str], dict[str, Any]] = {
    ("appointments", "create"): {"start": at(1400), "end": at(1430)},
    ("appointments", "reschedule"): {"start": at(1500), "end": at(1530)},
    ("availability", "explain"): {"start": at(900)},
    ("appointments", "book"): {"name": "Ann Lee", "email": "ann@alpha.example"},
    ("appointments", "reserve"): {"name": "Ann Lee", "email": "ann@alpha.example"},
    ("customers", "create"): {"first_name": "Cy", "email": "cy@alpha.example"},
    ("customers", "find_by_email"): {"email": "ann@a1.example"},
    ("fields", "define"): {"name": "field2", "label": "More"},
    ("locations", "create_many"): {"locations": [{"name": "Alpha three"}]},
    ("resources", "create"): {"name": "Cy", "reason": "r"},
    ("services", "create"): {"name": "Trim", "duration": 30, "reason": "r"},
    ("calendars", "create"): {"name": "Extra"},
    ("service_groups", "create"): {"name": "More"},
    ("resource_groups", "create"): {"name": "More"},
    ("services", "create_block"): {"start_date": TUESDAY, "end_date": "never"},
    ("services", "create_allocation"): {"start_date": TUESDAY, "end_date": "never"},
    ("resources", "create_block"): {"start_date": TUESDAY, "end_date": "never"},
    ("resources", "create_allocation"): {"start_date": TUESDAY, "end_date": "never"},
    ("calendars", "create_block"): {"start_date": TUESDAY, "end_date": "never"},
}


UPDATES_KEY = ("resources", "update_many", "updates")

READS = (
    "get",
    "list",
    "find",
    "history",
    "services",
    "resources",
    "days",
    "times",
    "unavailable",
    "for_reschedule",
    "explain",
    "undelivered",
    "deliveries",
    "of_business_user",
    "due",
    "booking_fields",
    "custom_fields",
    "effective_settings",
    "settings_list",
    "timezones",
    "countries",
    "states",
)
"""Name prefixes of the operations that only read: lists, feeds and lookups."""


def kind_of(group: str, operation: str, name: str) -> str | None:
    """Return the record kind the argument *name* of *group.operation* names, if any."""
    return (
        KIND_IN_OPERATION.get((group, operation, name))
        or KIND_IN_GROUP.get((group, name))
        or KIND_OF_NAME.get(name)
    )


class Operation:
    """One public operation: where it lives and what its declaration takes."""

    def __init__(self, group: str, name: str, method: Callable[..., Any]) -> None:
        self.group, self.name = group, name
        self.signature = inspect.signature(method)
        self.fields: dict[str, Any] = {}
        self.required_fields: set[str] = set()
        for parameter in self.signature.parameters.values():
            if parameter.kind is inspect.Parameter.VAR_KEYWORD:
                hint = typing.get_type_hints(method)[parameter.name]
                declared = typing.get_args(hint)[0]
                self.fields = typing.get_type_hints(declared)
                self.required_fields = set(declared.__required_keys__)
                marked = typing.get_type_hints(declared, include_extras=True)
                self.required_fields |= {
                    key
                    for key, value in marked.items()
                    if typing.get_origin(value) is typing.Required
                }

    def __repr__(self) -> str:
        return f"{self.group}.{self.name}"

    @property
    def parameters(self) -> list[inspect.Parameter]:
        """The named parameters (no ``**fields``)."""
        return [
            p
            for p in self.signature.parameters.values()
            if p.kind is not inspect.Parameter.VAR_KEYWORD
        ]

    def names(self) -> list[str]:
        """Every argument name the operation takes: parameters, then ``**fields`` keys."""
        return [p.name for p in self.parameters] + list(self.fields)

    def call(self, ws: Workspace, values: dict[str, Any]) -> Any:
        """Call the operation on *ws*: positional-only parameters by position, the rest by name."""
        method = getattr(getattr(ws, self.group), self.name)
        positional = [
            values[p.name]
            for p in self.parameters
            if p.kind is inspect.Parameter.POSITIONAL_ONLY and p.name in values
        ]
        keywords = {
            name: value
            for name, value in values.items()
            if name not in {p.name for p in self.parameters if p.kind is p.POSITIONAL_ONLY}
        }
        return method(*positional, **keywords)


def operations_of(ws: Workspace) -> list[Operation]:
    """Return every declared public operation of *ws*, by group and name."""
    found = []
    for group_name, group in sorted(vars(ws).items()):
        if group_name.startswith("_") or group_name == "principal":
            continue
        for name in sorted(dir(group)):
            method = getattr(group, name)
            if not name.startswith("_") and callable(method) and is_declared(method):
                found.append(Operation(group_name, name, method))
    return found


def own_value(op: Operation, name: str, ids: dict[str, str]) -> Any:
    """Return the caller's own value for the argument *name* of *op*, or raise KeyError."""
    if (op.group, op.name, name) == UPDATES_KEY:
        return [(ids["resource"], {"name": "Renamed"})]
    kind = kind_of(op.group, op.name, name)
    if kind is not None:
        return [ids[kind]] if name in LISTS else ids[kind]
    return PLAIN[name]


def baseline(op: Operation, ids: dict[str, str]) -> dict[str, Any]:
    """Return a call of *op* naming only the records in *ids* (the caller's own)."""
    values = dict(IN_OPERATION.get((op.group, op.name), {}))
    for parameter in op.parameters:
        if parameter.default is inspect.Parameter.empty and parameter.name not in values:
            values[parameter.name] = own_value(op, parameter.name, ids)
    for key in op.required_fields:
        values.setdefault(key, own_value(op, key, ids))
    if "location_id" in op.fields:
        # A principal limited to some locations names one (decision 37: no company-wide record).
        values.setdefault("location_id", ids["location"])
    return values


def id_arguments(op: Operation) -> list[str]:
    """Return every argument of *op* that names a record."""
    return [
        name
        for name in op.names()
        if (op.group, op.name, name) == UPDATES_KEY or kind_of(op.group, op.name, name)
    ]
