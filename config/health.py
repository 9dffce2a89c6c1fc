"""/healthz: up or down, as JSON; staff also see the state of the database, the broker and a worker.

Up means this web process can serve: its database and broker answer. The worker is reported (to staff) but
never decides: a busy worker must not mark the web container unhealthy (the image's HEALTHCHECK reads this).
"""

from typing import Any

from django.conf import settings
from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.cache import never_cache

from config.celery import app as celery_app
from config.celery import ensure_embedded_broker_folders

WORKER_PING_TIMEOUT_S = 2.0


def database_state() -> dict[str, Any]:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return {"ok": True, "vendor": connection.vendor}
    except Exception as error:  # noqa: BLE001 - any failure means the database is down
        return {"ok": False, "vendor": connection.vendor, "error": type(error).__name__}


def broker_state() -> dict[str, Any]:
    try:
        ensure_embedded_broker_folders()
        with celery_app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
        return {"ok": True, "kind": settings.BROKER_NAME}
    except Exception as error:  # noqa: BLE001
        return {"ok": False, "kind": settings.BROKER_NAME, "error": type(error).__name__}


def worker_state() -> dict[str, Any]:
    """Send a ping task and wait briefly: proves a worker consumes the broker and writes results."""
    try:
        result = celery_app.send_task("sevenbox.ping", expires=WORKER_PING_TIMEOUT_S * 2)
        answer = result.get(timeout=WORKER_PING_TIMEOUT_S)
        result.forget()
        return {"ok": answer == "pong"}
    except Exception as error:  # noqa: BLE001
        return {"ok": False, "error": type(error).__name__}


@never_cache
def ping(request: HttpRequest) -> HttpResponse:
    """Liveness only: the process answers. Load balancers and the autosave benchmark's baseline use it."""
    return HttpResponse("ok", content_type="text/plain")


@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    parts = {"database": database_state(), "broker": broker_state()}
    down = [name for name, state in parts.items() if not state["ok"]]
    status = 200 if not down else 503
    if not request.user.is_staff:
        return JsonResponse({"status": "ok" if not down else "down"}, status=status)
    worker = worker_state() if parts["broker"]["ok"] else {"ok": False, "error": "broker down"}
    body = {"status": "ok" if not down else "down", "down": down, **parts, "worker": worker}
    return JsonResponse(body, status=status)
