"""
The reads of ``SQLStore`` on one connection: its ``Reader``.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from datetime import datetime
from typing import Any

from slotwise._time import ensure_aware
from slotwise.errors import StoreError
from slotwise.model import ApiToken, Appointment, AuditEntry, Customer, OutboxEvent, QueuedReminder
from slotwise.storage.listing import Listed, ListQuery, check_query
from slotwise.storage.protocol import R

from ._batched import prefetch_statement
from ._codec import decode
from ._lists import list_shape, list_statements
from ._ranges import RangeReads
from ._schema import email_key, lookup_key
from ._statements import (
    _BY_EMAIL,
    _BY_KEY,
    _BY_TOKEN_HASH,
    _FEEDS,
    _STATEMENTS,
    _VERSION,
    _check_limit,
)
from ._unit_base import UnitHost

__all__ = ["SQLReader", "UnitHost"]


class SQLReader(RangeReads):
    """The protocol's reads, as SQL on one connection."""

    served_by: str = "primary"
    """Which server answers: ``"primary"``, or ``"replica <n>"`` (the store's n-th replica)."""
    _may_end = True
    """Whether :meth:`last_read` ends the view (not on a read run again after ``ViewEnded``)."""
    _prefetching: frozenset[tuple[type[Any], str]] = frozenset()
    """The records a prefetch asked for ahead, not answered yet."""

    def get(self, kind: type[R], record_id: str, /) -> R | None:
        known: R | None = self._known.get((kind, record_id))
        if known is None and (kind, record_id) in self._prefetching:
            self._send_queued()  # the prefetch asked for ahead answers it (or finds none)
            known = self._known.get((kind, record_id))
        if known is not None and self._failure is None:
            return known  # (after a failure the database answers, and raises again)
        statement = self._statements(kind)["get"]
        found = self._records(kind, statement, {"record_id": record_id})
        if not found:
            return None
        self._known[(kind, record_id)] = found[0]
        return found[0]

    def last_read(self) -> None:
        """
        End this view with the next read that reaches the database: its ``ROLLBACK`` rides
        with that read (see :func:`slotwise.storage.batched.last_read`), one round trip fewer.
        A read after it raises ``ViewEnded`` (``lagging_read`` runs the read again). Only a
        reader whose reads ride and whose connection is then released with nothing more sent
        (PostgreSQL through psycopg 3, MariaDB on the store's own engine) does so; on any other
        the view ends as it always does.
        """
        if self._riding and self._may_end and self._store._dialect.ends_reads(self._conn):
            self._closing = ["ROLLBACK"]

    def configuration_version(self, company_id: str) -> int:
        """
        Return *company_id*'s configuration version (decision 49; 0 before its first
        configuration write): one primary-key read, for ``slotwise.storage.configuration``.
        """
        return _version_of(self._rows(_VERSION, {"company_id": company_id}))

    def send_ahead(self) -> None:
        """
        Send the reads asked for ahead (and whatever else waits to ride, the view's ``ROLLBACK``
        after :meth:`last_read` among it) now, adding no statement: nothing is sent when nothing
        waits.
        """
        self._send_queued()

    def configuration_version_ahead(self, company_id: str, answered: Callable[[int], None]) -> bool:
        """
        Ask for *company_id*'s configuration version with this view's next round trip; tell
        whether it was (then *answered* gets it when that round trip is answered). Only a view
        whose reads ride and that a lag-tolerant read may run again (``ReadAgain``) asks ahead:
        the configuration cache answers from what it holds meanwhile and checks the version
        when it arrives (``slotwise.storage.configuration.confirmed``).
        """
        if not (self._riding and self._may_end):
            return False
        self._read_ahead(
            _VERSION, {"company_id": company_id}, lambda rows: answered(_version_of(rows))
        )
        return True

    def prefetch(self, wanted: Collection[tuple[type[Any], str]], /) -> None:
        """
        Read the records *wanted* names (kind, id) in one statement, for this unit's ``get()``.

        An optional capability of this store (not part of the protocol): a unit of work that
        knows what it will read asks for it at once, one round trip instead of one per record.
        Records already read, and records that do not exist, cost nothing later either way.
        """
        missing = sorted(
            {
                (kind, record_id)
                for kind, record_id in wanted
                if (kind, record_id) not in self._known
            },
            key=lambda item: (item[0].__name__, item[1]),
        )
        if not missing:
            return
        for kind, _ in missing:
            self._statements(kind)  # refuses a kind that is not a record kind
        statement = prefetch_statement(tuple(kind for kind, _ in missing))
        parameters = {
            f"id_{position}": record_id for position, (_, record_id) in enumerate(missing)
        }

        def answered(rows: list[Any]) -> None:
            self._prefetching = self._prefetching.difference(missing)
            for position, document in rows:
                kind, record_id = missing[int(position)]
                self._known[(kind, record_id)] = decode(kind, document)

        self._prefetching = self._prefetching.union(missing)

        # On PostgreSQL the read rides with the unit's next round trip (its answer can wait
        # for the get() calls it serves).
        self._read_ahead(statement, parameters, answered)

    def find(
        self, kind: type[R], /, *, company_id: str | None, location_id: str | None = None
    ) -> list[R]:
        statements = self._statements(kind)
        if location_id is not None and "find01" not in statements:
            raise StoreError(f"{kind.__name__} records have no location_id to filter on")
        key = f"find{int(company_id is not None)}{int(location_id is not None)}"
        parameters = {"company_id": company_id, "location_id": location_id}
        return self._records(kind, statements[key], parameters)

    def page(self, kind: type[R], query: ListQuery, /) -> Listed[R]:
        self._statements(kind)  # refuses a kind that is not a record kind
        check_query(kind, query)
        shape, parameters, residual = list_shape(kind, query)
        rows, window, count = list_statements(shape)
        first, last = query.offset, query.offset + query.limit
        if any(not choices for choices in query.one_of.values()):
            return Listed([], 0)  # one of no values: nothing matches
        if residual:
            # A filter without a column: match the documents the columns select.
            matching = [r for r in self._records(kind, rows, parameters) if query.matches(r)]
            return Listed(matching[first:last], len(matching))
        total = int(self._rows(count, parameters)[0][0])
        if total <= first:
            return Listed([], total)
        parameters.update(offset=first, limit=query.limit)
        return Listed(self._records(kind, window, parameters), total)

    def appointment_by_idempotency_key(self, company_id: str, key: str) -> Appointment | None:
        parameters = {"company_id": company_id, "key": lookup_key(key)}
        # The column holds a digest of a long key: the record's own key decides.
        for record in self._records(Appointment, _BY_KEY, parameters):
            if record.idempotency_key == key:
                return record
        return None

    def customer_by_email(self, company_id: str, email: str) -> Customer | None:
        folded = email.strip().casefold()
        parameters = {"company_id": company_id, "key": email_key(email)}
        for record in self._records(Customer, _BY_EMAIL, parameters):
            if record.email is not None and record.email.strip().casefold() == folded:
                return record
        return None

    def token_by_hash(self, token_hash: str) -> ApiToken | None:
        found = self._records(ApiToken, _BY_TOKEN_HASH, {"token_hash": token_hash})
        return found[0] if found else None

    def appointments_of_customer(self, customer_id: str) -> list[Appointment]:
        statement = _STATEMENTS[Appointment]["customer_id"]
        return self._records(Appointment, statement, {"customer_id": customer_id})

    def expired_holds(
        self,
        *,
        company_id: str | None,
        location_ids: Collection[str] | None = None,
        now: datetime,
        limit: int,
    ) -> list[Appointment]:
        _check_limit(limit)
        ensure_aware(now, field="now")
        return self._feed(Appointment, "holds", company_id, location_ids, limit, upto=now)

    def undelivered_events(
        self,
        *,
        company_id: str | None,
        location_ids: Collection[str] | None = None,
        limit: int,
    ) -> list[OutboxEvent]:
        _check_limit(limit)
        return self._feed(OutboxEvent, "events", company_id, location_ids, limit)

    def reminders_due(
        self,
        *,
        company_id: str | None,
        location_ids: Collection[str] | None = None,
        before: datetime,
        limit: int,
    ) -> list[QueuedReminder]:
        _check_limit(limit)
        ensure_aware(before, field="before")
        return self._feed(QueuedReminder, "reminders", company_id, location_ids, limit, upto=before)

    def _feed(
        self,
        kind: type[R],
        name: str,
        company_id: str | None,
        location_ids: Collection[str] | None,
        limit: int,
        **upto: Any,
    ) -> list[R]:
        parameters: dict[str, Any] = {"company_id": company_id, "limit": limit, **upto}
        if location_ids is not None:
            places = sorted(set(location_ids))
            if not places:
                return []
            parameters["location_ids"] = places
        statement = _FEEDS[(name, company_id is not None, location_ids is not None)]
        return self._records(kind, statement, parameters)

    def reminders_of(self, appointment_id: str) -> list[QueuedReminder]:
        return self._children(QueuedReminder, appointment_id)

    def audit_of(self, appointment_id: str) -> list[AuditEntry]:
        return self._children(AuditEntry, appointment_id)

    def _children(self, kind: type[R], appointment_id: str) -> list[R]:
        statement = _STATEMENTS[kind]["appointment_id"]
        return self._records(kind, statement, {"appointment_id": appointment_id})


def _version_of(rows: Sequence[Any]) -> int:
    """The version a configuration-version read's rows hold (0 before the first write)."""
    return int(rows[0][0]) if rows else 0
