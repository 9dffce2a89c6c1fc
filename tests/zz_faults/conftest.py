"""Fault tests: they restart PostgreSQL and stop Redis, so they need both (CI has them) and run last.

The folder is named so pytest collects it after every other test folder, and the hook below, running after
pytest-django has grouped tests by database use, moves these tests to the very end. A Celery worker SIGKILLed
mid-replay is covered in tests/rounds/test_replay_jobs.py
(test_a_worker_killed_mid_run_loses_the_run_to_the_sweep_and_it_finishes_once), not repeated here.
"""

import pytest

from tests.conftest import USES_POSTGRES, USES_REDIS


def is_fault_test(item: pytest.Item) -> bool:
    return "tests/zz_faults/" in str(item.path)


def pytest_itemcollected(item: pytest.Item) -> None:
    if is_fault_test(item):
        item.add_marker(pytest.mark.serial)  # they stop the servers every other test uses (before -m selects)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    items[:] = [item for item in items if not is_fault_test(item)] + [
        item for item in items if is_fault_test(item)
    ]
    needs = []
    if not USES_POSTGRES:
        needs.append("DATABASE_URL=postgres://...")
    if not USES_REDIS:
        needs.append("REDIS_URL=redis://...")
    if not needs:
        return
    skip = pytest.mark.skip(reason=f"fault tests need real services: set {' and '.join(needs)}")
    for item in items:
        if is_fault_test(item):
            item.add_marker(skip)
