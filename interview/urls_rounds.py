"""Every page URL of a round, in one place: the round itself (interview), its work (designs: the autosave and
the sheet's read-back), its replays and its pairing with an interviewer. The API's round URLs are
in interview/api/urls.py."""

from django.urls import path

from interview.views import depth, interviewer, replays, rounds, work

ROUND = "rounds/<int:round_id>/"
RUN = ROUND + "replays/<int:run_id>/"

round_urlpatterns = [
    path("questions/<slug:slug>/rounds/start/", rounds.start, name="round-start"),
    path("rounds/", rounds.history, name="round-history"),
    path(ROUND, rounds.detail, name="round-detail"),
    path(ROUND + "save/", work.save, name="round-save"),
    path(ROUND + "read/", work.read_number, name="round-read"),
    path(ROUND + "clock/", rounds.clock, name="round-clock"),
    path(ROUND + "depth/", depth.depth_panel, name="round-depth"),
    path(ROUND + "depth/next/", depth.depth_next, name="round-depth-next"),
    path(ROUND + "depth/save/", depth.depth_save, name="round-depth-save"),
    path(ROUND + "submit/", rounds.submit, name="round-submit"),
    path(ROUND + "abandon/", rounds.abandon, name="round-abandon"),
    path(ROUND + "report/", rounds.report, name="round-report"),
    path(ROUND + "replays/", replays.replays_page, name="round-replays"),
    path(ROUND + "replays/run/", replays.replays_run, name="round-replays-run"),
    path(RUN, replays.replay_run, name="replay-run"),
    path(RUN + "cancel/", replays.replay_cancel_view, name="replay-cancel"),
    path(RUN + "retry/", replays.replay_retry_view, name="replay-retry"),
    path(ROUND + "invitations/", interviewer.invitation_create, name="invitation-create"),
    path(
        ROUND + "invitations/<int:invitation_id>/revoke/",
        interviewer.invitation_revoke_view,
        name="invitation-revoke",
    ),
    path(ROUND + "begin/", interviewer.round_begin, name="round-begin-scheduled"),
]
