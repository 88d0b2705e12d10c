"""
A client host's load (run inside a host namespace as a script): HTTP requests to slotwise serve.

Usage: ``python client.py PLAN_JSON`` (or ``@FILE`` holding it). It prints ``ready``, waits for a
line on standard input (so the clients of every host start together), sends the plan's requests from ``threads``
threads -- request *n* of a thread goes to server ``n % len(servers)`` -- and prints one JSON
line: every outcome as ``[status, code, id]`` (``status`` 0 and the exception's name as ``code``
when no answer came: the outcome is unknown), the elapsed seconds and the request count.

Plan keys: ``servers`` (base URLs), ``token``, ``threads``, ``requests`` (``[method, path,
body]`` each), ``pick``: ``random`` (``attempts`` seeded picks per thread, the race), ``each``
(every request once, shared out among the threads) or ``repeat`` (cycle for ``seconds``).
"""

from __future__ import annotations

import itertools
import json
import random
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx


def _outcome(answer: httpx.Response) -> list[Any]:
    """Return ``[status, code, id]`` of an answer (code and id from its JSON body, if any)."""
    try:
        body = answer.json()
    except ValueError:
        body = None
    if not isinstance(body, dict):
        body = {}
    return [answer.status_code, body.get("code"), body.get("id")]


def main() -> None:
    """Run the plan in ``sys.argv[1]``; print the outcomes as JSON."""
    argument = sys.argv[1]
    # A long plan comes as "@file": one argument may not exceed 128 KiB on Linux.
    plan = json.loads(Path(argument[1:]).read_text() if argument.startswith("@") else argument)
    servers, requests = plan["servers"], plan["requests"]
    print("ready", flush=True)
    sys.stdin.readline()
    shared = iter(range(len(requests)))
    lock = threading.Lock()
    outcomes: list[list[Any]] = []
    stop_at = time.monotonic() + float(plan.get("seconds", 0))

    def run(thread: int) -> None:
        picker = random.Random(f"{plan.get('seed', 0)}-{thread}")
        mine: list[list[Any]] = []
        headers = {"Authorization": f"Bearer {plan['token']}"}
        clients = [
            httpx.Client(base_url=base, headers=headers, timeout=plan.get("timeout", 30))
            for base in servers
        ]
        for sent in itertools.count():
            if plan["pick"] == "random":
                if sent >= plan["attempts"]:
                    break
                method, path, body = picker.choice(requests)
            elif plan["pick"] == "each":
                with lock:
                    number = next(shared, None)
                if number is None:
                    break
                method, path, body = requests[number]
            else:
                if time.monotonic() >= stop_at:
                    break
                method, path, body = requests[sent % len(requests)]
            client = clients[(thread + sent) % len(clients)]
            try:
                mine.append(_outcome(client.request(method, path, json=body)))
            except httpx.HTTPError as error:
                mine.append([0, type(error).__name__, None])
        for client in clients:
            client.close()
        with lock:
            outcomes.extend(mine)

    started = time.monotonic()
    threads = [threading.Thread(target=run, args=(n,)) for n in range(plan["threads"])]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - started
    print(json.dumps({"outcomes": outcomes, "elapsed": elapsed}), flush=True)


if __name__ == "__main__":
    main()
