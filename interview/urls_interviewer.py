"""Interviewer pages (interview/views/interviewer.py); the candidate's pairing actions on a round are in
interview/urls_rounds.py."""

from django.urls import path

from interview.views import interviewer

interviewer_urlpatterns = [
    path("interviews/", interviewer.my_interviews, name="my-interviews"),
    path("interviews/schedule/", interviewer.schedule, name="interview-schedule"),
    path("interviews/join/<str:token>/", interviewer.join, name="interview-join"),
    path("interviews/<int:round_id>/", interviewer.console, name="interview-console"),
    path("interviews/<int:round_id>/notes/", interviewer.note_create, name="interview-note-create"),
    path("interviews/<int:round_id>/scorecard/", interviewer.scorecard_page, name="interview-scorecard"),
    path(
        "interviews/<int:round_id>/scorecard/save/",
        interviewer.scorecard_save_view,
        name="interview-scorecard-save",
    ),
    path(
        "interviews/<int:round_id>/scorecard/release/",
        interviewer.scorecard_release_view,
        name="interview-scorecard-release",
    ),
    path("interviews/<int:round_id>/timeline/", interviewer.timeline, name="interview-timeline"),
    path("interviewers/<str:username>/calibration/", interviewer.calibration, name="interviewer-calibration"),
]
