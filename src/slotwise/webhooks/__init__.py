"""
Webhooks (decisions 27-29 and 38): what a receiver needs, and how slotwise signs and schedules.

Receivers verify a delivery with :func:`verify` -- standard library only, so a receiver needs no
extra. Signing (:func:`signature_headers`), the retry schedule (:func:`next_attempt_at`) and the
destination check (:func:`check_destination`) are the sender's rules, usable on their own.

.. versionadded:: 0.1
"""

from __future__ import annotations

from .addresses import Resolver as Resolver
from .addresses import check_destination as check_destination
from .schedule import RETRY_DELAYS as RETRY_DELAYS
from .schedule import next_attempt_at as next_attempt_at
from .signing import SIGNATURE_HEADER as SIGNATURE_HEADER
from .signing import signature_headers as signature_headers
from .signing import verify as verify

__all__ = [
    "RETRY_DELAYS",
    "SIGNATURE_HEADER",
    "Resolver",
    "check_destination",
    "next_attempt_at",
    "signature_headers",
    "verify",
]
