"""The benchmark's slow network (tests/delaying_proxy.py): round trips of 100-200 ms through it,
150 ms on average, and every byte in the order it was sent."""

from __future__ import annotations

import socket
import socketserver
import statistics
import threading
import time

from delaying_proxy import DelayingProxy


class EchoServer(socketserver.ThreadingTCPServer):
    daemon_threads = True  # (a connection the proxy left open cannot hold up the test's end)
    block_on_close = False


class Echo(socketserver.BaseRequestHandler):
    ended = threading.Event()  # a connection ended: the proxy closed its side

    def handle(self) -> None:
        try:
            while data := self.request.recv(4096):
                self.request.sendall(data)
        finally:
            Echo.ended.set()


def test_round_trips_take_150_ms_give_or_take_50_and_keep_their_order() -> None:
    with EchoServer(("127.0.0.1", 0), Echo) as echo:
        threading.Thread(target=echo.serve_forever, daemon=True).start()
        proxy = DelayingProxy(echo.server_address[1]).start()
        try:
            with socket.create_connection(("127.0.0.1", proxy.port), timeout=5) as client:
                trips = []
                for n in range(12):
                    sent = time.monotonic()
                    client.sendall(f"{n:04d}".encode())
                    received = b""
                    while len(received) < 4:
                        received += client.recv(4 - len(received))
                    trips.append((time.monotonic() - sent) * 1000)
                    assert received == f"{n:04d}".encode()
                client.sendall(b"".join(f"{n:04d}".encode() for n in range(200)))  # a burst: in order
                burst = b""
                while len(burst) < 800:
                    burst += client.recv(4096)
                assert burst == b"".join(f"{n:04d}".encode() for n in range(200))
        finally:
            proxy.stop()
            echo.shutdown()
        assert Echo.ended.wait(5), "the stopped proxy left its connection to the server open"
    assert min(trips) >= 100 and max(trips) <= 260, trips
    assert 110 <= statistics.mean(trips) <= 200, trips
