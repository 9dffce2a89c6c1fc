"""gunicorn's settings, shared by the container and the benchmarks (`gunicorn -c config/gunicorn.py ...`).

One process per core, each with threads: a request waiting on PostgreSQL or Redis releases the GIL, so threads
keep a core busy without the context switches and memory of more processes, and the autosaves that meet in a
process share one commit (interview/services/group_commit.py). Measured with wrk in bench/autosave.py on two
cores, saves per second as a share of the trivial view's: 2 x 8 at 0.41-0.45, 4 x 4 and 8 x 2 at 0.42, 16 x 1
at 0.43, 2 x 16 at 0.45 (bench/README.md). WEB_WORKERS and WEB_THREADS override the counts.
"""

import multiprocessing
import os

worker_class = "gthread"
workers = int(os.environ.get("WEB_WORKERS", multiprocessing.cpu_count()))
threads = int(os.environ.get("WEB_THREADS", "8"))
# Above the pages' 2 s polling: with gunicorn's default of 2 s an idle connection can close just as the
# browser reuses it (bench/load.py saw "connection reset" on the report poll).
keepalive = 30
