"""Fixtures shared by the unit tests of appointments: a service and a resource at the primary location."""

from __future__ import annotations

import pytest

from slotwise import Location, Workspace
from slotwise.model import Resource, Service


@pytest.fixture
def service(ws: Workspace, location: Location) -> Service:
    """A 30-minute service at the primary location (grid every 15 minutes, 09:00-17:00)."""
    return ws.services.create(name="Cut", duration=30, reason="r")


@pytest.fixture
def resource(ws: Workspace, location: Location) -> Resource:
    """A resource at the primary location, taking every service."""
    return ws.resources.create(name="Ana", reason="r")
