"""The parts of a question version every autosave needs, cached: versions never change once published."""

from dataclasses import dataclass
from functools import lru_cache

from interview.models import QuestionVersion


@dataclass(frozen=True)
class VersionOutline:
    asked_names: frozenset[str]
    plan: tuple[dict, ...]


@lru_cache(maxsize=1024)
def version_outline(version_id: int) -> VersionOutline:
    asked, plan = QuestionVersion.objects.values_list("spec__asked", "spec__plan").get(pk=version_id)
    return VersionOutline(asked_names=frozenset(line["name"] for line in asked), plan=tuple(plan))
