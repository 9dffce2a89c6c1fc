from django.urls import path

from interview.api import questions

urlpatterns = [
    path("questions/", questions.QuestionListApi.as_view(), name="api-question-list"),
    path("questions/<slug:slug>/", questions.QuestionDetailApi.as_view(), name="api-question-detail"),
    path(
        "questions/<slug:slug>/versions/", questions.QuestionVersionListApi.as_view(), name="api-version-list"
    ),
    path(
        "questions/<slug:slug>/versions/<int:number>/",
        questions.QuestionVersionDetailApi.as_view(),
        name="api-version-detail",
    ),
]
