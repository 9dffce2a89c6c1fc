"""`make run`'s launcher (config/devrun.py): a signal to it stops the web server and the worker too."""

import contextlib
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from config.devrun import wait_for_port
from tests.waiting import wait_for

REPO = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def children_of(pid: int) -> list[int]:
    found = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    return [int(child) for child in found.split()]


def both_children(pid: int) -> list[int] | None:
    children = children_of(pid)
    return children if len(children) == 2 else None


def alive(pid: int) -> bool:
    """Running, or stopped but not yet reaped by anyone (a zombie counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(errors="replace")
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.serial  # both signals' launchers would share Redis database 12
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_to_the_launcher_stops_the_web_server_and_the_worker(signum, tmp_path):
    port = free_port()
    # A database of its own, and a Redis database of its own so its worker takes no task from the suite's.
    env = {
        **os.environ,
        "PORT": str(port),
        "DEBUG": "1",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'devrun.sqlite3'}",
        "REDIS_URL": "redis://127.0.0.1:6379/12",
    }
    launcher = subprocess.Popen(
        [sys.executable, "-m", "config.devrun"],
        cwd=REPO,
        env=env,
        stdout=(tmp_path / "out.log").open("w"),
        stderr=subprocess.STDOUT,
    )
    children: list[int] = []
    try:
        children = wait_for(lambda: both_children(launcher.pid), timeout_s=10, what="both processes")
        assert wait_for_port("127.0.0.1", port, timeout_s=60), "the web server did not start"
        launcher.send_signal(signum)
        assert launcher.wait(timeout=20) == 0
        assert not wait_for_port("127.0.0.1", port, timeout_s=0.5)
        wait_for(
            lambda: not any(alive(child) for child in children), timeout_s=5, what="the children to exit"
        )
    finally:
        if launcher.poll() is None:
            launcher.kill()
        for child in children:  # each leads its own process group
            with contextlib.suppress(ProcessLookupError):
                os.killpg(child, signal.SIGKILL)
    assert "Stopping the web server and the worker" in (tmp_path / "out.log").read_text()
