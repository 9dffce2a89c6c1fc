"""The parts of a question version every autosave needs, cached by content hash: a version never changes, and
the hash (not the row id, which a restored or flushed database can reuse) names its content."""

from dataclasses import dataclass
from functools import lru_cache

from interview.models import QuestionVersion


@dataclass(frozen=True)
class VersionOutline:
    asked_names: frozenset[str]
    plan: tuple[dict, ...]


def version_outline(version_id: int, content_hash: str) -> VersionOutline:
    return _outline(content_hash, version_id)


@lru_cache(maxsize=1024)
def _outline(content_hash: str, version_id: int) -> VersionOutline:
    asked, plan = QuestionVersion.objects.values_list("spec__asked", "spec__plan").get(pk=version_id)
    return VersionOutline(asked_names=frozenset(line["name"] for line in asked), plan=tuple(plan))
