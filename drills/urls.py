from django.urls import path

from drills import views

urlpatterns = [
    path("drills/", views.session, name="drill-session"),
    path("drills/answer/", views.answer, name="drill-answer"),
    path("drills/read-back/", views.read_back, name="drill-read-back"),
    path("drills/progress/", views.progress, name="drill-progress"),
    path("drills/questions/<slug:slug>/", views.question_steps, name="drill-question"),
]
