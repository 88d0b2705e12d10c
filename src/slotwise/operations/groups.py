"""
What service groups and resource groups share: a named group at one location or company-wide.

``ServiceGroupOperations`` and ``ResourceGroupOperations`` declare their own calls (their fields,
docstrings and what deleting a group does to its members); creating, reading, listing and
changing a group is written once here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Generic, TypeVar

import attrs

from slotwise.model import ResourceGroup, ServiceGroup
from slotwise.operations._context import Context
from slotwise.paging import AllPages, Page, paginate
from slotwise.storage.protocol import Reader, Transaction

from ._partial import resolved

__all__ = ["GroupKind", "GroupOperationsBase"]

G = TypeVar("G", ServiceGroup, ResourceGroup)


@attrs.frozen(kw_only=True)
class GroupKind(Generic[G]):
    """One kind of group: its record, the argument naming one, and the list's spec path."""

    record: type[G]
    field: str
    """The argument that names a group in errors: ``group_id``, the calls' own parameter, which
    the HTTP interface names as the path's ``id`` (decision 44)."""
    url: str


@attrs.frozen
class GroupOperationsBase(AllPages[G], Generic[G]):
    """The operations every kind of group has, for the principal's company."""

    _ctx: Context
    kind: ClassVar[GroupKind[Any]]

    def _create(self, fields: Mapping[str, Any]) -> G:
        ctx = self._ctx
        location_id = fields.get("location_id")
        values = {key: value for key, value in fields.items() if key != "location_id"}
        with ctx.store.transaction() as tx:
            if location_id is not None or ctx.principal.location_ids is not None:
                # Decision 42: a principal limited to some locations that names none gets its
                # first permitted one (a group with no location is company-wide, decision 37,
                # which such a principal may not make).
                location_id = ctx.location(tx, location_id).id
            group: G = self.kind.record(
                id=ctx.ids.new_id(), company_id=ctx.company_id, location_id=location_id, **values
            )
            tx.insert(group)
        return group

    def _get(self, group_id: str) -> G:
        def read(reader: Reader) -> G:
            group: G = self._ctx.owned(reader, self.kind.record, group_id, field=self.kind.field)
            return group

        return self._ctx.configured_read(read)

    def _list(self, location_id: str | None, offset: int, limit: int) -> Page[G]:
        ctx = self._ctx

        def read(reader: Reader) -> list[G]:
            location = ctx.location(reader, location_id)
            return [
                group
                for group in reader.find(self.kind.record, company_id=ctx.company_id)
                if group.location_id in (None, location.id)
            ]

        groups = ctx.configured_read(read)
        return paginate(groups, url=self.kind.url, offset=offset, limit=limit)

    def _update(self, group_id: str, changes: Mapping[str, Any]) -> G:
        with self._ctx.store.transaction() as tx:
            group = self._to_change(tx, group_id)
            updated: G = attrs.evolve(group, **resolved(group, changes))
            tx.update(updated)
        return updated

    def _to_change(self, tx: Transaction, group_id: str) -> G:
        """Return the group the principal may change: a company-wide one needs a company-wide principal."""
        group: G = self._ctx.owned(
            tx, self.kind.record, group_id, field=self.kind.field, change=True
        )
        return group
