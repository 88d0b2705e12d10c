"""
``SQLStore``'s range reads: the blocks and allocations of dates, the appointments of a range.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import date, datetime
from typing import Any

from slotwise._time import ensure_aware
from slotwise.model import Allocation, Appointment, Block
from slotwise.storage.protocol import R

from ._batched import WINDOWS
from ._codec import decode
from ._statements import _AT_LOCATION, _STATEMENTS, _taking_resources
from ._unit_base import UnitBase

__all__ = ["RangeReads"]


class RangeReads(UnitBase):
    """Range reads, each from the index that bounds it."""

    def blocks_touching(
        self, *, target_ids: Collection[str], first: date, last: date
    ) -> list[Block]:
        return self._windows_touching(Block, target_ids, first, last)

    def allocations_touching(
        self, *, target_ids: Collection[str], first: date, last: date
    ) -> list[Allocation]:
        return self._windows_touching(Allocation, target_ids, first, last)

    def _windows_touching(
        self, kind: type[R], target_ids: Collection[str], first: date, last: date
    ) -> list[R]:
        targets = sorted(set(target_ids))
        if not targets:
            return []
        parameters = {"targets": targets, "first": first, "last": last}
        return self._records(kind, _STATEMENTS[kind]["touching"], parameters)

    def windows_touching(
        self,
        *,
        block_targets: Collection[str],
        allocation_targets: Collection[str],
        first: date,
        last: date,
    ) -> tuple[list[Block], list[Allocation]]:
        """
        ``blocks_touching`` and ``allocations_touching`` in one statement (one round trip).

        An optional capability of this store, used through ``slotwise.storage.batched``.
        """
        blocks, allocations = sorted(set(block_targets)), sorted(set(allocation_targets))
        if not blocks or not allocations:
            return (
                self._windows_touching(Block, blocks, first, last),
                self._windows_touching(Allocation, allocations, first, last),
            )
        parameters = {
            "block_targets": blocks,
            "allocation_targets": allocations,
            "first": first,
            "last": last,
        }
        rows = sorted(self._rows(WINDOWS, parameters), key=lambda row: (row[0], row[1]))
        return (
            [decode(Block, row[2]) for row in rows if row[0] == 0],
            [decode(Allocation, row[2]) for row in rows if row[0] == 1],
        )

    def appointments_overlapping(
        self,
        *,
        location_id: str,
        resource_ids: Collection[str] | None,
        start: datetime,
        end: datetime,
    ) -> list[Appointment]:
        ensure_aware(start, field="start")
        ensure_aware(end, field="end")
        if resource_ids is None:
            # From start minus the location's longest appointment, read in the same statement.
            parameters = {"location_id": location_id, "start": start, "end": end}
            statement = _AT_LOCATION[self._conn.dialect.name == "postgresql"]
            return self._records(Appointment, statement, parameters)
        return self._taking(location_id, resource_ids, start, end, None)

    def appointments_occupying(
        self,
        *,
        company_id: str,
        location_id: str,
        resource_ids: Collection[str],
        start: datetime,
        end: datetime,
    ) -> list[Appointment]:
        """
        The capability ``slotwise.storage.batched.appointments_occupying`` uses: the overlap
        read from ``start`` minus the company's largest service padding (a ``padding`` span
        row, read in the same statement as the resources' longest appointments).
        """
        ensure_aware(start, field="start")
        ensure_aware(end, field="end")
        return self._taking(location_id, resource_ids, start, end, company_id)

    def _taking(
        self,
        location_id: str,
        resource_ids: Collection[str],
        start: datetime,
        end: datetime,
        company_id: str | None,
    ) -> list[Appointment]:
        """
        The appointments at *location_id* taking one of *resource_ids* that overlap ``[start,
        end)``, or with *company_id* whose time padded by that company's largest service
        padding does: one statement, the resources' longest appointments and the padding read
        in it (``_taking_resources``).
        """
        scope_ids = sorted(set(resource_ids))
        if not scope_ids:
            return []
        parameters: dict[str, Any] = {"start": start, "end": end}
        if company_id is not None:
            parameters["company_id"] = company_id
        for position, resource_id in enumerate(scope_ids):
            parameters[f"resource_{position}"] = resource_id
        timestamps = self._conn.dialect.name == "postgresql"
        statement = _taking_resources(len(scope_ids), timestamps, company_id is not None)
        return self._at_location(location_id, statement, parameters)

    def _at_location(
        self, location_id: str, statement: Any, parameters: dict[str, Any]
    ) -> list[Appointment]:
        # The location is checked here, not in SQL: a location condition on the appointments
        # table lets a planner without fresh statistics (PostgreSQL on a young table guesses
        # 0.5% of rows per location) walk the location's whole history by its index and probe
        # the derived table for each row. Without it the only way in is the link range, then
        # the appointments by id. An appointment whose resource worked at another location
        # then is read and dropped, which is rare and bounded by the range.
        return [
            appointment
            for appointment in self._records(Appointment, statement, parameters)
            if appointment.location_id == location_id
        ]
