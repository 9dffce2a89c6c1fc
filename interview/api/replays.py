"""Replays over the API, as the replay pages offer them: start a submitted round's replays, follow their
progress, read their results, cancel or retry a run. Every round and run is the candidate's own: 404s else."""

from collections.abc import Callable

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.service_errors import ErrorSerializer
from interview.selectors import round_of_candidate, run_of_candidate
from rounds.models import ReplayRun, ReplaySide, ReplayStatus, Round, RoundStatus
from rounds.services.replays import (
    curveball_replays_current,
    replay_cancel,
    replay_failure_score,
    replay_retry,
    replays_current,
    replays_enqueue_for_round,
)
from rounds.services.rounds import RoundNotSubmitted, round_close_if_expired


class ReplayRunSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    scenario = serializers.CharField()
    side = serializers.ChoiceField(choices=ReplaySide.choices, help_text="Your numbers or the reference's")
    generation = serializers.IntegerField(help_text="1 for the first run; each retry adds one")
    status = serializers.ChoiceField(choices=ReplayStatus.choices)
    progress = serializers.FloatField(help_text="Simulated fraction, 0 to 1")
    note = serializers.CharField()
    error = serializers.CharField()
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    result = serializers.DictField(allow_null=True, help_text="The simulator's result once the run is done")


class ReplayListSerializer(serializers.Serializer):
    failure_score = serializers.FloatField(allow_null=True, help_text="Once every run is done")
    runs = ReplayRunSerializer(many=True)
    curveball_runs = serializers.DictField(
        child=ReplayRunSerializer(many=True),
        help_text="By curveball id: the scenario it names, run on your curveball numbers beside the "
        "reference under the change (scenario 'CURVEBALL:SCENARIO'); shown on the report, not scored",
    )


def _listing(round_: Round) -> dict:
    runs = replays_current(round_=round_)
    curveballs = curveball_replays_current(round_=round_)
    return {
        "failure_score": replay_failure_score(round_),
        "runs": ReplayRunSerializer(runs, many=True).data,
        "curveball_runs": {
            key: ReplayRunSerializer(items, many=True).data for key, items in curveballs.items()
        },
    }


def _run_action(action: Callable[..., ReplayRun], run: ReplayRun) -> Response:
    """Cancel or retry: the run as it is now (the service's refusal, a ReplayError, is a 400)."""
    return Response(ReplayRunSerializer(action(run=run)).data)


class ReplayListApi(APIView):
    @extend_schema(operation_id="rounds_replays_list", responses={200: ReplayListSerializer})
    def get(self, request: Request, round_id: int) -> Response:
        """Your round's current replay runs with their status and progress (poll it to follow them), their
        results once done, and the failure score once all are done."""
        return Response(
            _listing(round_close_if_expired(round_=round_of_candidate(user=request.user, round_id=round_id)))
        )

    @extend_schema(request=None, responses={202: ReplayListSerializer, 409: ErrorSerializer})
    def post(self, request: Request, round_id: int) -> Response:
        """Start the replays of your submitted round (nothing new if they exist), as the report page does."""
        round_ = round_close_if_expired(round_=round_of_candidate(user=request.user, round_id=round_id))
        if round_.status != RoundStatus.SUBMITTED:
            raise RoundNotSubmitted("Replays run on a submitted round; submit it first.")
        replays_enqueue_for_round(round_=round_)
        return Response(_listing(round_), status=status.HTTP_202_ACCEPTED)


class ReplayRunApi(APIView):
    @extend_schema(responses={200: ReplayRunSerializer})
    def get(self, request: Request, round_id: int, run_id: int) -> Response:
        """One replay run of your round: status, progress, and its result once done."""
        return Response(
            ReplayRunSerializer(run_of_candidate(user=request.user, round_id=round_id, run_id=run_id)).data
        )


class ReplayCancelApi(APIView):
    @extend_schema(request=None, responses={200: ReplayRunSerializer, 400: ErrorSerializer})
    def post(self, request: Request, round_id: int, run_id: int) -> Response:
        """Cancel a queued or running replay run of your round."""
        return _run_action(
            replay_cancel, run_of_candidate(user=request.user, round_id=round_id, run_id=run_id)
        )


class ReplayRetryApi(APIView):
    @extend_schema(request=None, responses={200: ReplayRunSerializer, 400: ErrorSerializer})
    def post(self, request: Request, round_id: int, run_id: int) -> Response:
        """Run a failed or cancelled replay again (a new generation of the same scenario and side)."""
        return _run_action(
            replay_retry, run_of_candidate(user=request.user, round_id=round_id, run_id=run_id)
        )
