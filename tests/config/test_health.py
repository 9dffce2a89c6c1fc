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
def test_an_anonymous_caller_learns_only_up_and_it_is_up_with_no_worker_running(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


@pytest.mark.django_db
def test_staff_see_each_part_and_a_missing_worker_is_reported_without_making_it_down(client, admin_user):
    client.force_login(admin_user)
    response = client.get("/healthz")
    body = response.json()
    assert response.status_code == 200
    assert body["database"]["ok"] and body["broker"]["ok"] and body["down"] == []
    assert body["worker"]["ok"] is False


@pytest.mark.django_db
def test_health_reports_a_database_that_is_down(client, admin_user, monkeypatch):
    client.force_login(admin_user)  # the session is read before the database is cut
    monkeypatch.setattr(health, "connection", unreachable_database())
    monkeypatch.setattr(health, "worker_state", lambda: {"ok": True})
    response = client.get("/healthz")
    assert response.status_code == 503
    assert "database" in response.json()["down"]
    client.logout()
    anonymous = client.get("/healthz")
    assert anonymous.status_code == 503 and anonymous.json() == {"status": "down"}


@pytest.mark.django_db
def test_health_reports_a_broker_that_is_down(client, admin_user, monkeypatch):
    dead_broker = Celery(
        "dead", broker="redis://127.0.0.1:1/0", backend="redis://127.0.0.1:1/0", set_as_current=False
    )
    dead_broker.conf.broker_connection_timeout = 1
    monkeypatch.setattr(health, "celery_app", dead_broker)
    client.force_login(admin_user)
    response = client.get("/healthz")
    body = response.json()
    assert response.status_code == 503
    assert body["down"] == ["broker"]
    assert body["worker"]["error"] == "broker down"


@pytest.mark.celery_worker
def test_staff_see_a_running_worker(client, admin_user, celery_worker):
    client.force_login(admin_user)
    response = client.get("/healthz")
    body = response.json()
    assert response.status_code == 200, body
    assert body["status"] == "ok" and body["worker"]["ok"] is True
    assert body["broker"]["kind"] == ("redis" if USES_REDIS else "embedded")


@pytest.mark.django_db
def test_an_unknown_api_address_answers_json_and_a_page_answers_html(client):
    api = client.get("/api/no-such-thing/")
    assert api.status_code == 404
    assert api.json() == {"detail": "Not found.", "code": "not_found", "errors": {}}
    page = client.get("/no-such-page/")
    assert page.status_code == 404 and page["Content-Type"].startswith("text/html")
