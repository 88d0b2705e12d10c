"""
Part of :class:`~slotwise.testing.StoreContract`. Round trips of every record kind, write errors, and ``find`` order and filters.
"""

from __future__ import annotations

from typing import Any

import attrs

from slotwise.errors import DuplicateRecord, NotFound
from slotwise.model import (
    RECORD_KINDS,
    Company,
    Customer,
    Location,
)
from slotwise.testing.samples import (
    sample_company,
    sample_customer,
    sample_records,
)

from ._base import (
    ContractBase,
    _insert,
    _raises,
    _shows,
)
from ._world import (
    _DELETE_ORDER,
    CO_A,
    CO_B,
    LOC_A1,
    LOC_A2,
    LOC_B1,
    _bare_world,
    _changed,
    _full_world,
    _minimal_world,
)


class RecordContract(ContractBase):
    """Round trips of every record kind, write errors, and ``find`` order and filters."""

    # -- round trips ---------------------------------------------------------------------

    def test_every_kind_round_trips(self) -> None:
        """A record of every kind, inserted, is read back equal by get() and find()."""
        records = sample_records(company_id=CO_A, location_id=LOC_A1, prefix="a1")
        assert {type(record) for record in records} == set(RECORD_KINDS)
        store = self._store(*records)

        with store.read() as reader:
            for record in records:
                got = reader.get(type(record), record.id)
                assert got == record, _shows(record, got)
                assert type(got) is type(record), _shows(type(record), type(got))
                found = reader.find(type(record), company_id=CO_A)
                assert [record] == found, _shows([record], found)

    def test_minimal_records_round_trip(self) -> None:
        """Records with only required fields come back equal: None stays None, "" stays ""."""
        records = _minimal_world()
        assert {type(record) for record in records} == set(RECORD_KINDS)
        store = self._store(*records)

        with store.read() as reader:
            for record in records:
                got = reader.get(type(record), record.id)
                assert got == record, _shows(record, got)

    def test_every_kind_round_trips_an_update(self) -> None:
        """An update of every kind is read back equal, inside the unit of work and after it."""
        records = sample_records(company_id=CO_A, location_id=LOC_A1, prefix="a1")
        store = self._store(*records)
        changed = [_changed(record) for record in records]

        with store.transaction() as tx:
            for record in changed:
                tx.update(record)
                got = tx.get(type(record), record.id)
                assert got == record, _shows(record, got)

        with store.read() as reader:
            for record in changed:
                got = reader.get(type(record), record.id)
                assert got == record, _shows(record, got)

    def test_get_missing_returns_none(self) -> None:
        """get() of an id never inserted returns None, for every kind, in an empty or full store."""
        empty = self._store()
        with empty.read() as reader:
            for kind in RECORD_KINDS:
                assert reader.get(kind, "missing") is None, kind.__name__

        full = self._store(*_full_world())
        with full.read() as reader:
            for kind in RECORD_KINDS:
                assert reader.get(kind, "missing") is None, kind.__name__
                assert reader.find(kind, company_id="co-unknown") == [], kind.__name__

    def test_kinds_are_separate_id_spaces(self) -> None:
        """Records of different kinds may share an id; get() of one kind never returns another."""
        store = self._store(
            sample_company(id="same"), sample_customer(id="same", company_id="same")
        )

        with store.read() as reader:
            company = reader.get(Company, "same")
            customer = reader.get(Customer, "same")
            other = reader.get(Location, "same")
        assert (Company, Customer, None) == (type(company), type(customer), other)

    # -- write errors --------------------------------------------------------------------

    def test_insert_duplicate_raises_and_changes_nothing(self) -> None:
        """Inserting an existing id raises DuplicateRecord (kind, id) and keeps the stored record."""
        records = _full_world()
        store = self._store(*records)

        for record in records:
            kind = type(record)
            with _raises(DuplicateRecord) as caught, store.transaction() as tx:
                tx.insert(_changed(record, "duplicate"))
            assert (kind.__name__, record.id) == (caught.value.kind, caught.value.value)

            with store.read() as reader:
                got = reader.get(kind, record.id)
                found = reader.find(kind, company_id=None)
            assert got == record, _shows(record, got)
            expected = [item for item in records if type(item) is kind]
            assert expected == found, _shows(expected, found)

    def test_failed_write_leaves_the_unit_of_work_usable(self) -> None:
        """A DuplicateRecord or NotFound caught inside a unit of work wrote nothing; the rest commits."""
        existing = sample_customer(id="cus-1", company_id=CO_A)
        store = self._store(sample_company(id=CO_A), existing)
        added = sample_customer(id="cus-2", company_id=CO_A)

        with store.transaction() as tx:
            with _raises(DuplicateRecord):
                tx.insert(_changed(existing, "duplicate"))
            with _raises(NotFound):
                tx.update(_changed(added))
            with _raises(NotFound):
                tx.delete(Customer, "cus-missing")
            tx.insert(added)

        with store.read() as reader:
            found = reader.find(Customer, company_id=CO_A)
        assert [existing, added] == found, _shows([existing, added], found)

    def test_update_missing_raises_not_found(self) -> None:
        """update() of an id never inserted raises NotFound naming the kind and id, for every kind."""
        records = _full_world()
        store = self._store()

        for record in records:
            with _raises(NotFound) as caught, store.transaction() as tx:
                tx.update(record)
            actual = (caught.value.kind, caught.value.record_id)
            assert (type(record).__name__, record.id) == actual, _shows(record.id, actual)
        with store.read() as reader:
            for kind in RECORD_KINDS:
                assert reader.find(kind, company_id=None) == [], kind.__name__

    def test_delete_missing_raises_not_found(self) -> None:
        """delete() of an id never inserted raises NotFound naming the kind and id, for every kind."""
        store = self._store(*_bare_world())

        for kind in RECORD_KINDS:
            with _raises(NotFound) as caught, store.transaction() as tx:
                tx.delete(kind, "missing")
            actual = (caught.value.kind, caught.value.record_id)
            assert (kind.__name__, "missing") == actual, _shows(kind.__name__, actual)

    def test_deleted_record_is_gone_for_good(self) -> None:
        """After delete(), get() returns None and update() and delete() raise NotFound."""
        records = sample_records(company_id=CO_A, location_id=LOC_A1, prefix="a1")
        store = self._store(*records)
        by_kind: dict[type[Any], Any] = {type(record): record for record in records}
        with store.transaction() as tx:
            # The location and its calendar name each other; unlink them first.
            tx.update(attrs.evolve(by_kind[Location], primary_calendar_id=None))
        # Children first, so a store that enforces references accepts every delete.
        for kind in _DELETE_ORDER:
            record = by_kind[kind]
            with store.transaction() as tx:
                tx.delete(kind, record.id)
            with store.read() as reader:
                assert reader.get(kind, record.id) is None, kind.__name__
                assert reader.find(kind, company_id=None) == [], kind.__name__
            with _raises(NotFound), store.transaction() as tx:
                tx.update(record)
            with _raises(NotFound), store.transaction() as tx:
                tx.delete(kind, record.id)

    # -- find ----------------------------------------------------------------------------

    def test_find_returns_creation_order(self) -> None:
        """find() lists records in insert order, not id order, across and within units of work."""
        store = self._store(sample_company(id=CO_A))
        ids = ["cus-m", "cus-c", "cus-x", "cus-a", "cus-k"]
        _insert(store, sample_customer(id=ids[0], company_id=CO_A))
        _insert(store, sample_customer(id=ids[1], company_id=CO_A))
        _insert(store, *(sample_customer(id=record_id, company_id=CO_A) for record_id in ids[2:]))

        with store.read() as reader:
            found = [record.id for record in reader.find(Customer, company_id=CO_A)]
        assert ids == found, _shows(ids, found)

    def test_find_update_keeps_position(self) -> None:
        """An updated record keeps its place in find() and shows its new value."""
        customers = [sample_customer(id=f"cus-{n}", company_id=CO_A) for n in (3, 1, 2)]
        store = self._store(sample_company(id=CO_A), *customers)
        changed = _changed(customers[0])

        with store.transaction() as tx:
            tx.update(changed)

        with store.read() as reader:
            found = reader.find(Customer, company_id=CO_A)
        expected = [changed, *customers[1:]]
        assert expected == found, _shows(expected, found)

    def test_find_delete_removes_and_reinsert_goes_last(self) -> None:
        """A deleted record leaves find(); inserting its id again makes a new, last record."""
        customers = [sample_customer(id=f"cus-{n}", company_id=CO_A) for n in (3, 1, 2)]
        store = self._store(sample_company(id=CO_A), *customers)

        with store.transaction() as tx:
            tx.delete(Customer, "cus-1")
        with store.read() as reader:
            after_delete = [record.id for record in reader.find(Customer, company_id=CO_A)]
        _insert(store, customers[1])
        with store.read() as reader:
            after_insert = [record.id for record in reader.find(Customer, company_id=CO_A)]

        assert ["cus-3", "cus-2"] == after_delete, _shows(["cus-3", "cus-2"], after_delete)
        expected = ["cus-3", "cus-2", "cus-1"]
        assert expected == after_insert, _shows(expected, after_insert)

    def test_find_filters_by_company(self) -> None:
        """find(company_id=X) returns only X's records, in creation order, for every kind."""
        records = _full_world()
        store = self._store(*records)

        with store.read() as reader:
            for kind in RECORD_KINDS:
                for company_id in (CO_A, CO_B):
                    expected = [
                        record
                        for record in records
                        if type(record) is kind and record.company_id == company_id
                    ]
                    found = reader.find(kind, company_id=company_id)
                    assert expected == found, _shows(expected, found)

    def test_find_company_none_returns_every_company(self) -> None:
        """find(company_id=None) returns every company's records in one creation order."""
        store = self._store(sample_company(id=CO_A), sample_company(id=CO_B))
        order = [("cus-1", CO_B), ("cus-2", CO_A), ("cus-0", CO_B), ("cus-3", CO_A)]
        for record_id, company_id in order:
            _insert(store, sample_customer(id=record_id, company_id=company_id))

        with store.read() as reader:
            found = [
                (record.id, record.company_id) for record in reader.find(Customer, company_id=None)
            ]
            companies = [record.id for record in reader.find(Company, company_id=None)]
        assert order == found, _shows(order, found)
        assert [CO_A, CO_B] == companies, _shows([CO_A, CO_B], companies)

    def test_find_company_by_its_own_id(self) -> None:
        """A company's company_id is its id: find(Company, company_id=X) returns company X only."""
        store = self._store(sample_company(id=CO_A), sample_company(id=CO_B))

        with store.read() as reader:
            found = [record.id for record in reader.find(Company, company_id=CO_B)]
        assert [CO_B] == found, _shows([CO_B], found)

    def test_find_filters_by_location(self) -> None:
        """find(location_id=L) returns only L's records, for every kind that has a location_id."""
        records = _full_world()
        store = self._store(*records)
        located = [kind for kind in RECORD_KINDS if "location_id" in attrs.fields_dict(kind)]
        assert len(located) >= 9, located

        with store.read() as reader:
            for kind in located:
                for company_id, location_id in (
                    (CO_A, LOC_A1),
                    (CO_A, LOC_A2),
                    (CO_B, LOC_B1),
                    (None, LOC_A2),
                    (CO_B, LOC_A1),
                ):
                    expected = [
                        record
                        for record in records
                        if type(record) is kind
                        and company_id in (None, record.company_id)
                        and getattr(record, "location_id", None) == location_id
                    ]
                    found = reader.find(kind, company_id=company_id, location_id=location_id)
                    assert expected == found, _shows(expected, found)
