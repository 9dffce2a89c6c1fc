"""`make run`: start the web server and a Celery worker together; Ctrl-C, SIGTERM or SIGHUP stops both."""

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time

PYTHON = sys.executable


def start(command: list[str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(command, start_new_session=True)


def stop(processes: list[subprocess.Popen[bytes]]) -> None:
    for process in processes:
        if process.poll() is None:
            process.terminate()  # the main process only: Celery then shuts its own pool down warmly
    deadline = time.monotonic() + 10
    for process in processes:
        try:
            process.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)


def wait_for_port(host: str, port: int, *, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection((host, port), timeout=1):
            return True
        time.sleep(0.3)
    return False


def worker_command() -> list[str]:
    """The one worker `make run` starts (bench/replay_submit.py times a submission's replays on it)."""
    return [
        PYTHON,
        "-m",
        "celery",
        "-A",
        "config",
        "worker",
        "-Q",
        "celery,upkeep",  # both queues in one worker here; compose gives upkeep a worker of its own
        "--loglevel",
        "INFO",
        "--concurrency",
        "2",
        "--beat",
        "--schedule",
        "var/celerybeat-schedule",
    ]


def main() -> int:
    # The children run in their own sessions, so only this process hears a signal: each stops both.
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.default_int_handler)
    host = os.environ.get("HOST", "127.0.0.1")
    port = os.environ.get("PORT", "8000")
    web = start([PYTHON, "manage.py", "runserver", "--noreload", f"{host}:{port}"])
    worker = start(worker_command())
    processes = [web, worker]
    url = f"http://{host}:{port}/"
    try:
        if wait_for_port(host, int(port), timeout_s=60):
            print(f"\nSevenbox is running at {url}  (health: {url}healthz)", flush=True)
            print("Ctrl-C stops the web server and the worker.\n", flush=True)
        while all(process.poll() is None for process in processes):
            time.sleep(0.5)
        failed = [
            name for name, process in (("runserver", web), ("celery", worker)) if process.poll() is not None
        ]
        print(f"Stopped: a process exited ({failed}).", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\nStopping the web server and the worker...")
        return 0
    finally:
        stop(processes)


if __name__ == "__main__":
    sys.exit(main())
