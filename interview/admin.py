from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.http import HttpRequest
from rest_framework.authtoken.models import TokenProxy

from interview.forms_login import AdminLockoutAuthenticationForm
from questions.models import Question, QuestionVersion


class QuestionAdminForm(forms.ModelForm):
    class Meta:
        model = Question
        fields = ["slug", "title", "track", "difficulty", "kind", "summary", "position", "current_version"]

    def clean_current_version(self) -> QuestionVersion | None:
        version = self.cleaned_data.get("current_version")
        if version is not None and version.question_id != self.instance.pk:
            raise forms.ValidationError("Choose one of this question's own versions.")
        return version


@admin.register(Question)
class QuestionAdmin(admin.ModelAdmin):
    form = QuestionAdminForm
    list_display = ("slug", "title", "track", "difficulty", "current_version")
    list_filter = ("track", "difficulty")
    search_fields = ("slug", "title")

    def get_form(
        self, request: HttpRequest, obj: Question | None = None, change: bool = False, **kwargs: Any
    ) -> type[forms.ModelForm[Question]]:
        form = super().get_form(request, obj, change, **kwargs)
        # A question's current version is one of its own: a new question has none to choose from yet.
        own = QuestionVersion.objects.filter(question=obj) if obj else QuestionVersion.objects.none()
        field = form.base_fields["current_version"]
        assert isinstance(field, forms.ModelChoiceField)  # the foreign key's field
        field.queryset = own.order_by("-number")
        return form


@admin.register(QuestionVersion)
class QuestionVersionAdmin(admin.ModelAdmin):
    """Read-only: versions are made by publishing a draft (the authoring pages) or by load_questions."""

    list_display = ("question", "number", "source", "created_at")
    readonly_fields = ("question", "number", "spec", "content_hash", "source", "created_by", "created_at")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: QuestionVersion | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: QuestionVersion | None = None) -> bool:
        return False


# The admin's log-in counts failures and locks out like the site's (interview/services/login_lockout.py).
admin.site.login_form = AdminLockoutAuthenticationForm
# Tokens come from /api/token/ only: their keys are bound to the password (interview/services/api_tokens.py),
# so one made in the admin with a random key would never authenticate.
admin.site.unregister(TokenProxy)
