"""Drills over the API, for scripts and mobile clients: the next due step, answering it, and progress."""

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.service_errors import ErrorSerializer
from drills import services
from drills.services import DrillOffer
from grading.core.vocabulary import TRACKS
from questions.selectors import published_question_or_404


class GivenSerializer(serializers.Serializer):
    name = serializers.CharField()
    label = serializers.CharField()  # type: ignore[assignment]  # a declared field, not Field.label
    shown = serializers.CharField(help_text="The value as the prompt states it, with its unit")


class StepSerializer(serializers.Serializer):
    token = serializers.CharField(
        help_text="Send it back with the answer; it names the step and when it was given"
    )
    question = serializers.CharField(help_text="The question's slug")
    line = serializers.CharField(help_text="The asked quantity's name")
    label = serializers.CharField()  # type: ignore[assignment]  # a declared field, not Field.label
    unit = serializers.CharField()
    prompt = serializers.CharField()
    givens = GivenSerializer(many=True)
    due = serializers.DateTimeField()


def _step(offer: DrillOffer) -> dict:
    return {
        "token": offer.token,
        "question": offer.card.question.slug,
        "line": offer.step.name,
        "label": offer.step.label,
        "unit": offer.step.unit,
        "prompt": offer.step.prompt,
        "givens": [{"name": g.name, "label": g.label, "shown": g.shown} for g in offer.step.givens],
        "due": offer.card.due,
    }


class DrillNextQuery(serializers.Serializer):
    track = serializers.ChoiceField(choices=TRACKS, required=False)
    question = serializers.SlugField(required=False, help_text="Practise this question's steps")
    first = serializers.CharField(required=False, help_text="Comma-separated lines to take first")


class DrillNextApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="drill_next",
        description="The next step: a due card, else a new one while today's new steps last. With "
        "`question`, a step of that question (`first` lines first). 204 when nothing is due and today's "
        "new steps are done; 409 while the question is held back by an unsubmitted round.",
        parameters=[DrillNextQuery],
        responses={200: StepSerializer, 204: None, 404: ErrorSerializer, 409: ErrorSerializer},
    )
    def get(self, request: Request) -> Response:
        query = DrillNextQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        offer: DrillOffer | None
        if "question" in query.validated_data:
            question = published_question_or_404(query.validated_data["question"])
            first = tuple(n for n in query.validated_data.get("first", "").split(",") if n)
            offer = services.drill_next_for_question(user=request.user, question=question, first=first)
        else:
            offer = services.drill_next(user=request.user, track=query.validated_data.get("track"))
        if offer is None:
            return Response(status=status.HTTP_204_NO_CONTENT)
        return Response(StepSerializer(_step(offer)).data)


class DrillAnswerApi(APIView):
    permission_classes = [IsAuthenticated]

    class DrillAnswerInput(serializers.Serializer):
        token = serializers.CharField()
        answer = serializers.CharField(allow_blank=True, max_length=200)

    class DrillAnswerResult(serializers.Serializer):
        verdict = serializers.CharField()
        verdict_label = serializers.CharField()
        message = serializers.CharField()
        credit = serializers.FloatField()
        answer = serializers.CharField(help_text="The step's answer, with its unit")
        arithmetic = serializers.CharField(help_text="The formula with the step's numbers")
        seconds = serializers.FloatField(help_text="Time from the step being given to the answer")
        rating = serializers.IntegerField(help_text="FSRS rating: again 1, hard 2, good 3, easy 4")
        due = serializers.DateTimeField(help_text="When the card is due again")

    @extend_schema(
        operation_id="drill_answer",
        description="Grade the answer to a step (the same engine and messages as the numbers sheet) and move "
        "its card on the FSRS schedule. Answering the same token again returns the first answer's result.",
        request=DrillAnswerInput,
        responses={
            200: DrillAnswerResult,
            400: ErrorSerializer,
            404: ErrorSerializer,
            409: ErrorSerializer,
        },
    )
    def post(self, request: Request) -> Response:
        data = self.DrillAnswerInput(data=request.data)
        data.is_valid(raise_exception=True)
        result = services.drill_answer(
            user=request.user, token=data.validated_data["token"], text=data.validated_data["answer"]
        )
        line = result.line
        return Response(
            self.DrillAnswerResult(
                {
                    "verdict": line["verdict"],
                    "verdict_label": line["verdict_label"],
                    "message": line["message"],
                    "credit": line["credit"],
                    "answer": result.step.answer_shown,
                    "arithmetic": result.step.arithmetic,
                    "seconds": result.answer.seconds,
                    "rating": result.answer.rating,
                    "due": result.card.due,
                }
            ).data
        )


class DrillProgressApi(APIView):
    permission_classes = [IsAuthenticated]

    class DrillProgressOutput(serializers.Serializer):
        tracks = inline_serializer(
            "DrillTrack",
            {
                "track": serializers.CharField(),
                "cards": serializers.IntegerField(),
                "mastered": serializers.IntegerField(),
            },
            many=True,
        )
        streak_days = serializers.IntegerField()
        weeks = inline_serializer(
            "DrillWeek",
            {
                "week": serializers.CharField(),
                "answers": serializers.IntegerField(),
                "accuracy": serializers.FloatField(),
                "mean_seconds": serializers.FloatField(),
            },
            many=True,
        )
        due_now = serializers.IntegerField()
        answers = serializers.IntegerField()

    @extend_schema(
        operation_id="drill_progress",
        description="Steps started and mastered per track, the streak of days, and accuracy and mean "
        "time per week.",
        responses={200: DrillProgressOutput},
    )
    def get(self, request: Request) -> Response:
        return Response(self.DrillProgressOutput(services.drill_progress(user=request.user)).data)
