"""Idle connections against gunicorn alone and behind nginx (docker/nginx/sevenbox.conf.template).

    .venv/bin/python bench/idle_connections.py [--requests 5]

Starts one gunicorn as config/gunicorn.py (2 x 8 threads on two cores) and Debian's nginx in front of it,
opens 0, 16 and 32 TCP connections that send nothing, and times real requests one after another (GET /ping,
each on a fresh connection) while they stay open, straight to gunicorn and through nginx. Each row has fresh
processes (gunicorn drops some idle connections after a while, which would flatter a later row). Prints the
median and the worst of each row. Figures go in bench/README.md.
"""

import argparse
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from nginx_front import free_port, gunicorn_start, nginx_in_front, production_env, request_seconds  # noqa: E402
from scratch_site import wait_until_serving  # noqa: E402


def timed_with_idle(*, through_nginx: bool, idle_count: int, requests: int) -> list[float]:
    upstream, front = free_port(), free_port()
    log = Path(tempfile.mkdtemp(prefix="sevenbox-idle-")) / "gunicorn.log"
    server = gunicorn_start(port=upstream, env=production_env(), log=log)
    try:
        wait_until_serving(upstream)
        with nginx_in_front(port=front, upstream_ports=[upstream]):
            port = front if through_nginx else upstream
            wait_until_serving(port)
            idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(idle_count)]
            try:
                time.sleep(0.5)
                return [request_seconds(port) for _ in range(requests)]
            finally:
                for connection in idle:
                    connection.close()
    finally:
        server.terminate()
        server.wait(timeout=30)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=8)
    args = parser.parse_args()
    print(f"{'path':16} {'idle':>5} {'median ms':>10} {'worst ms':>10}")
    for label, through_nginx in (("gunicorn alone", False), ("through nginx", True)):
        for idle_count in (0, 16, 32):
            times = timed_with_idle(
                through_nginx=through_nginx, idle_count=idle_count, requests=args.requests
            )
            print(
                f"{label:16} {idle_count:5} {1000 * statistics.median(times):10.1f} {1000 * max(times):10.1f}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
