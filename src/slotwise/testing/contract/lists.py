"""
Part of :class:`~slotwise.testing.StoreContract`. The list read (``Reader.page``): filters,
creation order, paging and totals, as :meth:`~slotwise.storage.listing.ListQuery.matches` defines
them.
"""

from __future__ import annotations

import itertools
from typing import Any

import attrs

from slotwise.errors import StoreError, UnexpectedField
from slotwise.model import (
    Appointment,
    AppointmentStatus,
    Customer,
    Location,
    OutboxEvent,
    Record,
    Service,
)
from slotwise.storage.listing import ListQuery
from slotwise.storage.protocol import Reader
from slotwise.testing.samples import sample_customer, sample_outbox_event, sample_service

from ._base import ContractBase, _raises, _shows
from ._world import (
    CO_A,
    CO_B,
    LOC_A1,
    LOC_A2,
    LOC_B1,
    RES_1,
    RES_2,
    RES_3,
    RES_4,
    RES_B,
    _appointment,
    _at,
    _bare_world,
)

SVC_OTHER = "svc-a1-other"
"""A second service at loc-a1, so the service filter has something to leave out."""

_STATUSES = (AppointmentStatus.BOOKED, AppointmentStatus.CANCELLED, AppointmentStatus.INITIAL)
_RESOURCE_SETS = ((RES_1,), (RES_2,), (RES_1, RES_3), (RES_2, RES_3))
_EMAILS = ("ann@example.com", "  ANN@Example.com ", "bob@example.com", None)


def _customers() -> list[Customer]:
    return [
        sample_customer(id="cus-1", company_id=CO_A, email="Ann@Example.com"),
        sample_customer(id="cus-2", company_id=CO_A, email="bob@example.com"),
        sample_customer(id="cus-3", company_id=CO_A, email=None),
        sample_customer(id="cus-4", company_id=CO_A, email="ANN@example.COM"),
        sample_customer(id="cus-b", company_id=CO_B, email="ann@example.com"),
    ]


def _listing_world() -> list[Record]:
    """The bare world, customers, and 24 appointments at loc-a1 cycling through every filter."""
    records: list[Record] = [*_bare_world(), *_customers()]
    records.append(sample_service(id=SVC_OTHER, company_id=CO_A, location_id=LOC_A1))
    customers = ("cus-1", "cus-2", None)
    services = ("svc-a1", SVC_OTHER)
    for number in range(24):
        records.append(
            _appointment(
                f"apt-{number:02d}",
                _at(8 + number % 10),
                _at(9 + number % 10),
                resource_ids=_RESOURCE_SETS[number % 4],
                status=_STATUSES[number % 3],
                customer_id=customers[number % 3],
                service_id=services[number % 2],
                email=_EMAILS[number % 4],
            )
        )
    # Elsewhere: another location of the company, and another company.
    records.append(
        _appointment("apt-a2", _at(9), _at(10), resource_ids=(RES_4,), location_id=LOC_A2)
    )
    records.append(
        _appointment("apt-b", _at(9), _at(10), resource_ids=(RES_B,), location_id=LOC_B1)
    )
    return records


