"""
A loopback relay (run inside a worker host as a script): ``127.0.0.1:PORT`` to a receiver host.

Usage: ``python relay.py PORT TARGET_ADDRESS TARGET_PORT``. The worker's send-time check refuses
private addresses even under ``--allow-local-webhooks`` (decision 47: that setting allows http
and loopback only), and the harness's hosts have only private addresses; so each worker host
sends to a loopback URL and this relay carries the bytes across the bridge to the receiver, the
way an egress proxy on the host would. The receiver sees the worker host's address.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Copy *reader* to *writer* until end of stream."""
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError):
            writer.close()


async def main(port: int, address: str, target: int) -> None:
    """Relay every connection to 127.0.0.1:*port* to *address*:*target*."""

    async def relay(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Connect to the target and copy both ways."""
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(address, target)
        except OSError:
            writer.close()
            return
        await asyncio.gather(_pipe(reader, upstream_writer), _pipe(upstream_reader, writer))

    server = await asyncio.start_server(relay, "127.0.0.1", port)
    print("ready", flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]), sys.argv[2], int(sys.argv[3])))
