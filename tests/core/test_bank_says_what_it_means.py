"""The bank says what it means (issue 30): the files its texts name exist, and the no-limit, queueing and
range rules hold over the whole bank."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BANK_FOLDER = ROOT / "questions" / "bank"
_PATH = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*(?:/[A-Za-z0-9_.-]+)+\.(?:yaml|py|md|json)")


def test_every_file_a_bank_text_names_exists():
    # Three questions and the workloads file named interview/bank/workloads.yaml after the bank moved to
    # questions/bank/: a source a reader follows must lead somewhere.
    named = {
        (path.relative_to(ROOT).as_posix(), match)
        for path in sorted(BANK_FOLDER.rglob("*.yaml"))
        for match in _PATH.findall(path.read_text(encoding="utf-8"))
    }
    assert named, "the bank names no files at all: the pattern is wrong"
    missing = sorted((where, name) for where, name in named if not (ROOT / name).exists())
    assert not missing, missing