def _queries() -> list[ListQuery]:
    """Queries over the listing world: every filter alone, some together, several pages."""
    filters: list[dict[str, Any]] = [
        {},
        {"equal": {"service_id": SVC_OTHER}},
        {"equal": {"customer_id": "cus-2"}},
        {"equal": {"customer_id": None}},
        {"equal": {"status": "CN"}},
        {"contains": {"resource_ids": RES_3}},
        {"contains": {"resource_ids": RES_4}},
        {"folded": {"email": "ann@example.com"}},
        {"equal": {"status": "BK", "service_id": "svc-a1"}, "contains": {"resource_ids": RES_1}},
        {"equal": {"customer_id": "cus-1"}, "folded": {"email": "ann@example.com"}},
        # Filters without an index of their own (a store may match documents for them).
        {"equal": {"booked_by": "Front desk"}},
        {"equal": {"confirmed": False, "status": "IN"}},
        {"one_of": {"location_id": {LOC_A1, LOC_A2}}},
        {"one_of": {"location_id": {LOC_A2}}, "newest_first": True},
        {"one_of": {"status": {"BK", "CN"}}, "equal": {"service_id": SVC_OTHER}},
        {"one_of": {"customer_id": {"cus-1", None}}},
        {"one_of": {"location_id": set()}},
        {"newest_first": True},
        {"newest_first": True, "contains": {"resource_ids": RES_2}},
        # Appointments starting in a range (decision 48), alone and with other filters.
        {"starting": (_at(10), _at(13))},
        {"starting": (_at(10), _at(13)), "equal": {"status": "BK"}, "newest_first": True},
        {"starting": (_at(9, 30), _at(9, 30))},
        {"starting": (_at(0), _at(23))},
    ]
    queries: list[ListQuery] = []
    for where, location_id, (offset, limit) in itertools.product(
        filters, (LOC_A1, None), ((0, 100), (0, 5), (5, 5), (7, 3), (30, 10))
    ):
        queries.append(
            ListQuery(company_id=CO_A, location_id=location_id, offset=offset, limit=limit, **where)
        )
    return queries


def _expected(reader: Reader, kind: type[Any], query: ListQuery) -> tuple[list[str], int]:
    """The reference answer: find() in creation order, matches(), then the page's slice."""
    matching = [r.id for r in reader.find(kind, company_id=query.company_id) if query.matches(r)]
    if query.newest_first:
        matching.reverse()
    return matching[query.offset : query.offset + query.limit], len(matching)


