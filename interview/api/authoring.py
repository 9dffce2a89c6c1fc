"""Authoring API: export and import question packs, and check a reference model as the editor does."""

import math

from django.urls import path
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.exceptions import PermissionDenied
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.service_errors import ErrorSerializer
from interview.services.authoring import can_author, can_publish, model_check
from questions.services.packs import MAX_FILE_BYTES, MAX_FILES, PackRefused, pack_export, pack_import


class PackFileSerializer(serializers.Serializer):
    name = serializers.RegexField(r"^[A-Za-z0-9_.-]+\.ya?ml$", max_length=120)
    content = serializers.CharField(max_length=MAX_FILE_BYTES, trim_whitespace=False, allow_blank=True)


class PackSerializer(serializers.Serializer):
    files = PackFileSerializer(many=True)

    def validate_files(self, files: list) -> list:
        if len(files) > MAX_FILES:
            raise serializers.ValidationError(f"at most {MAX_FILES} files")
        return files


class ImportReportSerializer(serializers.Serializer):
    created = serializers.ListField(child=serializers.CharField())
    updated = serializers.ListField(child=serializers.CharField())
    unchanged = serializers.ListField(child=serializers.CharField())
    errors = serializers.ListField(child=serializers.CharField(), help_text="file: field: message")  # type: ignore[assignment]  # a declared field, not Serializer.errors


class PackExportApi(APIView):
    @extend_schema(
        parameters=[inline_serializer("PackExportQuery", {"slug": serializers.CharField(required=False)})],
        responses=PackSerializer,
        summary="The published questions (or those named by ?slug=) as question YAML files",
    )
    def get(self, request: Request) -> Response:
        """Export every published question as a pack of YAML files (admins only)."""
        if not can_author(request.user):
            raise PermissionDenied("authors and admins only")
        files = pack_export(slugs=request.query_params.getlist("slug") or None)
        return Response({"files": [{"name": name, "content": text} for name, text in files.items()]})


class PackImportApi(APIView):
    @extend_schema(
        request=PackSerializer,
        responses={200: ImportReportSerializer, 422: ErrorSerializer},
        summary="Import question files: all are checked first; a broken file loads nothing (422: `errors` by "
        "file, and `created`, `updated`, `unchanged` for the files that loaded)",
    )
    def post(self, request: Request) -> Response:
        """Import a pack of question files: each becomes a new version, or is refused with its problems
        (admins only)."""
        if not can_publish(request.user):
            raise PermissionDenied("admins, or authors an admin allowed, publish")
        serializer = PackSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        files = {item["name"]: item["content"] for item in serializer.validated_data["files"]}
        report = pack_import(
            files=files, source=f"api:{request.user.get_username()}", created_by=request.user
        )
        if report.errors:
            raise PackRefused(report)
        return Response({key: getattr(report, key) for key in ("created", "updated", "unchanged", "errors")})


class ModelCheckResultSerializer(serializers.Serializer):
    ok = serializers.BooleanField()
    problems = serializers.ListField(child=serializers.ListField(child=serializers.CharField()))
    values = serializers.ListField(child=serializers.DictField())
    edges = serializers.ListField(child=serializers.ListField(child=serializers.CharField()))


class ModelCheckApi(APIView):
    @extend_schema(
        request=inline_serializer("ModelCheckRequest", {"model": serializers.DictField()}),
        responses=ModelCheckResultSerializer,
        summary="Check a model block: problems per quantity, values at the defaults, dependency edges",
    )
    def post(self, request: Request) -> Response:
        """Check an authored model (quantities and formulas) without saving it: problems and computed values
        (authors only)."""
        if not can_author(request.user):
            raise PermissionDenied("authors and admins only")
        check = model_check(request.data.get("model") if isinstance(request.data, dict) else None)
        values = [
            {
                "name": row["name"],
                "value": row["value"] if math.isfinite(row["value"]) else None,  # no limit: JSON has no inf
                "unit": row["unit"],
                "shown": row["shown"],
            }
            for row in check.rows
        ]
        return Response(
            {
                "ok": check.ok,
                "problems": [list(problem) for problem in check.problems],
                "values": values,
                "edges": [[edge.source, edge.target] for edge in check.graph.edges],
            }
        )


urlpatterns = [
    path("authoring/packs/export/", PackExportApi.as_view(), name="api-pack-export"),
    path("authoring/packs/import/", PackImportApi.as_view(), name="api-pack-import"),
    path("authoring/model-check/", ModelCheckApi.as_view(), name="api-model-check"),
]
