"""The README's commands work as printed: every `make` verb it names exists, every command line in its shell
blocks runs as printed on a scratch database after a migrate (as `make run` leaves it), except the one that
rewrites a tracked file, which answers `--help` instead."""

import json
import os
import re
import shlex
import subprocess
from pathlib import Path

from grading.core.submission import read_submission

REPO = Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text(encoding="utf-8")
TOOLS = (".venv/bin/python manage.py", ".venv/bin/python -m")
# Runs only with --help here: it rewrites docs/seed-figures.md (its --check line runs instead).
NOT_RUN = {".venv/bin/python -m grading.core.figures_doc"}


def fenced_blocks(language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", README, re.S | re.M)


def tool_lines() -> list[str]:
    """The command lines of the shell blocks that run our own tools, comments dropped."""
    lines = []
    for block in fenced_blocks("sh"):
        for line in block.splitlines():
            command = line.split("  #", 1)[0].strip()
            if any(tool in command for tool in TOOLS):
                lines.append(command)
    return lines


def scratch_env(tmp_path: Path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in ("REDIS_URL", "DEBUG", "SECRET_KEY")}
    env["DATABASE_URL"] = f"sqlite:///{tmp_path / 'readme.sqlite3'}"
    return env


def run(command: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", "-c", command], cwd=REPO, env=env, capture_output=True, text=True, timeout=300
    )


def help_command(line: str) -> str:
    """The line cut after its tool's name (manage.py NAME, -m MODULE), with --help."""
    words = shlex.split(line)
    tool = words.index("manage.py") if "manage.py" in words else words.index("-m")
    return shlex.join([*words[: tool + 2], "--help"])


def test_the_readme_prints_the_tools_it_promises():
    lines = tool_lines()
    names = {
        shlex.split(line)[shlex.split(line).index("manage.py") + 1] for line in lines if "manage.py" in line
    }
    assert {"load_questions", "model", "grade", "replay", "export_pack", "import_pack"} <= names
    assert any("figures_doc" in line for line in lines)


def test_every_make_verb_in_the_readme_exists():
    verbs = set(re.findall(r"\bmake ([a-z][a-z-]*)", README))
    assert {"run", "test", "lint", "lock"} <= verbs
    for verb in sorted(verbs):
        dry_run = subprocess.run(["make", "-n", verb], cwd=REPO, capture_output=True, text=True)
        assert dry_run.returncode == 0, (verb, dry_run.stderr)


def test_the_readme_commands_not_run_here_answer_help(tmp_path):
    """The others run as printed below, which says more than --help (each is a Django start-up, ~1.5 s)."""
    env = scratch_env(tmp_path)
    not_run = [line for line in tool_lines() if line in NOT_RUN]
    assert not_run
    for command in sorted({help_command(line) for line in not_run}):
        answer = run(command, env)
        assert answer.returncode == 0 and "usage:" in answer.stdout, (command, answer.stderr[-2000:])


def test_every_readme_command_runs_as_printed_after_a_migrate(tmp_path):
    env = scratch_env(tmp_path)
    migrate = run("DEBUG=1 .venv/bin/python manage.py migrate --noinput -v 0", env)
    assert migrate.returncode == 0, migrate.stderr[-2000:]
    for line in tool_lines():
        if line in NOT_RUN:
            continue
        answer = run(line, env)
        assert answer.returncode == 0, (line, answer.stderr[-2000:])
        if "--json" in shlex.split(line):
            json.loads(answer.stdout)


def test_the_submission_shown_in_the_readme_is_one_the_grader_reads():
    (shown,) = [block for block in fenced_blocks("json") if '"numbers"' in block]
    submission = read_submission(json.loads(shown))
    assert dict(submission.numbers)["kv_conv"] == "9.8 GB"
    assert [box.id for box in submission.boxes] == ["gw"] and len(submission.events) == 1
