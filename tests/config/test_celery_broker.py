import pytest
from django.conf import settings

from config.celery import app as celery_app
from tests.conftest import USES_REDIS


@pytest.mark.celery_worker
def test_a_task_goes_through_the_broker_to_a_real_worker_and_back(celery_worker):
    assert settings.CELERY_BROKER_URL.startswith("redis://" if USES_REDIS else "filesystem://")
    result = celery_app.send_task("sevenbox.ping")
    assert result.get(timeout=20) == "pong"
    assert result.successful()
