"""
Whole documents from records: an HTTP answer (a record, a page of them) and a webhook's data.

Both come from :func:`._wire.shape`'s compiled converters, so a webhook's ``data`` is the HTTP
answer for its record (decision 44), with the same local times (decision 43). An HTTP answer is
encoded straight from the records' structs (:func:`encode`); :func:`to_wire` gives the same
document as builtins.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Mapping
from datetime import tzinfo
from typing import Any, Final

import attrs
import msgspec
from litestar.serialization import default_serializer

from slotwise.errors import SlotwiseError
from slotwise.model import (
    Appointment,
    Customer,
    OutboxEvent,
    QueuedReminder,
    Resource,
    Trigger,
    from_json_data,
)
from slotwise.paging import Page

from ._wire import Lookups, shape, wire_name

__all__ = ["encode", "event_data", "page", "page_type", "to_wire"]

_ENCODER: Final = msgspec.json.Encoder(enc_hook=default_serializer)
"""Litestar's own JSON encoder settings: an answer's bytes are the ones Litestar would write."""

_Envelope = msgspec.defstruct(
    "Envelope",
    ["object", "url", "hasMore", "count", "total", "data"],
    gc=False,
)
"""The spec's pagination envelope, built (its documented form is :func:`page_type`)."""


def to_wire(value: Any, lookups: Lookups | None = None) -> Any:
    """
    Return *value* (a record, a page, a list of them, plain data) as JSON-ready builtins.

    With *lookups*, the instants of a located record (an appointment, a block, an allocation, a
    resource, an event) are given in its location's zone (decision 43) and fields derived from
    other records (a service's ``serviceGroupName``) are filled; without, instants stay UTC and
    those fields are null.
    """
    return _walk(value, lookups, structs=False)


def encode(value: Any, lookups: Lookups | None = None, *, url: str | None = None) -> bytes:
    """
    Return the JSON of ``to_wire(value, lookups)`` (a page naming *url*), encoded by msgspec from
    the records' structs without building their dicts. With *url* a record's object also gets a
    last member ``url`` (the availability answers name their request).
    """
    if isinstance(value, Page):
        return _ENCODER.encode(_answer_page(value, url or value.url, lookups))
    encoded = _ENCODER.encode(_answer(value, lookups))
    if url is None:
        return encoded
    # A struct always encodes as one JSON object: its closing brace makes room for one more.
    return b"".join((encoded[:-1], b',"url":', _ENCODER.encode(url), b"}"))


def _answer(value: Any, lookups: Lookups | None) -> Any:
    """:func:`to_wire`, with each record as its struct (``Shape.build``)."""
    return _walk(value, lookups, structs=True)


def _walk(value: Any, lookups: Lookups | None, *, structs: bool) -> Any:
    """
    Give *value* its wire form: each record as its struct (``Shape.build``) when *structs*,
    else as its dict (``Shape.dump``); pages as their envelope; plain data as it is.
    """
    if isinstance(value, Page):
        if structs:
            return _answer_page(value, value.url, lookups)
        return page(value, url=value.url, lookups=lookups)
    if attrs.has(type(value)):
        found = shape(type(value))  # type: ignore[arg-type]
        form = found.build if structs else found.dump
        if lookups is None or not (found.located or found.looks_up):
            return form(value)
        located = found.located and value.location_id is not None
        return form(value, lookups.zone(value.location_id) if located else None, lookups)
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, Mapping):
        return {key: _walk(item, lookups, structs=structs) for key, item in value.items()}
    if isinstance(value, list | tuple | frozenset | set):
        return [_walk(item, lookups, structs=structs) for item in value]
    return value


def _answer_page(result: Page[Any], url: str, lookups: Lookups | None) -> msgspec.Struct:
    records = result.data
    kind = type(records[0]) if records else None
    if kind is not None and attrs.has(kind) and all(type(r) is kind for r in records):
        # One shape for the whole page: the per-record work is the build itself.
        found = shape(kind)
        build = found.build
        if lookups is not None and found.located:
            zone = lookups.zone
            data = [
                build(r, None if r.location_id is None else zone(r.location_id), lookups)
                for r in records
            ]
        elif lookups is not None and found.looks_up:
            data = [build(r, None, lookups) for r in records]
        else:
            data = [build(r) for r in records]
    else:
        data = [_answer(record, lookups) for record in records]
    return _Envelope("list", url, result.has_more, result.count, result.total, data)


def page(result: Page[Any], *, url: str, lookups: Lookups | None = None) -> dict[str, Any]:
    """Return the spec's pagination envelope of *result*, naming the request's *url*."""
    return {
        "object": "list",
        "url": url,
        "hasMore": result.has_more,
        "count": result.count,
        "total": result.total,
        "data": [to_wire(record, lookups) for record in result.data],
    }


@functools.cache
def page_type(item: Any) -> type[msgspec.Struct]:
    """Return the documented type of an envelope of *item* records."""
    name = getattr(item, "__name__", "Item")
    return msgspec.defstruct(
        f"{name}Page",
        [
            ("object", str),
            ("url", str),
            ("hasMore", bool),
            ("count", int),
            ("total", int),
            ("data", list[item]),
        ],
        kw_only=True,
    )


_RECORD_OF: Final[dict[Trigger, tuple[str, type]]] = {
    Trigger.CUSTOMER_CREATED: ("customer", Customer),
    Trigger.CUSTOMER_UPDATED: ("customer", Customer),
    Trigger.RESOURCE_CREATED: ("resource", Resource),
    Trigger.RESOURCE_UPDATED: ("resource", Resource),
}
"""Where an event's payload keeps its record (every other trigger: the appointment)."""


def event_data(event: OutboxEvent, zone: tzinfo | None) -> dict[str, Any] | None:
    """
    Return the ``data`` of *event*'s webhook: its record as the HTTP interface returns it.

    Decision 44: the payload keeps the record as it was when the change committed (snake_case
    JSON data, cheap on the booking path); here it is read back and given the wire form by the
    very function that answers ``GET`` of that record, in the zone of the event's location
    (decision 43). A reminder whose appointment was deleted carries the reminder itself. A
    payload that is not a whole record (an event a host wrote by hand) is sent as given, with
    the wire's names.
    """
    key, kind = _RECORD_OF.get(event.trigger, ("appointment", Appointment))
    data = event.payload.get(key)
    if data is None:
        reminder = event.payload.get("reminder")
        if reminder is None:
            return None
        data, kind = reminder, QueuedReminder
    try:
        record: Any = from_json_data(kind, data)
    except (TypeError, ValueError, SlotwiseError):
        return _named(data)  # type: ignore[no-any-return]
    found = shape(kind)
    return found.dump(record, zone) if found.located else found.dump(record)


def _named(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {wire_name(None, str(key)): _named(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_named(item) for item in value]
    return value
