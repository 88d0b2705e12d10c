"""
Reads a store may answer together: records by id, and the blocks and allocations of a range.

Not part of the storage protocol: a store that can answer several reads in one round trip
(``SQLStore``) offers ``prefetch`` and ``windows_touching`` methods, and these functions use them;
on any other store they fall back to the protocol's reads (``MemoryStore``, where a read costs no
round trip, needs nothing more).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from datetime import date
from typing import Any

from slotwise.model import Allocation, Block
from slotwise.storage.protocol import Reader

__all__ = ["prefetch", "windows_touching"]


def prefetch(reader: Reader, wanted: Iterable[tuple[type[Any], str | None]]) -> None:
    """Ask *reader* for the (kind, id) records in *wanted* at once, when its store can; ids ``None`` are skipped."""
    read_at_once = getattr(reader, "prefetch", None)
    if read_at_once is not None:
        read_at_once([(kind, record_id) for kind, record_id in wanted if record_id is not None])


def windows_touching(
    reader: Reader,
    *,
    block_targets: Collection[str],
    allocation_targets: Collection[str],
    first: date,
    last: date,
) -> tuple[list[Block], list[Allocation]]:
    """
    Return ``blocks_touching(block_targets)`` and ``allocations_touching(allocation_targets)``
    over ``[first, last]``, in one read when the store can.
    """
    read_together = getattr(reader, "windows_touching", None)
    if read_together is not None:
        found: tuple[list[Block], list[Allocation]] = read_together(
            block_targets=block_targets,
            allocation_targets=allocation_targets,
            first=first,
            last=last,
        )
        return found
    blocks = reader.blocks_touching(target_ids=block_targets, first=first, last=last)
    allocations = reader.allocations_touching(target_ids=allocation_targets, first=first, last=last)
    return blocks, allocations
