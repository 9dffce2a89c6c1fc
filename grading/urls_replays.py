from django.urls import path

from grading import views_replays

RUN = "rounds/<int:round_id>/replays/<int:run_id>/"

urlpatterns = [
    path("rounds/<int:round_id>/replays/", views_replays.replays_page, name="round-replays"),
    path("rounds/<int:round_id>/replays/run/", views_replays.replays_run, name="round-replays-run"),
    path(RUN, views_replays.replay_run, name="replay-run"),
    path(RUN + "cancel/", views_replays.replay_cancel_view, name="replay-cancel"),
    path(RUN + "retry/", views_replays.replay_retry_view, name="replay-retry"),
]
