"""Debian's nginx with the project's config in front of a real gunicorn: idle clients stay at nginx.

Without nginx, 32 connections that send nothing hold every thread of gunicorn's 2 x 8 and the next request
waits for seconds (measured by bench/idle_connections.py, figures in bench/README.md)."""

import socket
import statistics
import time

import pytest

from bench.nginx_front import free_port, gunicorn_start, nginx_in_front, production_env, request_seconds
from bench.scratch_site import wait_until_serving

# serial: a latency measured against a baseline, and gunicorn on the suite's Redis keys.
pytestmark = [pytest.mark.nginx, pytest.mark.serial]

IDLE_CONNECTIONS = 32


def still_open(idle: socket.socket) -> bool:
    try:
        return idle.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) != b""
    except BlockingIOError:
        return True  # nothing to read and not closed


@pytest.fixture
def nginx_port(tmp_path):
    upstream, port = free_port(), free_port()
    server = gunicorn_start(port=upstream, env=production_env(), log=tmp_path / "gunicorn.log")
    try:
        wait_until_serving(upstream)
        with nginx_in_front(port=port, upstream_ports=[upstream]):
            wait_until_serving(port)
            yield port
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_32_idle_connections_leave_a_request_through_nginx_as_fast_as_without_them(nginx_port):
    before = [request_seconds(nginx_port) for _ in range(20)]
    idle = [socket.create_connection(("127.0.0.1", nginx_port)) for _ in range(IDLE_CONNECTIONS)]
    try:
        time.sleep(0.5)  # nginx has accepted them all
        during = [request_seconds(nginx_port) for _ in range(20)]
        assert all(still_open(connection) for connection in idle)
    finally:
        for connection in idle:
            connection.close()
    # Without nginx the same request waits seconds; through it, it stays within noise of the idle-free run.
    assert statistics.median(during) <= 3 * statistics.median(before) + 0.02, (before, during)
    assert max(during) < 1.0, during
