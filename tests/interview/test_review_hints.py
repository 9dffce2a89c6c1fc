"""A review round's placeholders and hints name none of its planted fixes."""

import re

import pytest

from questions.services.question_bank import CORE_PACK
from rounds.services.rounds import round_start
from tests.interview.bank_fixtures import load_questions

pytestmark = pytest.mark.django_db
REVIEW_QUESTIONS = sorted(
    path.stem for path in CORE_PACK.glob("*.yaml") if re.search(r"^kind: review$", path.read_text(), re.M)
)
STOP = {"and", "the", "for", "its", "what", "can", "with", "from", "that", "this", "each", "your"}


def content_words(text: str) -> set[str]:
    return {
        word.rstrip("s") for word in re.findall(r"[a-z]+", text.lower()) if word not in STOP and len(word) > 2
    }


def hints(page: str) -> list[str]:
    found = re.findall(r'placeholder="([^"]*)"', page)
    hint_class = r'class="[^"]*\b(?:hint|helptext|ws-hint)\b[^"]*"[^>]*>([^<]*)<'
    found += re.findall(hint_class, page)
    return [text for text in found if text.strip()]


@pytest.mark.parametrize("slug", REVIEW_QUESTIONS)
def test_no_placeholder_or_hint_of_a_review_round_names_a_planted_fix(client, alice, tmp_path, slug):
    question = load_questions(tmp_path, slug)[slug]
    round_ = round_start(candidate=alice, question=question, mode="practice")
    client.force_login(alice)
    page = client.get(f"/rounds/{round_.pk}/").content.decode()
    flaws = question.current_version.spec["review"]["flaws"]
    assert 'id="fix-new-text"' in page and hints(page)
    for hint in hints(page):
        for flaw in flaws:
            shared = content_words(hint) & content_words(flaw["description"] + " " + flaw["kind"])
            assert len(shared) < 2, (hint, flaw["id"], shared)
