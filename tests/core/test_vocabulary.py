"""docs/question-format.md lists exactly the words the question reader accepts."""

import re
from pathlib import Path

import pytest

from grading.core import vocabulary

DOC = (Path(__file__).resolve().parents[2] / "docs" / "question-format.md").read_text(encoding="utf-8")


def _choices_in_comment(key: str) -> list[str]:
    """The `a | b | c` list in the comment after `key:` in the format's example, without `(default)` notes."""
    match = re.search(rf"^\s*-?\s*{key}: \S+\s+# ([^\n]+)$", DOC, re.M)
    assert match, f"no example line for {key} in docs/question-format.md"
    return [re.sub(r"\s*\(.*", "", word).strip() for word in match.group(1).split("|")]


@pytest.mark.parametrize(
    ("key", "words"),
    [
        ("track", vocabulary.TRACKS),
        ("difficulty", vocabulary.DIFFICULTIES),
        ("kind", vocabulary.KINDS),
        ("check", vocabulary.CHECKS),
        ("dimension", vocabulary.RUBRIC_DIMENSIONS),
        ("family", vocabulary.SCENARIO_FAMILIES),
        ("fix_category", vocabulary.FIX_CATEGORIES),
    ],
)
def test_the_format_doc_lists_the_words_the_reader_accepts(key, words):
    assert _choices_in_comment(key) == list(words)


def test_the_format_doc_lists_every_concept_the_reader_accepts():
    section = DOC.split("## Concepts", 1)[1].split("\n## ", 1)[0]
    assert re.findall(r"`([a-z0-9-]+)`", section) == list(vocabulary.CONCEPTS)
