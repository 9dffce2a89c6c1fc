"""The API's one error shape, the one exception handler that answers it, and its place in the schema.

Every refusal of the API answers one body (the `Error` component of the OpenAPI schema):

    {"detail": "what went wrong, in a sentence", "code": "stale_revision",
     "errors": {"field": ["message", ...]}}

`detail` is for the person, `code` for a program (stable, snake_case), `errors` names the request's
fields that were wrong (empty when the refusal is about no field). A few refusals add a key that says what to
do next:
`current_revision` (a stale save), `round` and `round_url` (the unsubmitted round holding a check back),
`created`/`updated`/`unchanged` (a pack import that loaded the files it could).

A service refuses with a subclass of `ServiceError`: its message is `detail`, its `status` the HTTP status,
its `code` the snake_case of its class name unless it says otherwise. Views let them through; DRF's own
refusals (validation, authentication, permission, not found, parse errors, throttling) and a malformed
submission are answered here in the same shape."""

import re
from typing import Any

from django.core.exceptions import PermissionDenied
from django.http import Http404
from drf_spectacular.utils import inline_serializer
from rest_framework import exceptions, serializers
from rest_framework.response import Response

from grading.core.submission import SubmissionError


class ServiceError(Exception):
    """A refusal with a message for the person; `status` is the HTTP status to answer with, `code` the
    machine-readable name (the class name in snake_case unless set)."""

    status: int = 400
    code: str = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "code" not in cls.__dict__:
            cls.code = re.sub(r"(?<!^)(?=[A-Z])", "_", cls.__name__).lower()

    def extra(self) -> dict[str, Any]:
        """Keys the answer adds beside detail, code and errors (what to do next); none by default."""
        return {}

    def field_errors(self) -> dict[str, list[str]]:
        """The request's fields this refusal is about, each with its messages; none by default."""
        return {}


def error_body(detail: str, code: str, errors: dict[str, list[str]] | None = None, **extra: Any) -> dict:
    """The one error shape: `{"detail", "code", "errors"}` and any extra keys after them."""
    return {"detail": detail, "code": code, "errors": errors or {}, **extra}


def _flatten(detail: Any, prefix: str = "") -> dict[str, list[str]]:
    """DRF's nested validation detail as field path -> messages: `fixes[0].text`, `numbers.x`."""
    if isinstance(detail, dict):
        out: dict[str, list[str]] = {}
        for key, value in detail.items():
            path = f"{prefix}.{key}" if prefix else str(key)
            if str(key).isdigit() and prefix:
                path = f"{prefix}[{key}]"
            for field, messages in _flatten(value, path).items():
                out.setdefault(field, []).extend(messages)
        return out
    if isinstance(detail, list) and any(isinstance(item, dict | list) for item in detail):
        out = {}
        for index, item in enumerate(detail):
            if not item:
                continue
            for field, messages in _flatten(item, f"{prefix}[{index}]").items():
                out.setdefault(field, []).extend(messages)
        return out
    items = detail if isinstance(detail, list) else [detail]
    return {prefix or "non_field_errors": [str(item) for item in items]}


def invalid_detail(errors: dict[str, list[str]]) -> str:
    """What was wrong with a request's fields, in one sentence: `Invalid input: design.nodes[0].id: ...`."""
    said = "; ".join(
        " ".join(messages) if field == "non_field_errors" else f"{field}: {' '.join(messages)}"
        for field, messages in errors.items()
    )
    return f"Invalid input: {said}"


def invalid_input(errors: dict[str, list[str]]) -> dict:
    """A 400 for the request's fields: what was wrong in one sentence, then by field."""
    return error_body(invalid_detail(errors), "invalid", errors)


def problems_by_field(problems: list[tuple[str, str]]) -> dict[str, list[str]]:
    """A malformed submission's problems (grading.core.submission.SubmissionError) as field -> messages."""
    errors: dict[str, list[str]] = {}
    for field, message in problems:
        errors.setdefault(field, []).append(message)
    return errors


class InvalidInput(ServiceError):
    """A request's fields refused by a service's own check, each named: answered as DRF's validation is
    (`code` invalid, `errors` by field, `detail` the one sentence of `invalid_detail`)."""

    status = 400
    code = "invalid"

    def __init__(self, problems: list[tuple[str, str]]) -> None:
        self.errors = problems_by_field(problems)
        super().__init__(invalid_detail(self.errors))

    def field_errors(self) -> dict[str, list[str]]:
        return self.errors


