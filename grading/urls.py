from django.urls import path

from grading import views

urlpatterns = [
    path("questions/<slug:slug>/check/", views.practice_check, name="practice-check"),
]
