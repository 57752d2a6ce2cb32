"""A TCP proxy on loopback that delays every byte as a slow, jittery network would: each chunk read
from one side is written to the other a random delay later (one way: `one_way_ms` ± `jitter_ms`/2,
uniform), never before the chunk read before it (TCP keeps the order). With 75 ± 25 ms each way
a round trip takes 100-200 ms, 150 ms on average: "150 ms round trips and 50 ms jitter".

It runs its own event loop in a thread, so a test or benchmark driving browsers (blocking calls)
can put one in front of a server per browser. Bounded: at most MAX_CONNECTIONS at once, and it
listens on 127.0.0.1 only.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import threading
import time

MAX_CONNECTIONS = 200
CHUNK_BYTES = 65536


class DelayingProxy:
    """Forwards 127.0.0.1:`port` to 127.0.0.1:`target_port`, each way delayed (ms)."""

    def __init__(self, target_port: int, one_way_ms: float = 75.0, jitter_ms: float = 50.0, seed: int = 0) -> None:
        self.target_port, self.one_way_ms, self.jitter_ms = target_port, one_way_ms, jitter_ms
        self.random = random.Random(seed)
        self.port = 0
        self.connections = 0
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="delaying-proxy", daemon=True)
        self.server: asyncio.AbstractServer | None = None

    def start(self) -> DelayingProxy:
        self.thread.start()
        self.server = asyncio.run_coroutine_threadsafe(
            asyncio.start_server(self._connection, "127.0.0.1", 0), self.loop).result(10)
        self.port = self.server.sockets[0].getsockname()[1]
        return self

    def stop(self) -> None:
        async def close() -> None:
            if self.server is not None:
                self.server.close()
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.wait(tasks, timeout=5) if tasks else None  # each connection's writers closed ...
            await asyncio.sleep(0.05)  # ... and their sockets with them (closing runs on the next turns)

        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(close(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)

    def delay_s(self) -> float:
        return max(0.0, self.one_way_ms + self.random.uniform(-self.jitter_ms / 2, self.jitter_ms / 2)) / 1000

    async def _connection(self, client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        if self.connections >= MAX_CONNECTIONS:
            client_writer.close()
            return
        self.connections += 1
        try:
            server_reader, server_writer = await asyncio.wait_for(
                asyncio.open_connection("127.0.0.1", self.target_port), 10)
        except (OSError, asyncio.TimeoutError):
            self.connections -= 1
            client_writer.close()
            return
        try:
            await asyncio.gather(self._pump(client_reader, server_writer), self._pump(server_reader, client_writer))
        finally:
            self.connections -= 1
            for writer in (client_writer, server_writer):
                with contextlib.suppress(Exception):
                    writer.close()

    async def _pump(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Read chunks as they come; write each one its delay later, in order."""
        queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()

        async def send() -> None:
            while True:
                due, data = await queue.get()
                if not data:
                    break
                wait = due - time.monotonic()
                if wait > 0:
                    await asyncio.sleep(wait)
                writer.write(data)
                await writer.drain()
            with contextlib.suppress(Exception):
                writer.write_eof()

        sender = asyncio.ensure_future(send())
        last_due = 0.0
        try:
            while True:
                data = await reader.read(CHUNK_BYTES)
                last_due = max(time.monotonic() + self.delay_s(), last_due)
                queue.put_nowait((last_due, data))
                if not data:
                    break
            await sender
        except (ConnectionError, OSError):
            sender.cancel()
