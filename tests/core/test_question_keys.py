"""A question file's top-level keys are listed once (issue 29): QUESTION_KEYS in
grading.core.question_reader, in the order the bank's files write them. The reader refuses any other key, the
export writes them in that order, the authoring editor's sections follow it, and docs/question-format.md's
"Top level" shows and names the same keys."""

import re
from pathlib import Path

import yaml

from grading.core.question_export import spec_to_dict
from grading.core.question_files import load_question
from grading.core.question_reader import QUESTION_KEYS, QUESTION_OPTIONAL_KEYS

ROOT = Path(__file__).resolve().parents[2]
BANK = ROOT / "questions" / "bank" / "core"
DOC = ROOT / "docs" / "question-format.md"


def top_level_section() -> str:
    text = DOC.read_text(encoding="utf-8")
    return text.split("\n## Top level\n", 1)[1].split("\n## ", 1)[0]


def test_a_review_file_with_curveballs_is_written_in_the_bank_files_order():
    path = BANK / "eight-gpu-design-review.yaml"
    in_file = list(yaml.safe_load(path.read_text(encoding="utf-8")))
    exported = list(spec_to_dict(load_question(path)))
    # The file holds every key (review, figures and curveballs too), in this order, written by hand from it.
    assert in_file == [
        "slug", "title", "track", "difficulty", "kind", "summary", "prompt", "plan", "model", "asked",
        "design", "review", "rubric", "outline", "follow_ups", "mistakes", "scenarios", "concepts",
        "related", "figures", "curveballs",
    ]  # fmt: skip
    assert exported == in_file == list(QUESTION_KEYS)


def test_the_format_doc_shows_every_top_level_key_in_order():
    block = top_level_section().split("```yaml\n", 1)[1].split("```", 1)[0]
    shown = re.findall(r"^([a-z_]+):", block, flags=re.MULTILINE)
    assert shown == list(QUESTION_KEYS)


def test_the_format_doc_names_the_required_and_the_optional_keys():
    section = " ".join(top_level_section().split())
    required = re.search(r"Required: (.*?)\. Optional:", section)
    optional = re.search(r"Optional: (.*?)\.", section)
    assert required and optional
    assert re.findall(r"`([a-z_]+)`", required.group(1)) == [
        key for key in QUESTION_KEYS if key not in QUESTION_OPTIONAL_KEYS
    ]
    assert re.findall(r"`([a-z_]+)`", optional.group(1)) == [
        key for key in QUESTION_KEYS if key in QUESTION_OPTIONAL_KEYS
    ]
