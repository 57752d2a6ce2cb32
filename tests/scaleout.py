"""A real deployment on loopback for tests and benchmarks: Debian's `redis-server`, several
`timekeeper serve --redis` workers and Debian's `nginx` running deploy/nginx.conf (filled in by
tools/nginx_conf.py, as docs/hosting.md does it) with a self-signed certificate made by `openssl`.

Every process is started on a free loopback port, waited for with a deadline, and stopped in
`Deployment.stop` (workers with Ctrl-C, the others with SIGTERM, then SIGKILL).
"""

from __future__ import annotations

import os
import signal
import socket
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from realparts import program
from serving import Response, Server, start_server
from tiers import needs_full_tier

ROOT = Path(__file__).resolve().parent.parent
START_TIMEOUT_S = 20.0
REQUEST_TIMEOUT_S = 30.0


def free_port() -> int:
    """A loopback port free now (redis-server and nginx cannot be given port 0)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_listening(port: int, process: subprocess.Popen, what: str, timeout_s: float = START_TIMEOUT_S) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited with {process.returncode}")
        with socket.socket() as probe:
            probe.settimeout(0.5)
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"{what} did not listen on port {port} within {timeout_s:.0f} s")


def stop_process(process: subprocess.Popen, sig: int = signal.SIGTERM, timeout_s: float = 10.0) -> None:
    if process.poll() is None:
        process.send_signal(sig)
        try:
            process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=timeout_s)


@needs_full_tier("runs redis-server")
def start_redis(folder: Path) -> tuple[subprocess.Popen, int]:
    port = free_port()
    folder.mkdir(parents=True, exist_ok=True)
    process = subprocess.Popen([program("redis-server"), "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                                "--appendonly", "no", "--dir", str(folder), "--logfile", str(folder / "redis.log")], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_listening(port, process, "redis-server")
    return process, port


def make_certificate(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 (one day), made by openssl: an ECDSA P-256 key, whose
    handshakes cost nginx a fraction of an RSA key's (thousands of screens reconnect at once)."""
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run([program("openssl"), "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                    "-keyout", str(key), "-out", str(cert),
                    "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True, timeout=60)
    return cert, key


@needs_full_tier("runs nginx")
def start_nginx(run_dir: Path, workers: list[int], cert: Path, key: Path) -> tuple[subprocess.Popen, int, int]:
    """nginx running deploy/nginx.conf for `workers`; its TLS and plain ports."""
    listen, http_listen = free_port(), free_port()
    command = [sys.executable, str(ROOT / "tools" / "nginx_conf.py"), "--listen", f"127.0.0.1:{listen}",
               "--http-listen", f"127.0.0.1:{http_listen}", "--cert", str(cert), "--key", str(key),
               "--run-dir", str(run_dir)]
    for port in workers:
        command += ["--worker", f"127.0.0.1:{port}"]
    subprocess.run(command, check=True, capture_output=True, timeout=60)
    process = subprocess.Popen([program("nginx"), "-p", str(run_dir), "-c", str(run_dir / "nginx.conf"), "-e", str(run_dir / "error.log"),
                                "-g", "daemon off;"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        wait_listening(listen, process, "nginx")
    except RuntimeError as error:
        raise RuntimeError(f"{error}: {process.stderr.read().decode() if process.stderr else ''}"
                           f"{(run_dir / 'error.log').read_text() if (run_dir / 'error.log').exists() else ''}") from None
    return process, listen, http_listen


@dataclass(frozen=True)
class Drained:
    """A worker stopped with SIGTERM: its exit status, the seconds from the signal to its exit, and
    the CPU seconds it used in all (user + system, its children not counted)."""

    status: int
    seconds: float
    cpu_s: float


def reap(process: subprocess.Popen, timeout_s: float) -> tuple[int, float]:
    """Wait for `process` to exit (SIGKILL after `timeout_s`): its exit status (-N: killed by
    signal N) and the CPU seconds it used, which only its parent can read once it has gone."""
    deadline = time.monotonic() + timeout_s
    while True:
        pid, status, usage = os.wait4(process.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > deadline:
            process.kill()
            pid, status, usage = os.wait4(process.pid, 0)
            break
        time.sleep(0.02)
    process.returncode = os.waitstatus_to_exitcode(status)
    return process.returncode, usage.ru_utime + usage.ru_stime


@dataclass
class Deployment:
    folder: Path
    redis: subprocess.Popen
    redis_port: int
    workers: list[Server]
    worker_ports: list[int]
    nginx: subprocess.Popen | None = None
    https_port: int = 0
    http_port: int = 0
    cert: Path | None = None
    stopped: list[int] = field(default_factory=list)
    worker_args: list[tuple[str, ...]] = field(default_factory=list)  # each worker's command-line options
    prelude: str = ""  # Python each worker runs first (serving.start_server)
    env: dict | None = None
    old_workers: list[Server] = field(default_factory=list)  # workers stopped and started again

    @property
    def redis_url(self) -> str:
        return f"redis://127.0.0.1:{self.redis_port}/0"

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.https_port}"

    def tls(self) -> ssl.SSLContext:
        context = ssl.create_default_context(cafile=str(self.cert))
        return context

    def request(self, path: str, *, method: str = "GET", json_body: object = None, base: str | None = None,
                headers: dict | None = None) -> Response:
        """One request through nginx (or to `base`, a worker's own address), with a timeout."""
        import json

        sent = {"X-Timekeeper": "1", **(headers or {})} if method == "POST" else dict(headers or {})
        data = None
        if json_body is not None:
            data = json.dumps(json_body).encode()
            sent["Content-Type"] = "application/json"
        request = urllib.request.Request((base or self.url) + path, data=data, headers=sent, method=method)
        context = self.tls() if (base or self.url).startswith("https") else None
        try:
            with urllib.request.urlopen(request, timeout=REQUEST_TIMEOUT_S, context=context) as reply:
                return Response(reply.status, dict(reply.headers), reply.read())
        except urllib.error.HTTPError as error:
            return Response(error.code, dict(error.headers), error.read())

    def kill_worker(self, index: int) -> None:
        """SIGKILL: the worker dies mid-mission, nothing is cleaned up."""
        process = self.workers[index].process
        process.kill()
        process.wait(timeout=10)
        self.stopped.append(index)

    def drain_worker(self, index: int, timeout_s: float = 60.0) -> Drained:
        """SIGTERM, as systemd stops a worker: it moves its screens to the others and exits."""
        worker = self.workers[index]
        process = worker.process
        started = time.monotonic()
        process.send_signal(signal.SIGTERM)
        status, cpu = reap(process, timeout_s)
        took = time.monotonic() - started
        worker.stop()  # (its output read)
        self.old_workers.append(worker)
        return Drained(status, took, cpu)

    def start_worker(self, index: int) -> Server:
        """The worker `index` started again on its port with its options (a new version, in an upgrade)."""
        self.workers[index] = start_server(self.folder / "state", *self.worker_args[index], env=self.env,
                                           prelude=self.prelude)
        return self.workers[index]

    def redis_client(self):
        import redis

        return redis.Redis(port=self.redis_port, decode_responses=True, socket_timeout=5)

    def stop(self) -> None:
        for worker in self.workers:
            try:
                worker.stop()
            except Exception:  # stopping the others matters more
                worker.process.kill()
        if self.nginx is not None:
            stop_process(self.nginx, signal.SIGQUIT)
        stop_process(self.redis)


def deploy(folder: Path, workers: int = 2, *, nginx: bool = True, extra: tuple[str, ...] = (),
           env: dict | None = None, prelude: str = "") -> Deployment:
    """redis-server, `workers` workers sharing it (and one --sound-cache, --renders and --state folder),
    nginx in front. `prelude`: Python each worker runs first (serving.start_server)."""
    redis, redis_port = start_redis(folder / "redis")
    deployment = Deployment(folder, redis, redis_port, [], [], env=env, prelude=prelude)
    try:
        for _worker in range(workers):
            port = free_port()
            args = ("--port", str(port), "--redis", deployment.redis_url, "--behind-proxy", "--sound-cache",
                    str(folder / "sound"), "--renders", str(folder / "renders"), *extra)
            deployment.worker_args.append(args)
            deployment.workers.append(start_server(folder / "state", *args, env=env, prelude=prelude))
            deployment.worker_ports.append(port)
        if nginx:
            deployment.cert, key = make_certificate(folder)
            deployment.nginx, deployment.https_port, deployment.http_port = start_nginx(
                folder / "nginx", deployment.worker_ports, deployment.cert, key)
    except BaseException:
        deployment.stop()
        raise
    return deployment


def raise_open_files() -> int:
    """This process's open-files limit raised to its hard limit (thousands of WebSockets); the limit."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        wanted = 1 << 20 if hard == resource.RLIM_INFINITY else hard
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
        except (ValueError, OSError):
            pass
    return soft


__all__ = ["Deployment", "Drained", "deploy", "free_port", "raise_open_files", "os"]
