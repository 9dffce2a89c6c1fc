"""What each person may see of a question version. Candidates never see reference values or formulas."""

from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

from interview.roles import Role, roles_of

# Fields of a question file anyone may read: the prompt and how the round runs, never the answers.
PUBLIC_FIELDS = (
    "slug",
    "title",
    "track",
    "difficulty",
    "kind",
    "summary",
    "prompt",
    "plan",
    "concepts",
    "related",
)

CONCEPT_TITLES = {
    "latency-slos": "Designing for latency SLOs",
    "capacity-and-backpressure": "Capacity and backpressure",
    "gpu-job-scheduling": "GPU job scheduling",
    "structured-outputs": "Structured outputs and constrained decoding",
    "kv-cache-memory": "KV-cache memory",
    "littles-law": "Little's law",
    "continuous-batching": "Continuous batching",
    "roofline-and-decode": "The roofline and decode",
    "queueing-theory": "Queueing theory",
    "checkpointing": "Checkpointing",
    "cluster-networking": "Cluster networking",
    "failure-domains": "Failure domains",
    "idempotency-and-ledgers": "Idempotency and ledgers",
    "rate-limiting": "Rate limiting",
    "caching": "Caching",
    "autoscaling-and-cold-starts": "Autoscaling and cold starts",
    "multi-tenancy": "Multi-tenancy",
    "data-pipelines": "Data pipelines",
    "evaluation": "Evaluation",
    "observability": "Observability",
    "moe-and-expert-parallelism": "MoE and expert parallelism",
    "speculative-decoding": "Speculative decoding",
    "power-and-cooling": "Power and cooling",
    "artifact-distribution": "Artifact distribution",
}


def can_see_reference(user: AbstractBaseUser | AnonymousUser) -> bool:
    """Authors and admins see the whole question file; everyone else only its public fields."""
    return bool(roles_of(user) & {Role.AUTHOR, Role.ADMIN})


def public_view(spec: dict[str, Any]) -> dict[str, Any]:
    view = {key: spec[key] for key in PUBLIC_FIELDS if key in spec}
    view["asked"] = [asked_line_view(spec, line) for line in spec.get("asked", [])]
    return view


def asked_line_view(spec: dict[str, Any], line: dict[str, Any]) -> dict[str, Any]:
    """An asked quantity as the sheet shows it: label, phase and expected unit, never its value."""
    quantity = next(q for q in spec["model"]["quantities"] if q["name"] == line["name"])
    return {
        "name": line["name"],
        "label": quantity.get("label", line["name"]),
        "phase": line["phase"],
        "unit": quantity.get("unit", ""),
    }


def view_for(user: AbstractBaseUser | AnonymousUser, spec: dict[str, Any]) -> dict[str, Any]:
    return spec if can_see_reference(user) else public_view(spec)
