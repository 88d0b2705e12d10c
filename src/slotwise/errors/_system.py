"""Errors of what slotwise runs on: a missing provider or extra, and the store."""

from __future__ import annotations

from ._base import SlotwiseError

__all__ = [
    "ProviderNotConfigured",
    "MissingDependency",
    "StoreError",
    "ConflictError",
    "StoreUnavailable",
]


class ProviderNotConfigured(SlotwiseError):
    """No external calendar provider plugin is configured for this operation."""

    code = "PROVIDER-NOT-CONFIGURED"
    http_status = 501

    def __init__(self, *, provider: str) -> None:
        super().__init__(
            f"no authorizer is configured for calendar provider {provider}: pass "
            "calendar_authorizer=... to Scheduler"
        )
        self.provider = provider


class MissingDependency(SlotwiseError, ImportError):
    """An optional extra is needed for this operation and is not installed."""

    code = "MISSING-DEPENDENCY"
    http_status = 501

    def __init__(self, *, feature: str, extra: str) -> None:
        super().__init__(f"{feature} needs the optional extra: pip install 'slotwise[{extra}]'")
        self.feature = feature
        self.extra = extra


class StoreError(SlotwiseError):
    """A store could not carry out a unit of work; nothing of it was written."""

    code = "STORE"
    http_status = 500


class ConflictError(StoreError):
    """A concurrent unit of work changed the same records; retrying may succeed."""

    code = "STORE-CONFLICT"
    http_status = 409


class StoreUnavailable(StoreError):
    """The store's backend cannot be reached."""

    code = "STORE-UNAVAILABLE"
    http_status = 503
