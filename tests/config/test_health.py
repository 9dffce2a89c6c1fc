import pytest
from celery import Celery
from django.db import connections
from django.db.utils import ConnectionHandler

from config import health
from tests.conftest import USES_REDIS


def unreachable_database():
    """A real connection wrapper whose server cannot be reached."""
    settings_dict = dict(connections["default"].settings_dict)
    if settings_dict["ENGINE"].endswith("sqlite3"):
        settings_dict["NAME"] = "/nonexistent-folder/db.sqlite3"
    else:
        settings_dict["PORT"] = "1"
        settings_dict["OPTIONS"] = {**settings_dict.get("OPTIONS", {}), "connect_timeout": 2}
    return ConnectionHandler({"default": settings_dict})["default"]


@pytest.mark.django_db
def test_health_names_the_worker_when_no_worker_runs(client):
    response = client.get("/healthz")
    body = response.json()
    assert response.status_code == 503
    assert body["database"]["ok"] and body["broker"]["ok"]
    assert body["down"] == ["worker"]


@pytest.mark.django_db
def test_health_reports_a_database_that_is_down(client, monkeypatch):
    monkeypatch.setattr(health, "connection", unreachable_database())
    monkeypatch.setattr(health, "worker_state", lambda: {"ok": True})
    response = client.get("/healthz")
    assert response.status_code == 503
    assert "database" in response.json()["down"]


@pytest.mark.django_db
def test_health_reports_a_broker_that_is_down(client, monkeypatch):
    dead_broker = Celery(
        "dead", broker="redis://127.0.0.1:1/0", backend="redis://127.0.0.1:1/0", set_as_current=False
    )
    dead_broker.conf.broker_connection_timeout = 1
    monkeypatch.setattr(health, "celery_app", dead_broker)
    response = client.get("/healthz")
    body = response.json()
    assert response.status_code == 503
    assert set(body["down"]) == {"broker", "worker"}
    assert body["worker"]["error"] == "broker down"


@pytest.mark.celery_worker
def test_health_is_200_when_database_broker_and_worker_are_up(client, celery_worker):
    response = client.get("/healthz")
    body = response.json()
    assert response.status_code == 200, body
    assert body["status"] == "ok"
    assert body["broker"]["kind"] == ("redis" if USES_REDIS else "embedded")


@pytest.mark.django_db
def test_an_unknown_api_address_answers_json_and_a_page_answers_html(client):
    api = client.get("/api/no-such-thing/")
    assert api.status_code == 404 and api.json() == {"detail": "Not found."}
    page = client.get("/no-such-page/")
    assert page.status_code == 404 and page["Content-Type"].startswith("text/html")
