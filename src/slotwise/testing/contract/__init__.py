"""
``StoreContract``: the behaviour every store must show, as a reusable test suite.

A host application proves its own store keeps the contract of ``slotwise.storage.protocol`` by
subclassing :class:`StoreContract` in its test suite::

    from slotwise.testing import StoreContract

    class TestMyStore(StoreContract):
        def make_store(self):
            return MyStore(...)  # a fresh, empty store

pytest collects the inherited ``test_*`` methods. This module does not import pytest: it uses
plain ``assert`` with messages (pytest does not rewrite asserts in installed packages) and a
small local ``_raises`` context manager.

The contract is composed of parts, one per concern, so the part a failing test belongs to reads
on its own: :class:`RecordContract` (round trips, write errors, ``find``), :class:`ListContract` (the list
read ``page``: filters, order, paging),
:class:`WindowContract` (blocks and allocations), :class:`AppointmentRangeContract`,
:class:`LookupContract` (keys, customers, holds), :class:`FeedContract` (outbox, reminders,
audit), :class:`LocatedFeedContract` (the feeds by location), :class:`DeliveryContract` (claiming events for delivery), :class:`UnitOfWorkContract`, :class:`ConcurrencyContract`, :class:`ConfigurationContract` (the
configuration version and cache) and
:class:`RefusalContract` (invalid input never reaches a store).
"""

from __future__ import annotations

from ._base import ContractBase
from .appointments import AppointmentRangeContract
from .concurrency import ConcurrencyContract
from .configuration import ConfigurationContract
from .deliveries import DeliveryContract
from .feeds import FeedContract, LocatedFeedContract
from .lists import ListContract
from .lookups import LookupContract
from .records import RecordContract
from .refusals import RefusalContract
from .units import UnitOfWorkContract
from .windows import WindowContract

__all__ = [
    "AppointmentRangeContract",
    "ConcurrencyContract",
    "ConfigurationContract",
    "ContractBase",
    "DeliveryContract",
    "FeedContract",
    "ListContract",
    "LocatedFeedContract",
    "LookupContract",
    "RecordContract",
    "RefusalContract",
    "StoreContract",
    "UnitOfWorkContract",
    "WindowContract",
]


class StoreContract(
    RecordContract,
    ListContract,
    WindowContract,
    AppointmentRangeContract,
    LookupContract,
    FeedContract,
    LocatedFeedContract,
    DeliveryContract,
    UnitOfWorkContract,
    ConcurrencyContract,
    ConfigurationContract,
    RefusalContract,
):
    """
    The behaviour tests every :class:`~slotwise.storage.protocol.Store` must pass.

    Subclass it as ``TestMyStore(StoreContract)`` and implement :meth:`make_store`; override
    :meth:`dispose_store` to close what a store holds open. A test makes one or two stores.

    The tests write only consistent data: every id a record names belongs to a record written
    in the same or an earlier unit of work, and no record is deleted while another still names
    it, so a store may enforce references at commit. Ids are short ASCII strings; text fields
    carry non-ASCII characters, instants carry microseconds.

    The thread tests run :attr:`thread_count` threads; :attr:`thread_timeout` only guards
    against deadlocks and is not a speed requirement.

    .. versionadded:: 0.1
    """
