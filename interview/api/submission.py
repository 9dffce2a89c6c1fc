"""A submission over the API, documented once and checked once: the grade's request and the save's design and
numbers.

The fields below document the shape and its limits for the OpenAPI schema (the limits are
grading.core.submission's); they accept any JSON. The one check is grading.core.submission.read_submission,
which the grade (API and `manage.py grade`) and the round's save (rounds.validation) also run: `validate()`
runs it and answers its problems, by field, in the one error shape (config/service_errors.py)."""

from collections.abc import Mapping
from typing import Any, ClassVar

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from config.service_errors import problems_by_field
from grading.core.submission import (
    MAX_BOX_TEXT,
    MAX_DEPTH_ITEMS,
    MAX_EDGES,
    MAX_EVENTS,
    MAX_ID_TEXT,
    MAX_NAME_CHARS,
    MAX_NODES,
    MAX_NUMBER_TEXT,
    MAX_NUMBERS,
    MAX_ORDER,
    MAX_TEXT_CHARS,
    TOP_LEVEL_KEYS,
    SubmissionError,
    read_submission,
)


def _box_text(**kwargs: Any) -> serializers.CharField:
    return serializers.CharField(required=False, allow_blank=True, max_length=MAX_BOX_TEXT, **kwargs)


class NodeSerializer(serializers.Serializer):
    id = serializers.CharField(max_length=MAX_ID_TEXT, help_text="Unique among the boxes")
    kind = _box_text(help_text="A palette kind, or empty")
    label = _box_text()  # type: ignore[assignment]  # a declared field, not Field.label
    job = _box_text()
    failure = _box_text()


class EdgeSerializer(serializers.Serializer):
    source = serializers.CharField(max_length=MAX_ID_TEXT, help_text="A node id, or `client`")  # type: ignore[assignment]  # a declared field, not Field.source
    target = serializers.CharField(max_length=MAX_ID_TEXT, help_text="A node id, or `client`")
    label = _box_text()  # type: ignore[assignment]  # a declared field, not Field.label


class DesignSerializer(serializers.Serializer):
    """Boxes and arrows; other keys (the canvas's positions, marks, notes, groups) are kept, not graded."""

    nodes = serializers.ListField(child=NodeSerializer(), max_length=MAX_NODES, required=False)
    edges = serializers.ListField(child=EdgeSerializer(), max_length=MAX_EDGES, required=False)


# The numbers sheet: at most MAX_NUMBERS names, each text as typed (null or empty: not answered).
NUMBERS_SCHEMA = {
    "type": "object",
    "maxProperties": MAX_NUMBERS,
    "additionalProperties": {"type": "string", "nullable": True, "maxLength": MAX_NUMBER_TEXT},
    "description": "Quantity name -> the text as typed: '48 GB', '2.5M tok/s', '~10 GB'",
}


class EventSerializer(serializers.Serializer):
    t = serializers.FloatField(min_value=0, help_text="Seconds since the start")
    phase = serializers.CharField(allow_blank=True, max_length=MAX_TEXT_CHARS)
    field = serializers.CharField(
        allow_blank=True, max_length=MAX_TEXT_CHARS, help_text="`numbers.NAME`, `design` or `scratch`"
    )


class CurveballAnswerSerializer(serializers.Serializer):
    numbers = serializers.DictField(
        child=serializers.CharField(allow_blank=True, allow_null=True, max_length=MAX_NUMBER_TEXT),
        required=False,
        help_text="Line name -> text as typed",
    )
    notes = serializers.DictField(
        child=serializers.CharField(allow_blank=True, allow_null=True, max_length=MAX_NUMBER_TEXT),
        required=False,
        help_text="Box id -> what changes",
    )


class DecisionAnswerSerializer(serializers.Serializer):
    order = serializers.ListField(
        child=serializers.CharField(max_length=MAX_NAME_CHARS),
        max_length=MAX_ORDER,
        required=False,
        help_text="Option ids chosen, most important first, each once",
    )
    number = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=MAX_TEXT_CHARS,
        help_text="The supporting figure, with unit",
    )


class DepthAnswersSerializer(serializers.Serializer):
    curveballs = serializers.DictField(
        child=CurveballAnswerSerializer(),
        required=False,
        help_text=f"By curveball id, at most {MAX_DEPTH_ITEMS}",
    )
    follow_ups = serializers.DictField(
        child=DecisionAnswerSerializer(),
        required=False,
        help_text=f"By follow-up id, at most {MAX_DEPTH_ITEMS}",
    )
    offered = serializers.ListField(
        child=serializers.CharField(max_length=MAX_NAME_CHARS),
        max_length=MAX_ORDER,
        required=False,
        help_text="Grading only: the curveballs the candidate was offered (the others are reported as not "
        "offered and not counted; without it every curveball counts). A round records its own; its save "
        "refuses this key",
    )


@extend_schema_field(DesignSerializer)
class DesignField(serializers.JSONField):
    """A design: documented by DesignSerializer, checked by read_submission."""


@extend_schema_field(NUMBERS_SCHEMA)
class NumbersField(serializers.JSONField):
    """The numbers sheet: name -> text as typed."""


@extend_schema_field(serializers.ListField(child=EventSerializer(), max_length=MAX_EVENTS))
class EventsField(serializers.JSONField):
    """Edits with times, for pacing."""


@extend_schema_field(DepthAnswersSerializer)
class DepthField(serializers.JSONField):
    """The depth phase's answers."""


class CheckedBySubmission(serializers.Serializer):
    """`validate()` runs the one check of a submission on the request's submission keys (all of the body
    when `whole_body`: an unknown key is then refused, as the grade refuses it)."""

    whole_body: ClassVar[bool] = False

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        body = self.initial_data
        if self.whole_body:
            submission = body
        else:
            submission = {
                key: body[key] for key in TOP_LEVEL_KEYS if isinstance(body, Mapping) and key in body
            }
        try:
            read_submission(submission)
        except SubmissionError as error:
            raise serializers.ValidationError(problems_by_field(error.problems)) from None
        return attrs


class SubmissionSerializer(CheckedBySubmission):
    """A submission to grade: every key optional, no other key."""

    whole_body = True

    numbers = NumbersField(required=False, allow_null=True)
    design = DesignField(required=False, allow_null=True, help_text="Leave out to skip the shape score")
    events = EventsField(required=False, allow_null=True, help_text="Edits with times, for pacing")
    depth = DepthField(
        required=False,
        allow_null=True,
        help_text="The depth phase's answers; leave out to leave depth unscored",
    )
