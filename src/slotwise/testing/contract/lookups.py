"""
Part of :class:`~slotwise.testing.StoreContract`. Lookups by key: idempotency keys, customers by e-mail and by appointment, expired holds.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime
from typing import Any

import attrs

from slotwise.errors import OutOfRange
from slotwise.model import (
    ApiToken,
    Appointment,
    AppointmentStatus,
    Customer,
)
from slotwise.testing.samples import (
    sample_api_token,
    sample_company,
    sample_customer,
)

from ._base import (
    ContractBase,
    _raises,
    _shows,
)
from ._world import (
    CO_A,
    CO_B,
    LOC_A1,
    LOC_A2,
    LOC_B1,
    RES_1,
    RES_4,
    RES_B,
    _appointment,
    _at,
    _bare_world,
)


class LookupContract(ContractBase):
    """Lookups by key: idempotency keys, customers by e-mail and by appointment, expired holds."""

    # -- idempotency keys, customers' appointments and holds ---------------------------------

    def test_appointment_by_idempotency_key(self) -> None:
        """The key finds its company's appointment exactly (case counts); updates and deletes follow."""
        store = self._store(
            *_bare_world(),
            _appointment("apt-1", _at(9), _at(10), idempotency_key="K-1"),
            _appointment("apt-2", _at(9), _at(10), idempotency_key=None),
            _appointment(
                "apt-b",
                _at(9),
                _at(10),
                resource_ids=(RES_B,),
                location_id=LOC_B1,
                idempotency_key="K-1",
            ),
        )

        def look(company_id: str, key: str) -> str | None:
            with store.read() as reader:
                found = reader.appointment_by_idempotency_key(company_id, key)
            return None if found is None else found.id

        before = (look(CO_A, "K-1"), look(CO_B, "K-1"), look(CO_A, "k-1"), look(CO_A, "K-2"))
        with store.transaction() as tx:
            tx.update(_appointment("apt-1", _at(9), _at(10), idempotency_key="K-2"))
        moved = (look(CO_A, "K-1"), look(CO_A, "K-2"))
        with store.transaction() as tx:
            tx.delete(Appointment, "apt-1")
        gone = look(CO_A, "K-2")

        expected = (("apt-1", "apt-b", None, None), (None, "apt-1"), None)
        assert expected == (before, moved, gone), _shows(expected, (before, moved, gone))

    def test_customer_by_email_ignores_case_per_company(self) -> None:
        """The folded address finds the company's first such customer; updates and deletes follow."""
        store = self._store(
            sample_company(id=CO_A),
            sample_company(id=CO_B),
            sample_customer(id="cus-2", company_id=CO_A, email="Ann.Lee@Example.com"),
            sample_customer(id="cus-1", company_id=CO_A, email="ann.lee@example.com"),
            sample_customer(id="cus-b", company_id=CO_B, email="ann.lee@example.com"),
            sample_customer(id="cus-none", company_id=CO_A, email=None),
        )

        def look(company_id: str, email: str) -> str | None:
            with store.read() as reader:
                found = reader.customer_by_email(company_id, email)
            return None if found is None else found.id

        before = (
            look(CO_A, " ANN.LEE@example.COM "),
            look(CO_B, "ann.lee@example.com"),
            look(CO_A, "bo@example.com"),
        )
        with store.transaction() as tx:
            tx.update(sample_customer(id="cus-2", company_id=CO_A, email="bo@example.com"))
        moved = (look(CO_A, "ann.lee@example.com"), look(CO_A, "BO@example.com"))
        with store.transaction() as tx:
            tx.delete(Customer, "cus-1")
        gone = look(CO_A, "ann.lee@example.com")

        expected: object = (("cus-2", "cus-b", None), ("cus-1", "cus-2"), None)
        assert expected == (before, moved, gone), _shows(expected, (before, moved, gone))

    def test_token_by_hash_finds_one_token_and_follows_changes(self) -> None:
        """token_by_hash() finds a token by its hash, revoked or not, and forgets a deleted one."""
        first = sample_api_token(id="tok-1", company_id=CO_A)
        second = sample_api_token(id="tok-2", company_id=CO_B, location_ids=None)
        store = self._store(sample_company(id=CO_A), sample_company(id=CO_B), first, second)

        def look(token_hash: str) -> object:
            with store.read() as reader:
                return reader.token_by_hash(token_hash)

        before = (look(first.token_hash), look(second.token_hash), look("0" * 64))
        revoked = attrs.evolve(first, revoked_at=_at(9))
        with store.transaction() as tx:
            tx.update(revoked)
            tx.delete(ApiToken, "tok-2")
        after = (look(first.token_hash), look(second.token_hash))

        expected: object = ((first, second, None), (revoked, None))
        assert expected == (before, after), _shows(expected, (before, after))

    def test_appointments_of_customer_in_creation_order(self) -> None:
        """A customer's appointments, any status, in creation order; re-assignment and deletes follow."""
        store = self._store(
            *_bare_world(),
            sample_customer(id="cus-1", company_id=CO_A),
            sample_customer(id="cus-2", company_id=CO_A),
            _appointment("apt-z", _at(15), _at(16), customer_id="cus-1"),
            _appointment("apt-a", _at(9), _at(10), customer_id="cus-1", status="CN"),
            _appointment("apt-m", _at(11), _at(12), customer_id="cus-2"),
            _appointment("apt-n", _at(12), _at(13), customer_id=None),
        )

        def of(customer_id: str) -> list[str]:
            with store.read() as reader:
                return [record.id for record in reader.appointments_of_customer(customer_id)]

        before = (of("cus-1"), of("cus-2"), of("cus-none"))
        with store.transaction() as tx:
            tx.update(_appointment("apt-m", _at(11), _at(12), customer_id="cus-1"))
            tx.delete(Appointment, "apt-z")
        after = (of("cus-1"), of("cus-2"))

        expected: object = ((["apt-z", "apt-a"], ["apt-m"], []), (["apt-a", "apt-m"], []))
        assert expected == (before, after), _shows(expected, (before, after))

    def test_expired_holds_boundary_order_company_and_limit(self) -> None:
        """IN holds expiring at or before now, by expiry then id, per company or all, up to limit."""
        hold = AppointmentStatus.INITIAL

        def held(record_id: str, expires: datetime, **changes: Any) -> Appointment:
            fields: dict[str, Any] = {"status": hold, "hold_expires_at": expires, **changes}
            return _appointment(record_id, _at(15), _at(16), **fields)

        store = self._store(
            *_bare_world(),
            held("h-late", _at(10, 1)),
            held("h-b", _at(10)),
            held("h-a", _at(10)),
            held("h-early", _at(9)),
            _appointment("bk", _at(15), _at(16), hold_expires_at=_at(8)),
            held("h-other", _at(9, 30), resource_ids=(RES_B,), location_id=LOC_B1),
        )

        def expired(company_id: str | None, now: datetime, limit: int = 100) -> list[str]:
            with store.read() as reader:
                found = reader.expired_holds(company_id=company_id, now=now, limit=limit)
            return [record.id for record in found]

        seen = (
            expired(CO_A, _at(10)),
            expired(CO_A, _at(9, 59)),
            expired(None, _at(10)),
            expired(None, _at(10), limit=2),
            expired(CO_B, _at(12)),
        )
        with store.transaction() as tx:
            tx.update(held("h-a", _at(10), status=AppointmentStatus.BOOKED))
            tx.delete(Appointment, "h-early")
        after = expired(CO_A, _at(12))

        expected = (
            (["h-early", "h-a", "h-b"]),
            (["h-early"]),
            (["h-early", "h-other", "h-a", "h-b"]),
            (["h-early", "h-other"]),
            (["h-other"]),
        )
        assert expected == seen, _shows(expected, seen)
        assert ["h-b", "h-late"] == after, _shows(["h-b", "h-late"], after)
        with _raises(OutOfRange), store.read() as reader:
            reader.expired_holds(company_id=None, now=_at(10), limit=0)

    def test_expired_holds_by_location(self) -> None:
        """location_ids keeps those locations' expired holds, by expiry then id, before the limit."""

        def held(record_id: str, expires: datetime, location_id: str) -> Appointment:
            resource = {LOC_A1: RES_1, LOC_A2: RES_4, LOC_B1: RES_B}[location_id]
            return _appointment(
                record_id,
                _at(15),
                _at(16),
                status=AppointmentStatus.INITIAL,
                hold_expires_at=expires,
                location_id=location_id,
                resource_ids=(resource,),
            )

        store = self._store(
            *_bare_world(),
            held("h-a2-early", _at(8), LOC_A2),
            held("h-a1", _at(9), LOC_A1),
            held("h-b1", _at(9), LOC_B1),
            held("h-a2", _at(9, 30), LOC_A2),
            held("h-a1-late", _at(11), LOC_A1),
        )

        def expired(
            company_id: str | None, location_ids: Collection[str] | None, limit: int = 100
        ) -> list[str]:
            with store.read() as reader:
                found = reader.expired_holds(
                    company_id=company_id, location_ids=location_ids, now=_at(10), limit=limit
                )
            return [record.id for record in found]

        seen = (
            expired(CO_A, [LOC_A1]),
            expired(CO_A, [LOC_A2], limit=1),
            expired(CO_A, [LOC_A1, LOC_A2]),
            expired(CO_A, []),
            expired(None, [LOC_B1, LOC_A1]),
        )

        expected: tuple[list[str], ...] = (
            ["h-a1"],
            ["h-a2-early"],
            ["h-a2-early", "h-a1", "h-a2"],
            [],
            ["h-a1", "h-b1"],
        )
        assert expected == seen, _shows(expected, seen)
