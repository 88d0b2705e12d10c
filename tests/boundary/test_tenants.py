"""
The shipped tenant test (issue 9): no operation lets one tenant touch another's records.

Every public operation of ``Workspace`` is found by introspection, so a new operation is covered
without editing this file. Each argument that names a record (``*_id``, ``*_ids``, and the id keys
of ``**fields``) is given, one at a time,

* company B's record, by company A's company-wide principal, and
* location L2's record, by a principal of company A limited to location L1,

on top of a baseline call that names only the caller's own records. Each such call must raise
``Unauthorized``, reveal none of B's texts in its message or attributes, and leave the store as it
was. Every operation taking ``**fields`` is also called with each identity field (decision 35):
``UnexpectedField``, nothing changed. Lists and feeds never return B's records, nor L2's to the
limited principal. The world is built on ``MemoryStore`` and on an SQLite ``SQLStore``.

Run with ``-s`` to print the counts (operations, cases, refusals by class).
"""

from __future__ import annotations

import collections
import inspect
import typing
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from slotwise import (
    MemoryStore,
    NotAuthenticated,
    NotFound,
    ReminderSchedule,
    SlotwiseError,
    Unauthorized,
    UnexpectedField,
    ValidationError,
    Workspace,
)
from slotwise.operations._boundary import is_declared
from slotwise.operations._inputs import IDENTITY_FIELDS

from ._tenant_world import SECRETS_OF_B, TUESDAY, World, at, build

# -- what each argument names --------------------------------------------------------------------

_KIND_OF_NAME: dict[str, str] = {
    "location_id": "location",
    "calendar_id": "calendar",
    "service_id": "service",
    "resource_id": "resource",
    "customer_id": "customer",
    "appointment_id": "appointment",
    "subscription_id": "subscription",
    "field_id": "field",
    "service_group_id": "service_group",
    "resource_group_id": "resource_group",
    "event_ids": "event",
    "reminder_ids": "reminder",
    "service_ids": "service",
    "linked_service_ids": "service",
    "resource_ids": "resource",
}
"""The record kind an argument names, by its name (the group refines a few below)."""

_KIND_IN_GROUP: dict[tuple[str, str], str] = {
    ("service_groups", "group_id"): "service_group",
    ("resource_groups", "group_id"): "resource_group",
    ("resources", "group_id"): "resource_group",
    ("calendars", "block_id"): "calendar_block",
    ("services", "block_id"): "service_block",
    ("resources", "block_id"): "resource_block",
    ("services", "allocation_id"): "service_allocation",
    ("resources", "allocation_id"): "resource_allocation",
}

_KIND_IN_OPERATION: dict[tuple[str, str, str], str] = {
    # Allocations belong to event-type services; a hold is what book, reserve and delete take.
    ("services", "create_allocation", "service_id"): "event_service",
    ("appointments", "book", "appointment_id"): "hold",
    ("appointments", "reserve", "appointment_id"): "hold",
    ("appointments", "delete", "appointment_id"): "hold",
}

_LISTS = {"event_ids", "reminder_ids", "service_ids", "linked_service_ids", "resource_ids"}

# -- the values a baseline call gives what is not an id -----------------------------------------

_PLAIN: dict[str, Any] = {
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
}

