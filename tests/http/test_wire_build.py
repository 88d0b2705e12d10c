"""
An HTTP answer is encoded from the records' structs (``Shape.build``), not from their dicts
(``Shape.dump``): both give the same JSON for every record of the tenant world, and the
lookups read a location's zone and a group's name from the process's configuration cache.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from slotwise import Scheduler
from slotwise.http._documents import encode, page, to_wire
from slotwise.http._lookups import StoreLookups
from slotwise.model import (
    Allocation,
    Appointment,
    Block,
    Company,
    Customer,
    Location,
    OutboxEvent,
    QueuedReminder,
    Resource,
    ResourceGroup,
    Service,
    ServiceGroup,
    Subscription,
)
from slotwise.paging import paginate
from slotwise.storage.configuration import ConfigurationCache
from slotwise.storage.memory import MemoryStore
from tests.boundary._tenant_world import World, build, later

KINDS = (
    Company,
    Location,
    Service,
    ServiceGroup,
    Resource,
    ResourceGroup,
    Block,
    Allocation,
    Appointment,
    Customer,
    Subscription,
    OutboxEvent,
    QueuedReminder,
)


@pytest.fixture(scope="module")
def world() -> World:
    """The tenant world of the HTTP tests, with an appointment booked."""
    world = build(MemoryStore)
    ids = world.ids["A"]
    times = world.a.availability.times(
        ids["service"], later(0), later(6), location_id=ids["location"]
    )
    slot = times.available_times[0]
    world.a.appointments.create(
        ids["service"],
        slot.start,
        slot.end,
        location_id=ids["location"],
        resource_id=slot.resource_ids[0],
    )
    return world


def _records(world: World) -> list[Any]:
    company_id = world.ids["A"]["company"]
    with world.scheduler.store.read() as reader:
        return [record for kind in KINDS for record in reader.find(kind, company_id=company_id)]


def _as_dumped(value: Any, lookups: StoreLookups) -> Any:
    return msgspec.json.decode(msgspec.json.encode(to_wire(value, lookups)))


def test_every_record_encodes_as_its_dict(world: World) -> None:
    """Each record of every kind encodes to the JSON of its dict form, local times included."""
    lookups = StoreLookups(world.scheduler.store)
    records = _records(world)
    assert {type(record) for record in records} == set(KINDS)
    for record in records:
        assert msgspec.json.decode(encode(record, lookups)) == _as_dumped(record, lookups)


def test_availability_answers_encode_as_their_dicts_with_their_url(world: World) -> None:
    """The availability answers (slots, days, unavailable times) add their request's url."""
    ids = world.ids["A"]
    answers = world.a.availability
    lookups = StoreLookups(world.scheduler.store)
    for method in (answers.times, answers.days, answers.unavailable):
        result = method(ids["service"], later(0), later(6), location_id=ids["location"])
        expected = _as_dumped(result, lookups) | {"url": "/x?y=1"}
        assert msgspec.json.decode(encode(result, lookups, url="/x?y=1")) == expected


def test_a_page_encodes_as_its_envelope(world: World) -> None:
    """A page of records encodes as the spec's envelope built by ``page``, naming the url."""
    lookups = StoreLookups(world.scheduler.store)
    for kind in (Appointment, Service, Resource, Block):
        records = [record for record in _records(world) if type(record) is kind]
        result = paginate(records, url="/setup/v1/x", offset=0, limit=20, max_limit=100)
        expected = msgspec.json.decode(msgspec.json.encode(page(result, url="/y", lookups=lookups)))
        assert msgspec.json.decode(encode(result, lookups, url="/y")) == expected


def test_lookups_follow_changes_through_the_configuration_cache() -> None:
    """A zone changed and a group renamed through another scheduler are seen by the next lookups."""
    store = MemoryStore()
    here, there = Scheduler(store), Scheduler(store)
    company = here.create_company(name="C", timezone="America/New_York")
    ws = there.for_company(company.id)
    location = ws.locations.create(name="L", timezone="America/New_York")
    group = ws.service_groups.create(name="Cuts")
    cache = here.configuration_cache
    assert isinstance(cache, ConfigurationCache)
    first = StoreLookups(store, cache, company.id)
    assert (str(first.zone(location.id)), first.service_group_name(group.id)) == (
        "America/New_York",
        "Cuts",
    )
    ws.locations.update(location.id, timezone="Europe/Paris")
    ws.service_groups.update(group.id, name="Colour")
    second = StoreLookups(store, cache, company.id)
    assert (str(second.zone(location.id)), second.service_group_name(group.id)) == (
        "Europe/Paris",
        "Colour",
    )
    assert 2 == cache.loads


def test_lookups_answer_one_request_from_one_configuration() -> None:
    """Within one lookups (one request) the configuration is checked once, then held."""
    store = MemoryStore()
    scheduler = Scheduler(store)
    company = scheduler.create_company(name="C", timezone="America/New_York")
    ws = scheduler.for_company(company.id)
    location = ws.locations.create(name="L", timezone="America/New_York")
    lookups = StoreLookups(store, scheduler.configuration_cache, company.id)
    assert "America/New_York" == str(lookups.zone(location.id))
    ws.locations.update(location.id, timezone="Europe/Paris")
    other = ws.locations.create(name="M", timezone="Asia/Tokyo")
    # The answer being written keeps the zone it read; a record it never saw is read afresh.
    assert "America/New_York" == str(lookups.zone(location.id))
    assert "Asia/Tokyo" == str(lookups.zone(other.id))
    assert lookups.zone("no-such-location") is None
