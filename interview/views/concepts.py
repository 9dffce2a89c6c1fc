"""Concept pages: short explanations in our own words, each linked to the questions that use it."""

from functools import cache
from pathlib import Path

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from grading.core.vocabulary import CONCEPT_TITLES
from interview.markdown import markdown_render
from questions.models import Question

CONCEPTS_DIR = Path(__file__).resolve().parent.parent / "concepts"


@cache
def concept_html(slug: str) -> str:
    """The concept's Markdown file through the safe pipeline, rendered once per process."""
    path = CONCEPTS_DIR / f"{slug}.md"
    return markdown_render(path.read_text(encoding="utf-8")) if path.exists() else ""


def concept_questions() -> dict[str, list[Question]]:
    """Concept slug -> published questions whose current version lists it (a small bank: read the JSON)."""
    by_concept: dict[str, list[Question]] = {}
    for question in Question.objects.published().order_by("track", "position"):
        for slug in question.current_version.spec.get("concepts", []):
            by_concept.setdefault(slug, []).append(question)
    return by_concept


def _get_concept(slug: str) -> str:
    if slug not in CONCEPT_TITLES:
        raise Http404
    return CONCEPT_TITLES[slug]


@require_GET
def concept_list(request: HttpRequest) -> HttpResponse:
    questions = concept_questions()
    concepts = [(slug, title, len(questions.get(slug, []))) for slug, title in CONCEPT_TITLES.items()]
    return render(request, "community/concepts.html", {"concepts": concepts})


@require_GET
def concept_detail(request: HttpRequest, slug: str) -> HttpResponse:
    title = _get_concept(slug)
    context = {
        "slug": slug,
        "title": title,
        "body_html": concept_html(slug),
        "questions": concept_questions().get(slug, []),
    }
    return render(request, "community/concept.html", context)
