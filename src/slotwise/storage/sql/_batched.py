"""
Statements answering several of ``SQLStore``'s reads in one round trip (``slotwise.storage.
batched``): records of several kinds by id, and the blocks and allocations of a date range.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import bindparam, literal, select, union_all

from slotwise.model import Allocation, Block

from ._schema import RECORD_TABLES

__all__ = ["WINDOWS", "prefetch_statement"]


def _windows_arm(kind: type[Any], position: int, targets: str) -> Any:
    table = RECORD_TABLES[kind]
    return select(literal(position).label("kind"), table.c.seq, table.c.doc).where(
        table.c.target_id.in_(bindparam(targets, expanding=True)),
        table.c.start_date <= bindparam("last"),
        table.c.end_date >= bindparam("first"),
    )


WINDOWS = union_all(
    _windows_arm(Block, 0, "block_targets"), _windows_arm(Allocation, 1, "allocation_targets")
)
"""Blocks and allocations touching a date range, in one statement (``windows_touching``)."""

_PREFETCH_STATEMENTS: dict[tuple[type[Any], ...], Any] = {}


def prefetch_statement(kinds: tuple[type[Any], ...]) -> Any:
    """One statement reading one record of each of *kinds* by id (``id_0``, ``id_1``, ...)."""
    built = _PREFETCH_STATEMENTS.get(kinds)
    if built is None:
        parts = [
            select(literal(position).label("position"), RECORD_TABLES[kind].c.doc).where(
                RECORD_TABLES[kind].c.id == bindparam(f"id_{position}")
            )
            for position, kind in enumerate(kinds)
        ]
        built = _PREFETCH_STATEMENTS[kinds] = parts[0] if len(parts) == 1 else union_all(*parts)
    return built
