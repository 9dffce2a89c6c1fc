"""A worker process keeps freed memory for its next replay instead of faulting every page in again."""

import subprocess
import sys
import textwrap

import pytest

# In a fresh interpreter: fill a 256 MiB array, free it, fill another; print the page faults the second
# fill took (resource's minor faults). `keep` says whether the process first calls keep_freed_memory().
SECOND_FILL_FAULTS = textwrap.dedent(
    """
    import resource, sys
    import numpy as np
    from config.celery import keep_freed_memory
    if sys.argv[1] == "keep":
        assert keep_freed_memory()
    def faults():
        return resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    first = np.ones(32 << 20)  # 256 MiB of float64, every page written
    del first
    before = faults()
    second = np.ones(32 << 20)
    print(faults() - before)
    """
)
PAGES_OF_256_MIB = (256 << 20) // (2 << 20)  # the fewest faults a fresh 256 MiB can take: 2 MiB huge pages


def second_fill_faults(mode: str) -> int:
    command = [sys.executable, "-c", SECOND_FILL_FAULTS, mode]
    run = subprocess.run(command, capture_output=True, text=True, check=True, timeout=60)
    return int(run.stdout.strip())


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_a_freed_big_array_is_reused_without_faulting_its_pages_again():
    assert second_fill_faults("default") >= PAGES_OF_256_MIB  # glibc unmapped it: every page faults again
    assert second_fill_faults("keep") < PAGES_OF_256_MIB // 4  # kept mapped: a handful at most
