"""The cyclic collector is paused while a query builds its answer, and left as it was found."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from datetime import date

import pytest

from slotwise import Resource, Service, Workspace
from slotwise.availability._collector import collector_paused


@pytest.fixture(autouse=True)
def _collector_on() -> Iterator[None]:
    """Every test starts, and leaves the process, with the collector on."""
    gc.enable()
    yield
    gc.enable()


class TestCollectorPaused:
    def test_off_inside_and_back_on_after(self):
        """Inside the block the collector is off; afterwards it is on again."""
        with collector_paused():
            inside = gc.isenabled()

        assert (False, True) == (inside, gc.isenabled())

    def test_a_collector_switched_off_by_the_host_stays_off(self):
        """A host that runs with the collector off keeps it off after a query."""
        gc.disable()

        with collector_paused():
            pass

        assert not gc.isenabled()

    def test_an_error_inside_still_switches_it_back_on(self):
        """The collector comes back on when the block raises."""
        with pytest.raises(ValueError, match="boom"), collector_paused():
            raise ValueError("boom")

        assert gc.isenabled()

    def test_nested_and_concurrent_queries_switch_it_on_once_the_last_ends(self):
        """With two queries in flight, the first to end leaves it off; the last turns it on."""
        entered, release = threading.Event(), threading.Event()
        seen: list[bool] = []

        def other_query() -> None:
            with collector_paused():
                entered.set()
                release.wait(timeout=30)

        worker = threading.Thread(target=other_query)
        worker.start()
        entered.wait(timeout=30)
        with collector_paused():
            pass
        seen.append(gc.isenabled())  # the other query is still running
        release.set()
        worker.join(timeout=30)
        seen.append(gc.isenabled())

        assert [False, True] == seen

    def test_availability_queries_pause_it(
        self, ws: Workspace, service: Service, resource: Resource, monkeypatch: pytest.MonkeyPatch
    ):
        """times(), days() and unavailable() each switch the collector off once, then on."""
        switched: list[str] = []
        monkeypatch.setattr(gc, "disable", lambda: switched.append("off"))
        monkeypatch.setattr(gc, "enable", lambda: switched.append("on"))
        first, last = date(2026, 1, 6), date(2026, 1, 7)

        ws.availability.times(service.id, first, last)
        ws.availability.days(service.id, first, last)
        ws.availability.unavailable(service.id, first, last)

        assert ["off", "on"] * 3 == switched
