"""The parts of a question version every save needs, cached by content hash: a version never changes, and
the hash (not the row id, which a restored or flushed database can reuse) names its content."""

from dataclasses import dataclass
from typing import Any, Protocol

from grading.core.review_check import FIXED_PREFIX, fix_lines


class StoredVersion(Protocol):
    """A question version as the save reads it through `Work.round.question_version`."""

    pk: Any
    content_hash: str
    spec: dict


@dataclass(frozen=True)
class VersionOutline:
    asked_names: frozenset[str]
    plan: tuple[dict, ...]


_outlines: dict[tuple[str, Any], VersionOutline] = {}


def version_outline(version: StoredVersion) -> VersionOutline:
    """The names a save may set (the asked lines, and a review's fixed-sheet lines under FIXED_PREFIX) and the
    plan of `version`; its spec (deferred by the save's query) is read once."""
    key = (version.content_hash, version.pk)
    outline = _outlines.get(key)
    if outline is None:
        spec = version.spec
        names = [line["name"] for line in spec.get("asked", [])]
        names += [FIXED_PREFIX + line["name"] for line in fix_lines(spec)]
        outline = VersionOutline(asked_names=frozenset(names), plan=tuple(spec["plan"]))
        _outlines[key] = outline
    return outline
