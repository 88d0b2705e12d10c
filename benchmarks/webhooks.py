"""
Webhook deliveries per second from one worker to a local receiver.

Usage::

    python benchmarks/webhooks.py [--stores sqlite postgresql] [--events 2000] [--batch 50]

For each store a fresh database gets one company (its booking URL a receiver on 127.0.0.1, a
threaded ``http.server`` answering 204) and ``--events`` undelivered events; one
``DeliveryWorker`` (the development setting allows the loopback receiver) then runs rounds until
every event is delivered. One JSON line per store: ``{"figure": "webhooks", "store", "events",
"seconds", "per_second", "received"}``. Speed is never asserted (STYLE rule 35).
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from http_service import database

from slotwise import Scheduler
from slotwise.model import OutboxEvent, Trigger
from slotwise.storage.sql import SQLStore
from slotwise.testing.samples import sample_company
from slotwise.webhooks.sender import DeliveryWorker

NOW = datetime(2026, 3, 2, 13, 0, tzinfo=UTC)


class _Handler(BaseHTTPRequestHandler):
    received = 0
    lock = threading.Lock()

    def do_POST(self) -> None:
        """Read the body, count it, answer 204."""
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        with _Handler.lock:
            _Handler.received += 1
        self.send_response(204)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""


def measure(kind: str, events: int, batch: int) -> dict[str, Any]:
    """Deliver *events* from one worker on a fresh *kind* database; return the figure."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _Handler.received = 0
    try:
        with database(kind) as url:
            store = SQLStore(url)
            company = sample_company(
                id="co",
                booking_webhook_url=f"http://127.0.0.1:{server.server_address[1]}/hook",
                webhook_signature_hash="bench-key",
            )
            with store.transaction() as tx:
                tx.insert(company)
                for number in range(events):
                    tx.insert(
                        OutboxEvent(
                            id=f"ev-{number:06}",
                            company_id="co",
                            sequence=tx.next_sequence(),
                            trigger=Trigger.BOOKING_CONFIRMATION,
                            entity_id=f"apt-{number}",
                            payload={"appointment": {"id": f"apt-{number}", "duration": 30}},
                            created_at=NOW,
                        )
                    )
            worker = DeliveryWorker(Scheduler(store), owner="bench", allow_local=True, batch=batch)
            started = time.perf_counter()
            delivered = 0
            while delivered < events:
                report = worker.run_once()
                delivered += report.delivered
                if report.claimed == 0:
                    break
            seconds = time.perf_counter() - started
            worker.client.close()
            store.close()
    finally:
        server.shutdown()
        server.server_close()
    return {
        "figure": "webhooks",
        "store": kind,
        "events": events,
        "seconds": round(seconds, 3),
        "per_second": round(delivered / seconds, 1),
        "received": _Handler.received,
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Print one JSON line per store."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stores", nargs="+", default=["sqlite", "postgresql"])
    parser.add_argument("--events", type=int, default=2000)
    parser.add_argument("--batch", type=int, default=50)
    arguments = parser.parse_args(argv)
    for kind in arguments.stores:
        print(json.dumps(measure(kind, arguments.events, arguments.batch)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
