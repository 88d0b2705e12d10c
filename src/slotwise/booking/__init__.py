"""
The appointment state machine: the transition table, the booking checks and the appointment
operations.

Import from the modules (``slotwise.booking.transitions``, ``slotwise.booking.service``). Events
and their payloads live below every operation, in ``slotwise.storage.outbox``, so setup
operations never reach into this package (docs/design.md).
"""

from __future__ import annotations
