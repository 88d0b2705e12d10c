"""Fixtures of the HTTP tests: a fresh service over the tenant world per test."""

from __future__ import annotations

import pytest

from ._client import Service, serve


@pytest.fixture
def api() -> Service:
    """The HTTP service over a fresh tenant world (companies A and B) on a MemoryStore."""
    return serve()
