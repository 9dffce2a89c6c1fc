"""The Celery app: Redis as broker when REDIS_URL is set, else the embedded filesystem broker."""

import ctypes
import os
from collections.abc import MutableMapping, Sequence
from pathlib import Path
from typing import Any

from celery import Celery
from celery.signals import worker_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("sevenbox")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def send_by_name(name: str, args: Sequence[Any], **options: Any) -> None:
    """Queue the task registered as `name` without importing it, so a service need not import the tasks that
    call services (no import cycle). Eager mode (tests without Redis) runs the registered task in place,
    which send_task alone would not."""
    if app.conf.task_always_eager:
        app.loader.import_default_modules()  # autodiscovery imports the apps' tasks only when a worker starts
        app.tasks[name].apply_async(args=tuple(args))
        return
    app.send_task(name, args=args, **options)


def tasks_run_in_place() -> bool:
    """Whether tasks run in the caller's process (eager: tests without a broker) instead of on a worker."""
    return bool(app.conf.task_always_eager)


def ensure_embedded_broker_folders() -> None:
    """The filesystem transport needs its folders to exist before a producer or a worker starts."""
    from django.conf import settings

    if settings.BROKER_NAME != "embedded":
        return
    for key in ("data_folder_in", "data_folder_out", "processed_folder", "control_folder"):
        Path(settings.CELERY_BROKER_TRANSPORT_OPTIONS[key]).mkdir(parents=True, exist_ok=True)
    Path(settings.CELERY_RESULT_BACKEND.removeprefix("file://")).mkdir(parents=True, exist_ok=True)


def share_cpus_between_processes(concurrency: object, environ: MutableMapping[str, str] = os.environ) -> None:
    """Unless SEVENBOX_SIM_THREADS is set, a replay's seeds run in the worker's share of the CPUs: with the
    CPU count in each of its processes, two processes on two cores would run four seeds' threads at once."""
    from grading.core.sim.seeds import THREADS_ENV, usable_cpus, worker_seed_threads  # ~0.4 s: workers only

    processes = concurrency if isinstance(concurrency, int) else usable_cpus()  # "auto" or unset: one a CPU
    environ.setdefault(THREADS_ENV, str(worker_seed_threads(usable_cpus(), processes)))


# glibc's mallopt parameters (malloc.h) and how much freed memory a worker process keeps for its next run
M_TRIM_THRESHOLD, M_MMAP_MAX = -1, -4
KEEP_FREED_BYTES = 1 << 30


def keep_freed_memory(keep_bytes: int = KEEP_FREED_BYTES) -> bool:
    """A replay allocates its rows afresh every run (~0.5 GB for the heaviest question's 1.7M requests), and
    glibc hands each big array back to the kernel when it is freed, so the next run's first touch of every
    page faulted and zeroed it again: ~0.15 s of a 1.3 s run (bench/README.md). Big arrays now come from the
    heap (no mmap of their own), and up to `keep_bytes` of freed heap stays mapped for the next run: the
    process's peak grows by ~0.1 GB, its page faults in a steady run go to none. glibc only (Linux): returns
    whether it took both settings; on another C library it changes nothing."""
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # no C library loaded by name, or not glibc
        return False
    return bool(mallopt(M_TRIM_THRESHOLD, keep_bytes)) and bool(mallopt(M_MMAP_MAX, 0))


@worker_init.connect
def _on_worker_init(sender: Any, **_: Any) -> None:
    # before the pool forks its processes, which inherit both
    share_cpus_between_processes(getattr(sender, "concurrency", None))
    keep_freed_memory()


@app.task(name="sevenbox.ping")
def ping() -> str:
    """Answers 'pong': the health check sends it to prove a worker is consuming the broker."""
    return "pong"
