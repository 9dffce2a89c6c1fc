from django.urls import path

from grading import api, api_replays

RUN = "rounds/<int:round_id>/replays/<int:run_id>/"

urlpatterns = [
    path("questions/<slug:slug>/grade/", api.QuestionGradeApi.as_view(), name="api-question-grade"),
    path("rounds/<int:round_id>/replays/", api_replays.ReplayListApi.as_view(), name="api-replay-list"),
    path(RUN, api_replays.ReplayRunApi.as_view(), name="api-replay-run"),
    path(RUN + "cancel/", api_replays.ReplayCancelApi.as_view(), name="api-replay-cancel"),
    path(RUN + "retry/", api_replays.ReplayRetryApi.as_view(), name="api-replay-retry"),
]