_IN_OPERATION: dict[tuple[str, str], dict[str, Any]] = {
    ("appointments", "create"): {"start": at(1400), "end": at(1430)},
    ("appointments", "reschedule"): {"start": at(1500), "end": at(1530)},
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


_UPDATES_KEY = ("resources", "update_many", "updates")

_READS = (
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
    "undelivered",
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


def _kind(group: str, operation: str, name: str) -> str | None:
    """Return the record kind the argument *name* of *group.operation* names, if any."""
    return (
        _KIND_IN_OPERATION.get((group, operation, name))
        or _KIND_IN_GROUP.get((group, name))
        or _KIND_OF_NAME.get(name)
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


def _value(op: Operation, name: str, ids: dict[str, str]) -> Any:
    """Return the caller's own value for the argument *name* of *op*, or raise KeyError."""
    if (op.group, op.name, name) == _UPDATES_KEY:
        return [(ids["resource"], {"name": "Renamed"})]
    kind = _kind(op.group, op.name, name)
    if kind is not None:
        return [ids[kind]] if name in _LISTS else ids[kind]
    return _PLAIN[name]


def baseline(op: Operation, ids: dict[str, str]) -> dict[str, Any]:
    """Return a call of *op* naming only the records in *ids* (the caller's own)."""
    values = dict(_IN_OPERATION.get((op.group, op.name), {}))
    for parameter in op.parameters:
        if parameter.default is inspect.Parameter.empty and parameter.name not in values:
            values[parameter.name] = _value(op, parameter.name, ids)
    for key in op.required_fields:
        values.setdefault(key, _value(op, key, ids))
    if "location_id" in op.fields:
        # A principal limited to some locations names one (decision 37: no company-wide record).
        values.setdefault("location_id", ids["location"])
    return values


def id_arguments(op: Operation) -> list[str]:
    """Return every argument of *op* that names a record."""
    return [
        name
        for name in op.names()
        if (op.group, op.name, name) == _UPDATES_KEY or _kind(op.group, op.name, name)
    ]


# -- the world, once per store -------------------------------------------------------------------


@pytest.fixture(scope="module", params=["memory", "sqlite"])
def world(request: pytest.FixtureRequest) -> Iterator[World]:
    """Both companies on a MemoryStore, then on an SQLite file."""
    if request.param == "memory":
        yield build(MemoryStore)
        return
    from tests.contract.servers import sqlite_store

    with sqlite_store() as store:
        yield build(lambda: store)


COUNTS: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
"""Per store: what the tests ran and how each call was refused, printed with ``-s``."""


def _counts(world: World) -> collections.Counter[str]:
    return COUNTS[type(world.scheduler.store).__name__]


def _refused(world: World, call: Callable[[], Any]) -> SlotwiseError | None:
    """Run *call*; return its slotwise error, or None when it was accepted."""
    before = world.records()
    try:
        call()
    except SlotwiseError as error:
        assert before == world.records(), "a refused call changed the store"
        _counts(world)[f"refused: {type(error).__name__}"] += 1
        return error
    return None


def _reveals(error: BaseException) -> list[str]:
    """Return B's texts that *error* shows in its message or its attributes."""
    shown = f"{error} {vars(error)!r}"
    return [secret for secret in SECRETS_OF_B if secret in shown]


def _foreign_cases(
    world: World, ws: Workspace, own: str, other: str
) -> Iterator[tuple[Operation, str, dict[str, Any]]]:
    """Yield (operation, argument, call) for each argument given *other*'s record."""
    mine, theirs = world.ids[own], world.ids[other]
    for op in operations_of(ws):
        for name in id_arguments(op):
            kind = _kind(op.group, op.name, name)
            if (op.group, op.name, name) == _UPDATES_KEY:
                kind = "resource"
            assert kind is not None
            if kind not in theirs:
                continue  # nothing of that kind is the other owner's (L2 has no customers)
            values = baseline(op, mine)
            if (op.group, op.name, name) == _UPDATES_KEY:
                values[name] = [(theirs["resource"], {"name": "Renamed"})]
            else:
                values[name] = [theirs[kind]] if name in _LISTS else theirs[kind]
            yield op, name, values


def _check_foreign(world: World, ws: Workspace, own: str, other: str) -> None:
    failures: list[str] = []
    for op, name, values in _foreign_cases(world, ws, own, other):
        _counts(world)[f"cases: {other}'s ids"] += 1
        _counts(world)[f"operations taking {other}'s ids: {op}"] = 1
        error = _refused(world, lambda op=op, values=values: op.call(ws, values))
        if not isinstance(error, Unauthorized):
            failures.append(f"{op}({name}=<{other}'s>): {error!r}")
        elif _reveals(error):
            failures.append(f"{op}({name}=<{other}'s>) reveals {_reveals(error)}")

    assert [] == failures


def test_other_companies_records_are_refused(world: World):
    """Company A naming any of company B's records gets Unauthorized, and nothing changes."""
    _check_foreign(world, world.a, "A", "B")


def test_other_locations_records_are_refused(world: World):
    """A principal limited to L1 naming any of L2's records gets Unauthorized."""
    _check_foreign(world, world.a_l1, "A", "L2")


def test_baselines_are_within_the_callers_reach():
    """
    The baseline of every operation passes the boundary and the tenant checks.

    Without this the refusals above could come from a wrong baseline rather than the other
    tenant's id; the baselines are run on a fresh world so their writes do not matter.
    """
    failures = []
    for op in operations_of(build(MemoryStore).a_l1):
        fresh = build(MemoryStore)  # each baseline on its own world: deletes come first by name
        try:
            op.call(fresh.a_l1, baseline(op, fresh.ids["A"]))
        except (Unauthorized, UnexpectedField) as error:
            if (op.group, op.name) not in _COMPANY_WIDE:
                failures.append(f"{op}: {error!r}")
        except SlotwiseError as error:
            if isinstance(error, _BASELINE_REFUSALS):
                failures.append(f"{op}: {error!r}")

    assert [] == failures


def test_identity_fields_are_refused_on_every_operation(world: World):
    """Decision 35: each identity field an operation does not declare is UnexpectedField."""
    failures = []
    for op in operations_of(world.a):
        if not op.fields:
            continue
        for field in sorted(IDENTITY_FIELDS - set(op.names())):
            _counts(world)["cases: identity fields"] += 1
            values = baseline(op, world.ids["A"])
            values[field] = world.ids["B"].get(field.removesuffix("_id"), "x")
            error = _refused(world, lambda op=op, values=values: op.call(world.a, values))
            if not isinstance(error, UnexpectedField):
                failures.append(f"{op}({field}=...): {error!r}")

    assert [] == failures


def _walk(value: Any) -> Iterator[Any]:
    """Yield *value* and everything inside it: records, pages, sequences and mappings."""
    import attrs

    stack = [value]
    while stack:
        item = stack.pop()
        yield item
        if attrs.has(type(item)):
            stack.extend(getattr(item, field.name) for field in attrs.fields(type(item)))
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list | tuple | frozenset):
            stack.extend(item)


def _reads(ws: Workspace) -> Iterator[Operation]:
    for op in operations_of(ws):
        if op.name.startswith(_READS):
            yield op


def _shown(world: World, ws: Workspace, own: str) -> Iterator[tuple[Operation, Any]]:
    """Yield every read operation's answer for the caller's own records."""
    for op in _reads(ws):
        _counts(world)["cases: reads"] += 1
        try:
            yield op, op.call(ws, baseline(op, world.ids[own]))
        except SlotwiseError as error:
            _counts(world)[f"read refused: {type(error).__name__}"] += 1


def test_lists_and_feeds_never_show_another_company(world: World):
    """No read of company A returns anything of company B."""
    theirs = set(world.ids["B"].values())
    leaks = [
        f"{op}: {item!r}"[:200]
        for op, answer in _shown(world, world.a, "A")
        for item in _walk(answer)
        if isinstance(item, str) and (item in theirs or any(s in item for s in SECRETS_OF_B))
    ]

    assert [] == leaks


def test_lists_and_feeds_never_show_another_location(world: World):
    """No read of the principal limited to L1 returns a record of L2."""
    l2 = world.ids["L2"]["location"]
    theirs = set(world.ids["L2"].values())
    leaks = [
        f"{op}: {item!r}"[:200]
        for op, answer in _shown(world, world.a_l1, "A")
        for item in _walk(answer)
        if (isinstance(item, str) and item in theirs) or getattr(item, "location_id", None) == l2
    ]

    assert [] == leaks


def test_counts(world: World, capsys: pytest.CaptureFixture[str]):
    """Print what the tenant tests ran (with ``-s``): operations, cases, refusals by class."""
    counts = _counts(world)
    counts["operations"] = len(operations_of(world.a))
    summary = collections.Counter(
        {key: count for key, count in counts.items() if not key.startswith("operations taking")}
    )
    for other in ("B", "L2"):
        prefix = f"operations taking {other}'s ids"
        summary[prefix] = sum(1 for key in counts if key.startswith(prefix + ":"))
    with capsys.disabled():
        print(f"\ntenant test on {_store_name(world)}:")
        for key, count in sorted(summary.items()):
            print(f"  {key}: {count}")

    assert counts["operations"] > 100


def _store_name(world: World) -> str:
    return type(world.scheduler.store).__name__


_COMPANY_WIDE = {
    ("company", "update"),
    ("locations", "create"),
    ("locations", "create_many"),
    ("locations", "make_primary"),
}
"""Operations a principal limited to some locations may not run at all (decision 37)."""

_BASELINE_REFUSALS: tuple[type[SlotwiseError], ...] = (ValidationError, NotFound, NotAuthenticated)
"""What a correct baseline never meets: it names existing records with valid values."""
