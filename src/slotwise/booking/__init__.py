"""
The appointment state machine: the transition table, the outbox and the booking operations.

Import from the modules (``slotwise.booking.transitions``, ``slotwise.booking.service``); this
package module imports nothing, so setup operations may use ``slotwise.booking.outbox`` without
pulling in the booking service.
"""

from __future__ import annotations
