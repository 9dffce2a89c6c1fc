"""gunicorn's settings, shared by the container and the benchmarks (`gunicorn -c config/gunicorn.py ...`).

One process per core, each with threads: a request waiting on PostgreSQL or Redis releases the GIL, so threads
keep a core busy without the context switches and memory of more processes. bench/autosave.py measures the
save rate this layout sustains (bench/README.md). WEB_WORKERS and WEB_THREADS override the counts.
"""

import multiprocessing
import os

# The container listens on $PORT (8000); the benchmarks and tests pass their own --bind.
bind = [f"0.0.0.0:{os.environ.get('PORT', '8000')}"]
worker_class = "gthread"
workers = int(os.environ.get("WEB_WORKERS", multiprocessing.cpu_count()))
threads = int(os.environ.get("WEB_THREADS", "8"))
# Above the pages' 2 s polling: with gunicorn's default of 2 s an idle connection can close just as the
# browser reuses it (bench/load.py saw "connection reset" on the report poll).
keepalive = 30