def _code(exc: exceptions.APIException) -> str:
    codes = exc.get_codes()
    return codes if isinstance(codes, str) else exc.default_code


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """Every refusal in the one shape, with its status: a service's, a malformed submission, DRF's own.
    Anything else (a bug) is left to Django: a 500."""
    from rest_framework.views import exception_handler  # rest_framework.views reads the settings naming this

    if isinstance(exc, ServiceError):
        errors = exc.field_errors()
        body = error_body(str(exc), exc.code, errors, **exc.extra())
        return Response(body, status=exc.status)
    if isinstance(exc, SubmissionError):
        return Response(invalid_input(problems_by_field(exc.problems)), status=400)
    if isinstance(exc, Http404):
        exc = exceptions.NotFound(*exc.args)
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied(*exc.args)
    response = exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        response.data = invalid_input(_flatten(exc.detail))
    elif isinstance(exc, exceptions.APIException):
        detail = exc.detail if isinstance(exc.detail, str) else response.data.get("detail", str(exc.detail))
        response.data = error_body(str(detail), _code(exc))
    return response


# The one error shape, as the schema's `Error` component (an inline serializer: a field named `errors` would
# shadow a serializer class's own `errors`).
ErrorSerializer = inline_serializer(
    "Error",
    {
        "detail": serializers.CharField(help_text="What went wrong, in a sentence for the person"),
        "code": serializers.CharField(
            help_text="What went wrong, for a program: invalid, parse_error, not_authenticated, "
            "permission_denied, not_found, throttled, or a service's refusal (stale_revision, "
            "round_locked, ...)"
        ),
        "errors": serializers.DictField(
            child=serializers.ListField(child=serializers.CharField()),
            help_text="The request's fields that were wrong, each with its messages (`design.nodes[0].id`); "
            "empty when the refusal is about no field",
        ),
        "current_revision": serializers.IntegerField(
            required=False, help_text="stale_revision only: the revision to base the next save on"
        ),
        "round": serializers.IntegerField(
            required=False, allow_null=True, help_text="The unsubmitted round that holds this back, if any"
        ),
        "round_url": serializers.CharField(required=False, help_text="Its page"),
        "created": serializers.ListField(
            child=serializers.CharField(), required=False, help_text="pack_refused only: the questions loaded"
        ),
        "updated": serializers.ListField(child=serializers.CharField(), required=False),
        "unchanged": serializers.ListField(child=serializers.CharField(), required=False),
    },
)


ERROR_REF = {"$ref": "#/components/schemas/Error"}
ERROR_DESCRIPTIONS = {
    "400": "Invalid input or a refusal by the service (`code` says which)",
    "401": "Not authenticated",
    "403": "Not logged in, or not allowed",
    "404": "Not found, or not yours",
    "405": "Method not allowed",
    "409": "A conflict with the current state (`code` says which)",
    "415": "Unsupported media type: send JSON",
    "422": "Refused after checking (`errors` by file or field)",
    "423": "The round no longer takes changes",
    "429": "Too many requests: wait and try again",
}


def document_error_responses(result: dict, generator: Any, request: Any, public: bool) -> dict:
    """drf-spectacular postprocessing: every operation's 4xx answers are the one `Error` component (the views
    name `ErrorSerializer` for their own refusals), and every operation lists the refusals any request can
    meet: 400 when it reads a body or query, 403 when it needs a login (an anonymous request is answered 403),
    404 when its path names an object, 415 when it reads a body."""
    if "Error" not in result.get("components", {}).get("schemas", {}):
        raise ValueError("No view names ErrorSerializer, so the schema has no Error component.")
    for path, operations in result.get("paths", {}).items():
        for operation in operations.values():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            responses = operation["responses"]
            codes = {code for code in responses if code.startswith("4")}
            has_body = "requestBody" in operation
            if has_body or any(p.get("in") == "query" for p in operation.get("parameters", [])):
                codes.add("400")
            if has_body:
                codes.add("415")
            security = operation.get("security") or []
            if security and {} not in security:
                codes.add("403")
            if "{" in path:
                codes.add("404")
            for code in sorted(codes):
                description = responses.get(code, {}).get("description") or ERROR_DESCRIPTIONS.get(code, "")
                responses[code] = {
                    "content": {"application/json": {"schema": ERROR_REF}},
                    "description": description,
                }
    return result