class ListContract(ContractBase):
    """The list read: one page of matching records in creation order, and the total."""

    def _page_ids(self, reader: Reader, kind: type[Any], query: ListQuery) -> tuple[list[str], int]:
        listed = reader.page(kind, query)
        return [record.id for record in listed.records], listed.total

    def test_page_agrees_with_find_and_matches(self) -> None:
        """Every filter, alone and combined, on every page: find() + matches() + slice, exactly."""
        store = self._store(*_listing_world())

        with store.read() as reader:
            for query in _queries():
                expected = _expected(reader, Appointment, query)
                assert expected == self._page_ids(reader, Appointment, query), _shows(
                    (query, expected), self._page_ids(reader, Appointment, query)
                )

    def test_filters_select_what_they_name(self) -> None:
        """Spot checks of the filters' meaning: status codes, membership, folded e-mail, None."""
        store = self._store(*_listing_world())

        with store.read() as reader:
            cancelled = reader.page(
                Appointment, ListQuery(company_id=CO_A, equal={"status": "CN"}, limit=100)
            )
            with_res_3 = reader.page(
                Appointment,
                ListQuery(company_id=CO_A, contains={"resource_ids": RES_3}, limit=100),
            )
            ann = reader.page(
                Appointment,
                ListQuery(company_id=CO_A, folded={"email": "ann@example.com"}, limit=100),
            )
            nobody = reader.page(
                Appointment,
                ListQuery(
                    company_id=CO_A, location_id=LOC_A1, equal={"customer_id": None}, limit=100
                ),
            )

        assert 8 == cancelled.total
        assert all(a.status is AppointmentStatus.CANCELLED for a in cancelled.records)
        assert 12 == with_res_3.total
        assert all(RES_3 in a.resource_ids for a in with_res_3.records)
        assert 12 == ann.total  # "ann@example.com" and "  ANN@Example.com "
        assert {"apt-00", "apt-01"} <= {a.id for a in ann.records}
        assert 8 == nobody.total
        assert all(a.customer_id is None for a in nobody.records)

    def test_customers_by_folded_email(self) -> None:
        """Customers match an address ignoring case and surrounding space, in creation order."""
        store = self._store(*_bare_world(), *_customers())

        with store.read() as reader:
            found = reader.page(
                Customer, ListQuery(company_id=CO_A, folded={"email": "ann@example.com"})
            )

        assert (["cus-1", "cus-4"], 2) == ([c.id for c in found.records], found.total)

    def test_pages_walk_in_creation_order_and_count_everything(self) -> None:
        """Pages of 5 cover the list once, in creation order; each carries the full total."""
        store = self._store(*_listing_world())
        seen: list[str] = []

        with store.read() as reader:
            everything = [a.id for a in reader.find(Appointment, company_id=CO_A)]
            for offset in range(0, 30, 5):
                listed = reader.page(
                    Appointment,
                    ListQuery(company_id=CO_A, location_id=LOC_A1, offset=offset, limit=5),
                )
                assert 24 == listed.total, _shows(24, listed.total)
                seen += [a.id for a in listed.records]

        assert [i for i in everything if i.startswith("apt-") and i != "apt-a2"] == seen

    def test_an_offset_past_the_end_gives_an_empty_page_and_the_total(self) -> None:
        """offset >= total: no records, the total still counted."""
        store = self._store(*_listing_world())

        with store.read() as reader:
            listed = reader.page(Appointment, ListQuery(company_id=CO_A, offset=1_000, limit=10))

        assert ([], 25) == (listed.records, listed.total)

    def test_companies_never_see_each_other(self) -> None:
        """Company B's page holds only company B's records, whatever the filters."""
        store = self._store(*_listing_world())

        with store.read() as reader:
            appointments = reader.page(Appointment, ListQuery(company_id=CO_B, limit=100))
            customers = reader.page(
                Customer, ListQuery(company_id=CO_B, folded={"email": "ann@example.com"})
            )
            none = reader.page(
                Appointment,
                ListQuery(company_id=CO_B, contains={"resource_ids": RES_1}, limit=100),
            )

        assert (["apt-b"], 1) == ([a.id for a in appointments.records], appointments.total)
        assert (["cus-b"], 1) == ([c.id for c in customers.records], customers.total)
        assert ([], 0) == (none.records, none.total)

    def test_events_by_delivery_status_newest_first(self) -> None:
        """Outbox events page by delivery_status, newest first; a delivery moves an event."""
        events = [
            sample_outbox_event(
                id=f"ev-{n}",
                company_id=CO_A,
                entity_id="e",
                sequence=n,
                location_id=LOC_A1 if n % 2 else LOC_A2,
                delivered_at=_at(12) if n % 3 == 0 else None,
            )
            for n in range(1, 10)
        ]
        store = self._store(*_bare_world(), *events)
        pending = ListQuery(
            company_id=CO_A, equal={"delivery_status": "pending"}, newest_first=True, limit=4
        )

        with store.read() as reader:
            before = self._page_ids(reader, OutboxEvent, pending)
            at_a2 = self._page_ids(
                reader,
                OutboxEvent,
                ListQuery(company_id=CO_A, one_of={"location_id": {LOC_A2}}, newest_first=True),
            )
        with store.transaction() as tx:
            tx.update(attrs.evolve(events[7], delivered_at=_at(13)))  # ev-8 delivered
        with store.read() as reader:
            after = self._page_ids(reader, OutboxEvent, pending)

        assert (["ev-8", "ev-7", "ev-5", "ev-4"], 6) == before
        assert (["ev-8", "ev-6", "ev-4", "ev-2"], 4) == at_a2
        assert (["ev-7", "ev-5", "ev-4", "ev-2"], 5) == after

    def test_every_kind_pages_by_company_and_location(self) -> None:
        """Kinds without filter columns page too: locations by company, services by location."""
        store = self._store(
            *_bare_world(), sample_service(id=SVC_OTHER, company_id=CO_A, location_id=LOC_A1)
        )

        with store.read() as reader:
            locations = reader.page(Location, ListQuery(company_id=CO_A))
            services = reader.page(Service, ListQuery(company_id=CO_A, location_id=LOC_A1))
            named = reader.page(Service, ListQuery(company_id=CO_A, equal={"id": SVC_OTHER}))

        assert ([LOC_A1, LOC_A2], 2) == ([x.id for x in locations.records], locations.total)
        assert (["svc-a1", SVC_OTHER], 2) == ([x.id for x in services.records], services.total)
        assert ([SVC_OTHER], 1) == ([x.id for x in named.records], named.total)

    def test_updates_keep_places_and_move_between_filters(self) -> None:
        """An update keeps the record's place; a changed status or e-mail changes what matches it."""
        store = self._store(*_listing_world())
        with store.read() as reader:
            apt = reader.get(Appointment, "apt-00")
        assert apt is not None
        assert apt.status is AppointmentStatus.BOOKED

        with store.transaction() as tx:
            tx.update(
                attrs.evolve(apt, status=AppointmentStatus.CANCELLED, email="zed@example.com")
            )
            inside = self._page_ids(
                tx, Appointment, ListQuery(company_id=CO_A, equal={"status": "CN"}, limit=100)
            )

        with store.read() as reader:
            cancelled = self._page_ids(
                reader, Appointment, ListQuery(company_id=CO_A, equal={"status": "CN"}, limit=100)
            )
            zed = self._page_ids(
                reader, Appointment, ListQuery(company_id=CO_A, folded={"email": "zed@example.com"})
            )
            first = self._page_ids(reader, Appointment, ListQuery(company_id=CO_A, limit=1))

        assert inside == cancelled  # the unit of work read its own write
        assert "apt-00" == cancelled[0][0]
        assert 9 == cancelled[1]
        assert (["apt-00"], 1) == zed
        assert (["apt-00"], 25) == first

    def test_deletes_leave_and_reinserts_come_last(self) -> None:
        """A deleted record leaves every page; inserted again it is the newest."""
        store = self._store(*_listing_world())
        with store.read() as reader:
            apt = reader.get(Appointment, "apt-00")
        assert apt is not None

        with store.transaction() as tx:
            tx.delete(Appointment, "apt-00")
        with store.read() as reader:
            gone = self._page_ids(reader, Appointment, ListQuery(company_id=CO_A, limit=100))
        with store.transaction() as tx:
            tx.insert(apt)
        with store.read() as reader:
            back = self._page_ids(reader, Appointment, ListQuery(company_id=CO_A, limit=100))

        assert "apt-00" not in gone[0]
        assert 24 == gone[1]
        assert "apt-00" == back[0][-1]
        assert 25 == back[1]

    def test_queries_naming_what_a_kind_has_not_are_refused(self) -> None:
        """An unknown field raises UnexpectedField, a location filter on a kind without one StoreError."""
        store = self._store(*_bare_world(), *_customers())

        with store.read() as reader:
            with _raises(UnexpectedField) as unknown:
                reader.page(Appointment, ListQuery(company_id=CO_A, equal={"no_such": "x"}))
            with _raises(StoreError):
                reader.page(Customer, ListQuery(company_id=CO_A, location_id=LOC_A1))

        assert "no_such" == unknown.value.field, _shows("no_such", unknown.value.field)

    def test_a_rolled_back_unit_of_work_leaves_pages_as_they_were(self) -> None:
        """Inserts, updates and deletes of a unit of work that raises change no page."""
        store = self._store(*_listing_world())
        query = ListQuery(company_id=CO_A, equal={"status": "BK"}, limit=100)
        with store.read() as reader:
            before = self._page_ids(reader, Appointment, query)
            apt = reader.get(Appointment, "apt-03")
        assert apt is not None

        try:
            with store.transaction() as tx:
                tx.delete(Appointment, "apt-00")
                tx.update(attrs.evolve(apt, status=AppointmentStatus.CANCELLED))
                tx.insert(_appointment("apt-new", _at(8), _at(9)))
                raise _Abort
        except _Abort:
            pass
        with store.read() as reader:
            after = self._page_ids(reader, Appointment, query)

        assert before == after, _shows(before, after)


class _Abort(Exception):
    """Raised inside a unit of work to roll it back."""
