"""
A webhook receiver host (run inside a host namespace as a script): records every delivery.

Usage: ``python receiver.py ADDRESS PORT DELAY``. Each ``POST`` is recorded as ``[webhook-id,
the sender's address, path, body]`` and answered 204 after *DELAY* seconds (a slow receiver keeps
claims in flight); ``GET /received`` returns the records so far as JSON. Counting by
``webhook-id`` is what makes an at-least-once sender's repeats visible.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

RECEIVED: list[list[Any]] = []
LOCK = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    """Records POSTs, lists them on GET /received."""

    delay = 0.0

    def do_POST(self) -> None:
        """Record the delivery, wait the delay, answer 204."""
        length = int(self.headers.get("Content-Length", "0"))
        body = json.loads(self.rfile.read(length) or b"null")
        with LOCK:
            RECEIVED.append([self.headers["webhook-id"], self.client_address[0], self.path, body])
        time.sleep(self.delay)
        self.send_response(204)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self) -> None:
        """Answer the records so far."""
        with LOCK:
            data = json.dumps(RECEIVED).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        """Keep quiet."""


if __name__ == "__main__":
    Handler.delay = float(sys.argv[3])
    server = ThreadingHTTPServer((sys.argv[1], int(sys.argv[2])), Handler)
    print("ready", flush=True)
    server.serve_forever()
