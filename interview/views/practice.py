"""The practice check: type your numbers for a question and see them graded, outside a round."""

from typing import Any

from django import forms
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_http_methods

from config.http_types import AuthedRequest
from grading.core.submission import SubmissionError, read_submission
from interview.question_visibility import asked_line_view
from interview.selectors import published_version_or_404
from questions.services.grading import question_version_grade
from rounds.services.reference_checks import (
    questions_sharing_lines,
    reference_check_record,
    reference_checked_before,
)
from rounds.services.reference_guard import reference_refusal, round_hiding_reference

MAX_TEXT_CHARS = 200


class PracticeCheckForm(forms.Form):
    """One text box per asked quantity, labelled with its label and unit (never its value)."""

    def __init__(self, lines: list[dict[str, Any]], *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.lines = lines
        for line in lines:
            self.fields[line["name"]] = forms.CharField(
                label=line["label"], required=False, max_length=MAX_TEXT_CHARS, strip=False
            )

    def rows(self) -> list[tuple[dict[str, Any], forms.BoundField]]:
        return [(line, self[line["name"]]) for line in self.lines]

    def clean(self) -> dict[str, Any] | None:
        cleaned = super().clean()
        try:
            read_submission(self.submission())
        except SubmissionError as error:
            for field, message in error.problems:
                self.add_error(None, f"{field}: {message}")
        return cleaned

    def submission(self) -> dict[str, Any]:
        return {"numbers": {line["name"]: self.cleaned_data.get(line["name"]) or "" for line in self.lines}}


@login_required
@require_http_methods(["GET", "POST"])
def practice_check(request: AuthedRequest, slug: str) -> HttpResponse:
    version = published_version_or_404(slug)
    question = version.question
    if hiding := round_hiding_reference(user=request.user, question=question):
        context = {"question": question, "refusal": reference_refusal(hiding, question=question)}
        return render(request, "grading/practice_check_refused.html", context, status=409)
    lines = [asked_line_view(version.spec, line) for line in version.spec.get("asked", [])]
    form = PracticeCheckForm(lines, request.POST or None)
    report = None
    if request.method == "POST" and form.is_valid():
        report = question_version_grade(version=version, submission=form.submission())
        reference_check_record(user=request.user, question=question)
    context = {
        "question": question,
        "version": version,
        "form": form,
        "report": report,
        "checked_before": reference_checked_before(user=request.user, question=question),
        "sharing": questions_sharing_lines(question=question),
    }
    return render(request, "grading/practice_check.html", context)
