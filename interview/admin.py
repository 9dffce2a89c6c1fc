from django import forms
from django.contrib import admin
from django.http import HttpRequest

from interview.models import Question, QuestionVersion


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

    def get_form(self, request: HttpRequest, obj: Question | None = None, **kwargs):
        form = super().get_form(request, obj, **kwargs)
        # A question's current version is one of its own: a new question has none to choose from yet.
        own = QuestionVersion.objects.filter(question=obj) if obj else QuestionVersion.objects.none()
        form.base_fields["current_version"].queryset = own.order_by("-number")
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
