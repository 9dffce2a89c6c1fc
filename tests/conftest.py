"""Shared fixtures: named users (alice owns, bob is invited, charlie has no access) and the task mode."""

import os

import pytest
from hypothesis import settings as hypothesis_settings

from config.celery import app as celery_app
from config.celery import ensure_embedded_broker_folders

USES_REDIS = bool(os.environ.get("REDIS_URL"))
USES_POSTGRES = os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://"))
# Under `pytest -n N` (pytest-xdist; `make test` runs so) each worker process is named gw0, gw1, ...: it has a
# test database of its own (pytest-django adds the name to it) and keys of its own in the Redis database.
XDIST_WORKER = os.environ.get("PYTEST_XDIST_WORKER")
TEST_PASSWORD = "correct-horse-battery-staple"
NAMED_USERS = ("alice", "bob", "charlie", "ada", "root")

# CI (.ci/run exports CI=true) runs every property test on a fixed draw of examples, so the run that
# decides a landing is repeatable; elsewhere the draws are random and go on finding new cases (a case
# found that way is kept as an @example).
hypothesis_settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    hypothesis_settings.load_profile("ci")


def pytest_configure(config: pytest.Config) -> None:
    # Without REDIS_URL tasks run in-process; with it, tests marked celery_worker use a real worker.
    celery_app.conf.task_always_eager = not USES_REDIS
    celery_app.conf.task_eager_propagates = True
    if USES_REDIS and XDIST_WORKER and config.pluginmanager.has_plugin("django"):
        keys_of_this_worker(f"sevenbox-tests-{XDIST_WORKER}:")


def keys_of_this_worker(prefix: str) -> None:
    """Every key this process writes in Redis starts with `prefix`: the broker's queues and its broadcasts
    (kombu's global_keyprefix), the task results and the cache (failed log-ins, rate limits), so a test's
    worker takes no task of another process's tests, answers none of its pings, and counts none of its
    log-ins. Set before the first connection, as the cache's and the broker's are made on first use."""
    from django.conf import settings

    for name in ("broker_transport_options", "result_backend_transport_options"):
        celery_app.conf[name] = {**(celery_app.conf[name] or {}), "global_keyprefix": prefix}
    settings.CACHES["default"]["KEY_PREFIX"] = prefix


def pytest_runtest_setup(item: pytest.Item) -> None:
    if XDIST_WORKER and item.get_closest_marker("serial"):
        pytest.fail(
            "a test marked serial shares the machine's services or Redis keys with every process: run it "
            "without -n (make test-rest runs `-m serial` alone, after the others)",
            pytrace=False,
        )


@pytest.fixture(autouse=True)
def fast_password_hashing(request: pytest.FixtureRequest) -> None:
    # Argon2 is the production hasher (tested on its own); tests log in hundreds of times.
    if not request.config.pluginmanager.has_plugin("django"):
        return  # the pure grading core's tests also run with -p no:django
    request.getfixturevalue("settings").PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def counts_forgotten(request: pytest.FixtureRequest):
    """Failed log-ins and rate-limited requests from the test client's address (127.0.0.1) are counted in the
    cache, which outlives a test: forget them after each test so that tests elsewhere are not refused because
    of this one (the in-process cache is cleared; Redis, also the broker, loses only these keys)."""
    yield
    if not request.config.pluginmanager.has_plugin("django"):
        return
    from django.core.cache import cache

    from interview.services.login_lockout import login_lockout_lift
    from interview.services.rate_limits import rate_limits_lift

    if not USES_REDIS:
        cache.clear()  # locmem; SQLite reuses user ids between tests, so per-user counts would carry over
        return
    for username in NAMED_USERS:
        login_lockout_lift(username=username, address="127.0.0.1")
        rate_limits_lift(subject=f"{username}@example.com")
    rate_limits_lift(subject="127.0.0.1")


@pytest.fixture(autouse=True)
def two_seeds_per_replay(request: pytest.FixtureRequest) -> None:
    # The product replays each scenario over REPLAY_SEEDS (5) seeds; two keep the suite lean and still show
    # the report's "in n of N runs". A test about the default sets it back.
    if request.config.pluginmanager.has_plugin("django"):
        request.getfixturevalue("settings").REPLAY_SEEDS = 2


@pytest.fixture
def make_user(db):
    from interview.roles import Role
    from interview.services.accounts import user_grant_role, user_sign_up

    def make(username: str, *roles: Role):
        user = user_sign_up(username=username, email=f"{username}@example.com", password=TEST_PASSWORD)
        for role in roles:
            user_grant_role(user=user, role=role)
        return user

    return make


@pytest.fixture
def alice(make_user):
    return make_user("alice")


@pytest.fixture
def bob(make_user):
    from interview.roles import Role

    return make_user("bob", Role.INTERVIEWER)


@pytest.fixture
def charlie(make_user):
    return make_user("charlie")


@pytest.fixture
def author(make_user):
    from interview.roles import Role

    return make_user("ada", Role.AUTHOR)


@pytest.fixture
def admin_user(make_user):
    from interview.roles import Role

    return make_user("root", Role.ADMIN)


@pytest.fixture
def celery_worker(transactional_db):
    """A real Celery worker thread consuming the configured broker (Redis in CI), for one test."""
    from celery.contrib.testing.worker import start_worker

    ensure_embedded_broker_folders()
    celery_app.conf.task_always_eager = False
    try:
        with start_worker(
            celery_app,
            pool="threads",
            concurrency=2,
            perform_ping_check=False,
            shutdown_timeout=20,
            queues=["celery", "upkeep"],
        ) as worker:
            yield worker
    finally:
        celery_app.conf.task_always_eager = not USES_REDIS


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Under CI=true a skipped test fails the run: CI has every service a test needs."""
    if os.environ.get("CI") != "true" or exitstatus != 0:
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = reporter.stats.get("skipped", []) if reporter else []
    if skipped:
        names = ", ".join(report.nodeid for report in skipped[:10])
        print(f"\nCI=true: {len(skipped)} skipped test(s) fail the run: {names}")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
