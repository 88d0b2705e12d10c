"""
Part of :class:`~slotwise.testing.StoreContract`. Units of work: commit on normal exit, no trace on failure, reads of own writes, nesting.
"""

from __future__ import annotations

from datetime import date

import attrs

from slotwise.errors import DuplicateRecord, StoreError
from slotwise.model import (
    Allocation,
    Appointment,
    AuditEntry,
    Block,
    Customer,
    FieldDefinition,
    OutboxEvent,
    QueuedReminder,
    Subscription,
)
from slotwise.testing.samples import (
    sample_company,
    sample_customer,
    sample_records,
)

from ._base import (
    ContractBase,
    _Boom,
    _find_id,
    _Interrupt,
    _raises,
    _shows,
    _Universe,
)
from ._world import (
    CO_A,
    RES_1,
    RES_2,
    _appointment,
    _at,
    _bare_world,
    _changed,
    _full_world,
    _overlapping,
    _touching,
    _window,
)


class UnitOfWorkContract(ContractBase):
    """Units of work: commit on normal exit, no trace on failure, reads of own writes, nesting."""

    # -- units of work -------------------------------------------------------------------

    def test_normal_exit_commits_every_write(self) -> None:
        """Every insert, update and delete of a unit of work that ends normally is kept."""
        customers = [sample_customer(id=f"cus-{n}", company_id=CO_A) for n in range(3)]
        store = self._store(sample_company(id=CO_A), *customers)
        added = sample_customer(id="cus-new", company_id=CO_A)

        with store.transaction() as tx:
            tx.insert(added)
            tx.update(_changed(customers[0]))
            tx.delete(Customer, "cus-1")

        with store.read() as reader:
            found = reader.find(Customer, company_id=CO_A)
        expected = [_changed(customers[0]), customers[2], added]
        assert expected == found, _shows(expected, found)

    def test_exception_in_unit_of_work_leaves_no_trace(self) -> None:
        """Inserts, updates and deletes of every kind vanish when the unit of work raises."""
        seeded = _full_world()
        store = self._store(*seeded)
        added = [
            *sample_records(company_id="co-c", location_id="loc-c1", prefix="c1"),
            *sample_records(company_id=CO_A, location_id="loc-a3", prefix="a3", with_company=False),
        ]
        universe = _Universe(seeded + added)
        before = universe.snapshot(store)
        boom = _Boom("abort")
        leaves = (
            OutboxEvent,
            AuditEntry,
            QueuedReminder,
            Appointment,
            FieldDefinition,
            Subscription,
            Allocation,
            Block,
        )

        with _raises(_Boom) as caught, store.transaction() as tx:
            for record in added:
                tx.insert(record)
            for record in seeded:
                tx.update(_changed(record))
            tx.update(
                attrs.evolve(
                    _changed(_find_id(seeded, Appointment, "a1-appointment")),
                    start=_at(8),
                    end=_at(9),
                    resource_ids=("b1-resource",),
                )
            )
            tx.update(
                attrs.evolve(
                    _find_id(seeded, Block, "a2-block"),
                    target_id="a1-resource",
                    start_date=date(2030, 1, 1),
                    end_date=date(2030, 1, 2),
                )
            )
            for record in seeded:
                if isinstance(record, leaves) and not record.id.startswith("a2-"):
                    tx.delete(type(record), record.id)
            # Delete a record in the middle of creation order, then insert its id again.
            for kind in (OutboxEvent, AuditEntry, QueuedReminder):
                name = {OutboxEvent: "event", AuditEntry: "audit", QueuedReminder: "reminder"}
                tx.delete(kind, f"a2-{name[kind]}")
            tx.delete(Appointment, "a2-appointment")
            tx.delete(Subscription, "a2-subscription")
            tx.delete(Customer, "a2-customer")
            tx.insert(_changed(_find_id(seeded, Customer, "a2-customer"), "re-inserted"))
            assert universe.snapshot(store, reader=tx) != before, "the writes were not seen"
            raise boom

        assert caught.value is boom, _shows(boom, caught.value)
        universe.assert_same(before, universe.snapshot(store))

    def test_rollback_restores_deleted_record_position(self) -> None:
        """A delete undone by an exception puts the record back in its place in find()."""
        customers = [sample_customer(id=f"cus-{n}", company_id=CO_A) for n in (5, 3, 9, 1)]
        store = self._store(sample_company(id=CO_A), *customers)

        with _raises(_Boom), store.transaction() as tx:
            tx.delete(Customer, "cus-3")
            tx.delete(Customer, "cus-9")
            tx.insert(customers[1])
            raise _Boom

        with store.read() as reader:
            found = reader.find(Customer, company_id=CO_A)
        assert customers == found, _shows(customers, found)

    def test_failed_write_propagating_rolls_back_earlier_writes(self) -> None:
        """A DuplicateRecord left to propagate undoes the unit of work's earlier writes."""
        existing = sample_customer(id="cus-1", company_id=CO_A)
        store = self._store(sample_company(id=CO_A), existing)

        with _raises(DuplicateRecord), store.transaction() as tx:
            tx.insert(sample_customer(id="cus-2", company_id=CO_A))
            tx.update(_changed(existing))
            tx.insert(existing)

        with store.read() as reader:
            found = reader.find(Customer, company_id=CO_A)
        assert [existing] == found, _shows([existing], found)

    def test_base_exception_rolls_back(self) -> None:
        """An exception that is not an Exception (like KeyboardInterrupt) also undoes the writes."""
        existing = sample_customer(id="cus-1", company_id=CO_A)
        store = self._store(sample_company(id=CO_A), existing)

        with _raises(_Interrupt), store.transaction() as tx:
            tx.insert(sample_customer(id="cus-2", company_id=CO_A))
            tx.delete(Customer, "cus-1")
            raise _Interrupt

        with store.read() as reader:
            found = reader.find(Customer, company_id=CO_A)
        assert [existing] == found, _shows([existing], found)

    def test_reads_inside_unit_of_work_see_its_own_writes(self) -> None:
        """get(), find() and the range reads of a unit of work see its inserts, updates and deletes."""
        first, last = date(2026, 3, 10), date(2026, 3, 20)
        store = self._store(
            *_bare_world(),
            sample_customer(id="cus-1", company_id=CO_A),
            sample_customer(id="cus-2", company_id=CO_A),
            _window(Block, "blk-old", RES_1, first, last),
            _appointment("apt-old", _at(10), _at(11)),
        )

        with store.transaction() as tx:
            tx.insert(sample_customer(id="cus-3", company_id=CO_A))
            tx.update(sample_customer(id="cus-1", company_id=CO_A, notes="seen"))
            tx.delete(Customer, "cus-2")
            tx.insert(_window(Block, "blk-new", RES_1, first, last))
            tx.update(_window(Block, "blk-old", RES_2, first, last))
            tx.insert(_appointment("apt-new", _at(10, 30), _at(11)))
            tx.update(_appointment("apt-old", _at(14), _at(15)))

            customer = tx.get(Customer, "cus-1")
            seen = (
                customer.notes if customer is not None else None,
                tx.get(Customer, "cus-2"),
                [record.id for record in tx.find(Customer, company_id=CO_A)],
                _touching(tx, "blocks_touching", [RES_1], first, last),
                _touching(tx, "blocks_touching", [RES_2], first, last),
                _overlapping(tx, _at(10), _at(11)),
                _overlapping(tx, _at(14), _at(15), resource_ids=[RES_1]),
            )

        expected = (
            "seen",
            None,
            ["cus-1", "cus-3"],
            ["blk-new"],
            ["blk-old"],
            ["apt-new"],
            ["apt-old"],
        )
        assert expected == seen, _shows(expected, seen)

    def test_nested_unit_of_work_raises_store_error(self) -> None:
        """A unit of work opened inside another on one thread raises StoreError; the outer goes on."""
        store = self._store(sample_company(id=CO_A))

        with store.transaction() as tx:
            tx.insert(sample_customer(id="cus-1", company_id=CO_A))
            with _raises(StoreError), store.transaction() as inner:
                inner.insert(sample_customer(id="cus-inner", company_id=CO_A))
            tx.insert(sample_customer(id="cus-2", company_id=CO_A))
        with store.transaction() as tx:
            tx.insert(sample_customer(id="cus-3", company_id=CO_A))

        with store.read() as reader:
            found = [record.id for record in reader.find(Customer, company_id=CO_A)]
        assert ["cus-1", "cus-2", "cus-3"] == found, _shows(["cus-1", "cus-2", "cus-3"], found)

    def test_locks_are_accepted_in_any_order(self) -> None:
        """A unit of work may name several locks, unsorted and repeated; it commits as usual."""
        store = self._store(sample_company(id=CO_A))

        with store.transaction(locks=["resource:9", "resource:10", "resource:9"]) as tx:
            tx.insert(sample_customer(id="cus-1", company_id=CO_A))
        with store.transaction(locks=("counter",)) as tx:
            tx.insert(sample_customer(id="cus-2", company_id=CO_A))

        with store.read() as reader:
            found = [record.id for record in reader.find(Customer, company_id=CO_A)]
        assert ["cus-1", "cus-2"] == found, _shows(["cus-1", "cus-2"], found)
