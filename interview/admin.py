from django.contrib import admin

from interview.models import Question, QuestionVersion


@admin.register(Question)
class QuestionAdmin(admin.ModelAdmin):
    list_display = ("slug", "title", "track", "difficulty", "current_version")
    list_filter = ("track", "difficulty")
    search_fields = ("slug", "title")


@admin.register(QuestionVersion)
class QuestionVersionAdmin(admin.ModelAdmin):
    list_display = ("question", "number", "source", "created_at")
    readonly_fields = ("question", "number", "spec", "content_hash", "source", "created_by", "created_at")
