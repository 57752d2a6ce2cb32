"""Fill in deploy/nginx.conf for one deployment: the addresses nginx listens on, the workers, the
TLS certificate and the folder nginx keeps its pid, log and buffers in (docs/hosting.md).

    python tools/nginx_conf.py --listen 443 --http-listen 80 \\
        --worker 127.0.0.1:8801 --worker 127.0.0.1:8802 \\
        --cert /etc/timekeeper/tls/cert.pem --key /etc/timekeeper/tls/key.pem \\
        --run-dir /var/lib/timekeeper-nginx
    nginx -p /var/lib/timekeeper-nginx -c /var/lib/timekeeper-nginx/nginx.conf

Writes RUN_DIR/nginx.conf (atomically) and makes RUN_DIR; exit 2 with one line for a bad value.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

TEMPLATE = Path(__file__).resolve().parent.parent / "deploy" / "nginx.conf"
_ADDRESS = re.compile(r"^(?:(?:[0-9]{1,3}\.){3}[0-9]{1,3}:|\[[0-9a-fA-F:]+\]:)?[0-9]{1,5}$")
_WORKER = re.compile(r"^(?:(?:[0-9]{1,3}\.){3}[0-9]{1,3}|\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]{1,253}):[0-9]{1,5}$")
_PATH = re.compile(r"^/[^;{}'\"\s]*$")


def fill(template: str, *, listen: str, http_listen: str, workers: list[str], cert: Path, key: Path,
         run_dir: Path) -> str:
    """The template with every @@NAME@@ filled in; ValueError names a bad value."""
    for name, value in (("--listen", listen), ("--http-listen", http_listen)):
        if not _ADDRESS.match(value):
            raise ValueError(f"{name} {value!r}: expected a port or address:port (443, 127.0.0.1:8443)")
    if not workers:
        raise ValueError("--worker: name at least one worker (127.0.0.1:8801)")
    for worker in workers:
        if not _WORKER.match(worker):
            raise ValueError(f"--worker {worker!r}: expected host:port (127.0.0.1:8801)")
    for name, path in (("--cert", cert), ("--key", key), ("--run-dir", run_dir)):
        if not _PATH.match(str(path)):
            raise ValueError(f"{name} {str(path)!r}: expected an absolute path without spaces, quotes or ; {{ }}")
    servers = "\n".join(f"        server {worker} max_fails=1 fail_timeout=2s;" for worker in workers)
    screen_servers = "\n".join(f"        server {worker} max_fails=0;" for worker in workers)
    filled = (template.replace("@@WORKERS@@", servers).replace("@@SCREEN_WORKERS@@", screen_servers)
              .replace("@@LISTEN@@", listen)
              .replace("@@HTTP_LISTEN@@", http_listen).replace("@@CERT@@", str(cert)).replace("@@KEY@@", str(key))
              .replace("@@RUN_DIR@@", str(run_dir)))
    left = re.findall(r"@@[A-Z_]+@@", filled)
    if left:
        raise ValueError(f"the template has places this tool does not know: {', '.join(sorted(set(left)))}")
    return filled


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     epilog="example: python tools/nginx_conf.py --listen 443 --http-listen 80 "
                                            "--worker 127.0.0.1:8801 --worker 127.0.0.1:8802 --cert /etc/tk/cert.pem "
                                            "--key /etc/tk/key.pem --run-dir /var/lib/timekeeper-nginx")
    parser.add_argument("--listen", default="443", help="the TLS address (port or address:port; default 443)")
    parser.add_argument("--http-listen", default="80", help="plain http, redirected to TLS (default 80)")
    parser.add_argument("--worker", action="append", default=[], metavar="HOST:PORT", help="a worker (repeat)")
    parser.add_argument("--cert", type=Path, required=True, help="the TLS certificate chain (PEM)")
    parser.add_argument("--key", type=Path, required=True, help="its private key (PEM)")
    parser.add_argument("--run-dir", type=Path, required=True, help="nginx's folder: pid, error log, buffers")
    parser.add_argument("--template", type=Path, default=TEMPLATE, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    sys.path.insert(0, str(TEMPLATE.parent.parent))
    from timekeeper.errors import OutputError
    from timekeeper.files.atomicfile import write_atomic

    try:
        text = fill(args.template.read_text(encoding="utf-8"), listen=args.listen, http_listen=args.http_listen,
                    workers=args.worker, cert=args.cert, key=args.key, run_dir=args.run_dir)
        args.run_dir.mkdir(parents=True, exist_ok=True)
        write_atomic(args.run_dir / "nginx.conf", text)
    except (ValueError, OSError, OutputError) as error:
        print(f"nginx_conf: {error}", file=sys.stderr)
        return 2
    print(args.run_dir / "nginx.conf")
    return 0


if __name__ == "__main__":
    sys.exit(main())
