"""
Tools for testing code that uses slotwise: a manual clock, predictable ids and API tokens, and
the store contract suite.
"""

from __future__ import annotations

from slotwise.testing.busy import StaticBusyTime as StaticBusyTime
from slotwise.testing.clocks import ManualClock as ManualClock
from slotwise.testing.clocks import SequentialIds as SequentialIds
from slotwise.testing.clocks import SequentialTokens as SequentialTokens
from slotwise.testing.contract import StoreContract as StoreContract

__all__ = [
    "ManualClock",
    "SequentialIds",
    "SequentialTokens",
    "StaticBusyTime",
    "StoreContract",
]
