"""
Telling a store, in one call, which records a unit of work is about to read by id.

Not part of the storage protocol: a store that can read several records in one round trip
(``SQLStore.prefetch``) offers a ``prefetch`` method, and the ``get()`` calls that follow find
them already read. Other stores (``MemoryStore``, where a read by id costs nothing) need nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from slotwise.storage.protocol import Reader

__all__ = ["prefetch"]


def prefetch(reader: Reader, wanted: Iterable[tuple[type[Any], str | None]]) -> None:
    """Ask *reader* for the (kind, id) records in *wanted* at once, when its store can; ids ``None`` are skipped."""
    read_at_once = getattr(reader, "prefetch", None)
    if read_at_once is not None:
        read_at_once([(kind, record_id) for kind, record_id in wanted if record_id is not None])
