"""The parts of a question version every save needs, cached by content hash: a version never changes, and
the hash (not the row id, which a restored or flushed database can reuse) names its content."""

from dataclasses import dataclass
from typing import Any, Protocol


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
    """The asked names and the plan of `version`; its spec (deferred by the save's query) is read once."""
    key = (version.content_hash, version.pk)
    outline = _outlines.get(key)
    if outline is None:
        spec = version.spec
        outline = VersionOutline(
            asked_names=frozenset(line["name"] for line in spec.get("asked", [])), plan=tuple(spec["plan"])
        )
        _outlines[key] = outline
    return outline
