from django.urls import include, path

from interview.api import accounts, catalogue, grading, replays, rounds
from interview.api.work import WorkSaveApi

RUN = "rounds/<int:round_id>/replays/<int:run_id>/"

urlpatterns = [
    path("token/", accounts.TokenApi.as_view(), name="api-token"),
    path("rounds/", rounds.RoundListApi.as_view(), name="api-round-list"),
    path("rounds/<int:round_id>/", rounds.RoundDetailApi.as_view(), name="api-round-detail"),
    path("rounds/<int:round_id>/save/", WorkSaveApi.as_view(), name="api-round-save"),
    path("rounds/<int:round_id>/submit/", rounds.RoundSubmitApi.as_view(), name="api-round-submit"),
    path("rounds/<int:round_id>/report/", rounds.RoundReportApi.as_view(), name="api-round-report"),
    path("rounds/<int:round_id>/depth/", rounds.RoundDepthApi.as_view(), name="api-round-depth"),
    path("rounds/<int:round_id>/replays/", replays.ReplayListApi.as_view(), name="api-replay-list"),
    path(RUN, replays.ReplayRunApi.as_view(), name="api-replay-run"),
    path(RUN + "cancel/", replays.ReplayCancelApi.as_view(), name="api-replay-cancel"),
    path(RUN + "retry/", replays.ReplayRetryApi.as_view(), name="api-replay-retry"),
    path("questions/", catalogue.QuestionListApi.as_view(), name="api-question-list"),
    path("questions/<slug:slug>/", catalogue.QuestionDetailApi.as_view(), name="api-question-detail"),
    path(
        "questions/<slug:slug>/versions/", catalogue.QuestionVersionListApi.as_view(), name="api-version-list"
    ),
    path(
        "questions/<slug:slug>/versions/<int:number>/",
        catalogue.QuestionVersionDetailApi.as_view(),
        name="api-version-detail",
    ),
    path("questions/<slug:slug>/grade/", grading.QuestionGradeApi.as_view(), name="api-question-grade"),
    path("", include("interview.api.community")),
    path("", include("interview.api.authoring")),
    path("", include("interview.api.interviewer")),
]
