from django.urls import path

from grading import api

urlpatterns = [
    path("questions/<slug:slug>/grade", api.QuestionGradeApi.as_view(), name="api-question-grade"),
]
