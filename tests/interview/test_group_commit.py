"""Group commit (interview/services/group_commit.py): requests arriving during a write share the next one,
each gets its own outcome, a failure reaches exactly the requests that shared the failed write."""

import threading

import pytest

from interview.services.group_commit import GroupCommit
from tests.waiting import wait_for


class Recorder:
    """A write that records its batches, returns each item doubled, and can be held open."""

    def __init__(self) -> None:
        self.batches: list[list[int]] = []
        self.release = threading.Event()
        self.release.set()
        self.fail_on: set[int] = set()
        self.running = 0
        self.overlapped = False

    def __call__(self, items):
        self.running += 1
        self.overlapped |= self.running > 1
        try:
            self.batches.append(list(items))
            self.release.wait(timeout=10)
            if self.fail_on & set(items):
                raise RuntimeError(f"write of {sorted(items)} failed")
            return [item * 2 for item in items]
        finally:
            self.running -= 1


def submit_in_thread(group: GroupCommit, item: int, answers: dict) -> threading.Thread:
    def run() -> None:
        try:
            answers[item] = group.submit(item)
        except RuntimeError as error:
            answers[item] = error

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def test_a_lone_request_writes_at_once_and_alone():
    write = Recorder()
    assert GroupCommit(write).submit(21) == 42
    assert write.batches == [[21]]


def test_requests_arriving_during_a_write_share_the_next_one_in_arrival_order():
    write = Recorder()
    group = GroupCommit(write)
    answers: dict = {}
    write.release.clear()
    first = submit_in_thread(group, 1, answers)
    wait_for(lambda: write.batches == [[1]], timeout_s=5, interval_s=0.001)
    later = []
    for queued, item in enumerate((2, 3, 4), start=1):
        later.append(submit_in_thread(group, item, answers))
        wait_for(lambda queued=queued: len(group._queue) == queued, timeout_s=5, interval_s=0.001)
    write.release.set()
    for thread in (first, *later):
        thread.join(timeout=10)
    assert write.batches == [[1], [2, 3, 4]]
    assert answers == {1: 2, 2: 4, 3: 6, 4: 8}


def test_a_failed_write_fails_the_requests_that_shared_it_and_no_others():
    write = Recorder()
    write.fail_on = {3}
    group = GroupCommit(write)
    answers: dict = {}
    write.release.clear()
    first = submit_in_thread(group, 1, answers)
    wait_for(lambda: write.batches == [[1]], timeout_s=5, interval_s=0.001)
    sharing = [submit_in_thread(group, item, answers) for item in (2, 3)]
    wait_for(lambda: len(group._queue) == 2, timeout_s=5, interval_s=0.001)
    write.release.set()
    for thread in (first, *sharing):
        thread.join(timeout=10)
    assert answers[1] == 2
    assert all(isinstance(answers[item], RuntimeError) for item in (2, 3))
    assert group.submit(5) == 10  # the next write runs as usual


@pytest.mark.parametrize("threads", [2, 8])
def test_under_contention_every_request_gets_its_own_answer_and_writes_never_overlap(threads):
    write = Recorder()
    group = GroupCommit(write)
    answers: dict = {}
    per_thread = 200

    def run(offset: int) -> None:
        for item in range(offset, offset + per_thread):
            answers[item] = group.submit(item)

    workers = [threading.Thread(target=run, args=(i * per_thread,)) for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=30)
    assert answers == {item: item * 2 for item in range(threads * per_thread)}
    assert sorted(item for batch in write.batches for item in batch) == list(range(threads * per_thread))
    assert not write.overlapped
