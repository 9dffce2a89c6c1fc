"""The work over the API: `POST /api/rounds/<id>/save/`, based on a revision, by the round's owner."""

from django.http import Http404
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.service_errors import ErrorSerializer
from grading.core.vocabulary import FIX_CATEGORIES
from interview.api.submission import CheckedBySubmission, DesignField, NumbersField
from rounds.models import Work
from rounds.services.work import work_save
from rounds.validation import MAX_FIX_TEXT, MAX_FIXES, MAX_SCRATCH


class WorkSaveApi(APIView):
    class InputSerializer(CheckedBySubmission):
        """The design and the numbers are checked as the grade checks them (CheckedBySubmission); the
        service adds the save's own checks (the canvas's extras, numbers the question asks)."""

        revision = serializers.IntegerField(min_value=0)
        design = DesignField(required=False, allow_null=True)
        numbers = NumbersField(required=False, allow_null=True)
        scratch = serializers.CharField(required=False, allow_blank=True, max_length=MAX_SCRATCH)
        fixes = serializers.ListField(
            child=inline_serializer(
                "RoundFix",
                {
                    "text": serializers.CharField(allow_blank=True, max_length=MAX_FIX_TEXT),
                    "category": serializers.ChoiceField(choices=FIX_CATEGORIES),
                },
            ),
            required=False,
            max_length=MAX_FIXES,
            help_text="A review round's fixes, first fix first, each tagged with its category.",
        )

    class OutputSerializer(serializers.Serializer):
        revision = serializers.IntegerField()
        saved = serializers.ListField(child=serializers.CharField())

    @extend_schema(
        request=InputSerializer,
        responses={200: OutputSerializer, 400: ErrorSerializer, 409: ErrorSerializer, 423: ErrorSerializer},
    )
    def post(self, request: Request, round_id: int) -> Response:
        """Save your work on an active round (design, numbers, scratch, fixes) against the revision you last
        saw; a stale revision answers 409 with the current one."""
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            result = work_save(
                round_id=round_id,
                candidate_id=request.user.pk,
                base_revision=data.validated_data["revision"],
                design=data.validated_data.get("design"),
                numbers=data.validated_data.get("numbers"),
                scratch=data.validated_data.get("scratch"),
                fixes=data.validated_data.get("fixes"),
            )
        except Work.DoesNotExist:
            raise Http404("No such round.") from None
        return Response({"revision": result.revision, "saved": result.saved_fields})
