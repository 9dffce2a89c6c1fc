"""Match a candidate's boxes to the reference design and check the request path.

A box counts as a palette component by its `kind` when it has one, else by its label: the reference design's
own label for a box, or the palette's kinds, names and synonyms, case-, spacing-, hyphen- and
plural-insensitive ("Rate-Limiters" is "rate limiter"), a known phrase inside a longer label ("Async
streamer" is a streamer), and small typos (one edit in short words, two in long ones). Where a label fits
several kinds, the ones the reference uses win, then the longest phrase.

The path check asks whether the arrows let a request travel from the client through boxes of the reference
path's kinds, in that order (other boxes may sit between them; an arrow counts in either direction, since a
box that pulls its work draws it against the request). Nothing here depends on box ids or order:
boxes are compared by what they say.

Credit (used for the shape score): a reference component is worth half for a matched box whose job names a
job of its kind, and half for a failure mode that names one of its kind's ways to fail (the palette's
vocabulary, grading.core.box_words); a box whose words name nothing recognisable earns nothing, and a missing
component 0. Extra boxes cost nothing. A kind without a vocabulary falls back to "written at all".
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grading.core.box_words import FAILURE, JOB, KindWords, Vocabulary, edit_distance, vocabulary_from
from grading.core.question_files import load_palette_file
from grading.core.submission import CLIENT_ID, Arrow, Box

CLIENT_KIND = "client"
DEFAULT_PALETTE_PATH = Path(__file__).resolve().parents[2] / "questions" / "bank" / "palette.yaml"
JOB_SHARE = 0.5  # of a component's credit; the failure mode earns the other half
MAX_NGRAM_WORDS = 5
MIN_TYPO_CHARS = 4
MIN_TYPO_WORD_CHARS = 6  # a single word inside a longer label: shorter ones are too easily another word
LONG_WORD_CHARS = 8

_NON_WORD = re.compile(r"[^0-9a-z]+")

PRESENT = "present"
INCOMPLETE = "incomplete"
MISSING = "missing"
TONES = {PRESENT: "correct", INCOMPLETE: "warn", MISSING: "bad"}  # CSS: verdict-correct, -warn, -bad


def _singular(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def label_words(text: str) -> tuple[str, ...]:
    """Lower-case singular words of a label: "Rate-Limiters (Redis)" -> ("rate", "limiter", "redi")."""
    return tuple(_singular(word) for word in _NON_WORD.split(text.lower()) if word)


@functools.lru_cache(maxsize=8192)
def label_key(text: str) -> str:
    """Spacing-insensitive form of a label: "Load balancers" and "loadbalancer" share "loadbalancer"."""
    return "".join(label_words(text))


@dataclass(frozen=True)
class PaletteEntry:
    """What the design check needs of a palette component."""

    kind: str
    name: str
    job: str = ""


class PaletteIndex:
    """Palette phrases by their spacing-insensitive key, for exact, contained and typo-tolerant matching."""

    def __init__(
        self,
        entries: Iterable[PaletteEntry],
        synonyms: Mapping[str, Sequence[str]],
        vocabulary: Vocabulary | None = None,
    ):
        self.vocabulary = vocabulary or Vocabulary({})
        self.entries: dict[str, PaletteEntry] = {entry.kind: entry for entry in entries}
        self.order = {kind: index for index, kind in enumerate(self.entries)}
        phrases: dict[str, list[str]] = {}
        for kind, entry in self.entries.items():
            words = [kind.replace("_", " "), *re.split(r"[/+]", entry.name), *synonyms.get(kind, ())]
            for phrase in words:
                key = label_key(phrase)
                if key and kind not in phrases.setdefault(key, []):
                    phrases[key].append(kind)
        self.phrases: dict[str, tuple[str, ...]] = {key: tuple(kinds) for key, kinds in phrases.items()}
        by_length: dict[int, list[str]] = {}
        for key in self.phrases:
            by_length.setdefault(len(key), []).append(key)
        self._by_length = {length: tuple(sorted(keys)) for length, keys in by_length.items()}

    def name(self, kind: str) -> str:
        """The palette name of `kind` ("API gateway"), or the kind itself when the palette lacks it."""
        entry = self.entries.get(kind)
        return entry.name if entry else kind.replace("_", " ")

    @functools.lru_cache(maxsize=8192)  # noqa: B019 - indexes live as long as the process; labels repeat
    def match(self, label: str) -> tuple[tuple[str, ...], str]:
        """The kinds a free label may mean, most likely first, and how it matched: "label" (the whole label is
        a known phrase), "phrase" (known phrases inside it, longest first) or "typo"; ((), "") for none."""
        words = label_words(label)
        if not words:
            return (), ""
        whole = "".join(words)
        if whole in self.phrases:
            return self.phrases[whole], "label"
        found: set[str] = set()
        for size in range(min(len(words), MAX_NGRAM_WORDS), 0, -1):
            for start in range(len(words) - size + 1):
                key = "".join(words[start : start + size])
                if key in self.phrases:
                    found.add(key)
        if found:
            return _merged(
                self.phrases[key] for key in sorted(found, key=lambda key: (-len(key), key))
            ), "phrase"
        kinds = self._typo_match(whole, 2 if len(whole) >= LONG_WORD_CHARS else 1)
        for word in words if len(words) > 1 else ():
            if not kinds and len(word) >= MIN_TYPO_WORD_CHARS:
                kinds = self._typo_match(word, 1)
        return (kinds, "typo") if kinds else ((), "")

    def _typo_match(self, key: str, allowed: int) -> tuple[str, ...]:
        if len(key) < MIN_TYPO_CHARS:
            return ()
        best: list[str] = []
        best_distance = allowed + 1
        for length in range(len(key) - allowed, len(key) + allowed + 1):
            for phrase in self._by_length.get(length, ()):
                if len(phrase) < MIN_TYPO_CHARS:
                    continue
                distance = edit_distance(key, phrase, allowed)
                if distance < best_distance:
                    best_distance, best = distance, [phrase]
                elif distance == best_distance and distance <= allowed:
                    best.append(phrase)
        return _merged(self.phrases[phrase] for phrase in sorted(best))


def _merged(groups: Iterable[tuple[str, ...]]) -> tuple[str, ...]:
    kinds: list[str] = []
    for group in groups:
        kinds += [kind for kind in group if kind not in kinds]
    return tuple(kinds)


def build_index(
    palette: Mapping[str, Any] | Iterable[Any], common: KindWords | None = None, version: int = 0
) -> PaletteIndex:
    """A PaletteIndex from `grading.core.question_files.load_palette`'s result (kind -> PaletteComponent) or
    from plain dicts with kind, name, synonyms and job (and the vocabulary's jobs and failures)."""
    components = list(palette.values() if isinstance(palette, Mapping) else palette)
    entries: list[PaletteEntry] = []
    synonyms: dict[str, tuple[str, ...]] = {}
    for component in components:

        def get(key: str, c: object = component) -> Any:
            return c.get(key) if isinstance(c, Mapping) else getattr(c, key, "")

        kind = get("kind")
        entries.append(PaletteEntry(kind, get("name") or kind, get("job") or ""))
        synonyms[kind] = tuple(get("synonyms") or ())
    return PaletteIndex(entries, synonyms, vocabulary_from(components, common or KindWords(), version))


@functools.lru_cache(maxsize=16)
def load_index(path: str | Path = DEFAULT_PALETTE_PATH) -> PaletteIndex:
    """The palette file at `path` as an index, read once per path (raises
    grading.core.question_types.SpecError)."""
    return build_index(*load_palette_file(path))


# The check.


@dataclass(frozen=True)
class ReferenceBox:
    """A box of the reference design."""

    id: str
    kind: str
    label: str
    job: str = ""
    failure: str = ""


@dataclass(frozen=True)
class ReferenceDesign:
    """What the check compares against: the reference boxes and the path's kinds, client first excluded."""

    boxes: tuple[ReferenceBox, ...]
    path: tuple[str, ...]


def _box_has(text: str) -> bool:
    return bool(text and text.strip())


def _blanks(box: Box) -> list[str]:
    """What a box leaves unwritten: "job", "failure mode"."""
    return [word for word, text in (("job", box.job), ("failure mode", box.failure)) if not _box_has(text)]


def _box_sort_key(box: Box) -> tuple[Any, ...]:
    # By content, never by id or drawing order (the id only separates boxes that say the same thing).
    return (label_key(box.label), box.kind, box.label, box.job, box.failure, box.id)


def check_design(
    reference: ReferenceDesign, boxes: Sequence[Box], arrows: Sequence[Arrow], index: PaletteIndex
) -> dict[str, Any]:
    """Grade a drawn design against the reference: a verdict per reference component, the extra boxes, the
    path, and a message per problem. Returns a JSON-ready dict (see the module docstring for `credit`)."""
    reference_kinds = [box.kind for box in reference.boxes]
    reference_labels = {label_key(box.label): box.kind for box in reference.boxes if box.label}
    kind_of: dict[str, str] = {}
    how: dict[str, str] = {}
    for box in boxes:
        kind_of[box.id], how[box.id] = _box_kind(box, index, reference_kinds, reference_labels)
    problems: list[str] = []
    blanks = {box.id: _blanks(box) for box in boxes}
    ordered = sorted(boxes, key=lambda box: (len(blanks[box.id]), *_box_sort_key(box)))
    by_kind: dict[str, list[Box]] = {}
    for box in ordered:
        by_kind.setdefault(kind_of[box.id], []).append(box)
    components = _components(reference, by_kind, how, index, problems)
    extra = _extra(ordered, kind_of, set(reference_kinds), index)
    for box in ordered:
        if blanks[box.id] and kind_of[box.id] != CLIENT_KIND:
            problems.append(f"Your {_box_name(box)} box has no {' and no '.join(blanks[box.id])} written.")
    path_ok, path_message = _path(reference.path, boxes, arrows, kind_of, index)
    if path_ok is False:
        problems.append(path_message)
    credit = [component["credit"] for component in components]
    return {
        "components": components,
        "extra": extra,
        "path": [index.name(kind) for kind in reference.path],
        "path_ok": path_ok,
        "path_message": path_message,
        "problems": problems,
        "coverage": sum(credit) / len(credit) if credit else 1.0,
        "vocabulary_version": index.vocabulary.version,
    }


def _box_kind(
    box: Box, index: PaletteIndex, reference_kinds: Sequence[str], reference_labels: Mapping[str, str]
) -> tuple[str, str]:
    if box.id == CLIENT_ID:
        return CLIENT_KIND, "id"
    if box.kind and (box.kind in index.entries or box.kind == CLIENT_KIND):
        return box.kind, "kind"
    if box.label and label_key(box.label) in reference_labels:  # the reference's own words for the box
        return reference_labels[label_key(box.label)], "label"
    for text in (box.label, box.kind):
        kinds, way = index.match(text)
        if kinds:
            preferred = [kind for kind in kinds if kind in reference_kinds]
            return (preferred[0] if preferred else kinds[0]), way
    return "", ""


def _box_name(box: Box) -> str:
    return repr(box.label.strip()) if box.label.strip() else f"{box.kind or box.id!r}"


def _components(
    reference: ReferenceDesign,
    by_kind: Mapping[str, list[Box]],
    how: Mapping[str, str],
    index: PaletteIndex,
    problems: list[str],
) -> list[dict[str, Any]]:
    taken: set[str] = set()
    assigned: dict[int, list[Box]] = {}
    for position, ref in enumerate(reference.boxes):
        free = [box for box in by_kind.get(ref.kind, []) if box.id not in taken]
        if free:
            assigned[position] = [free[0]]
            taken.add(free[0].id)
    for position, ref in enumerate(reference.boxes):  # leftover boxes of a kind join its first component
        if position in assigned:
            leftovers = [box for box in by_kind.get(ref.kind, []) if box.id not in taken]
            assigned[position] += leftovers
            taken.update(box.id for box in leftovers)
    components = []
    for position, ref in enumerate(reference.boxes):
        name = ref.label or index.name(ref.kind)
        matched = assigned.get(position, [])
        if not matched:
            job = index.entries[ref.kind].job if ref.kind in index.entries else ""
            message = f"No box for the {index.name(ref.kind)}" + (
                f": {job[0].lower()}{job[1:]}" if job else "."
            )
            message = message if message.endswith(".") else message + "."
            problems.append(message)
            components.append(_component(ref, name, MISSING, [], message, 0.0, index))
            continue
        components.append(_matched_component(ref, name, matched, how, index, problems))
    return components


def _matched_component(
    ref: ReferenceBox,
    name: str,
    matched: Sequence[Box],
    how: Mapping[str, str],
    index: PaletteIndex,
    problems: list[str],
) -> dict[str, Any]:
    words = _BoxWords.of(ref.kind, matched, index.vocabulary)
    best = words.box
    kind_name = index.name(ref.kind)
    way = {"kind": "its palette kind", "id": "its id"}.get(how[best.id], "its label")
    credit = JOB_SHARE * bool(words.job) + (1.0 - JOB_SHARE) * bool(words.failure)
    parts = (("job", words.job, best.job), ("failure mode", words.failure, best.failure))
    unrecognised = [part for part, found, text in parts if not found and _box_has(text)]
    blank = [part for part, found, text in parts if not found and not _box_has(text)]
    message = f"Your {_box_name(best)} box is the {kind_name} (matched by {way})"
    if unrecognised:
        verb = "names" if len(unrecognised) == 1 else "name"
        message += (
            f", but its {' and '.join(unrecognised)} {verb} nothing we recognise for one"
            f"{_examples(ref.kind, unrecognised, index.vocabulary)}"
        )
    if blank:
        message += f"{';' if unrecognised else ', but it'} has no {' or '.join(blank)}"
    message += "." + (" Nothing scored for this box." if credit == 0 else "")
    if unrecognised:
        problems.append(message)
    verdict = PRESENT if credit == 1.0 else INCOMPLETE
    component = _component(ref, name, verdict, matched, message, credit, index)
    component["job_named"], component["failure_named"] = list(words.job), list(words.failure)
    return component


def _examples(kind: str, unnamed: Sequence[str], vocabulary: Vocabulary) -> str:
    examples = [
        f'{part} such as "{example}"'
        for part, field_name in (("a job", JOB), ("a failure mode", FAILURE))
        if (field_name == JOB and "job" in unnamed) or (field_name == FAILURE and "failure mode" in unnamed)
        if (example := vocabulary.example(kind, field_name))
    ]
    return f" ({' and '.join(examples)})" if examples else ""


@dataclass(frozen=True)
class _BoxWords:
    """The box of a component whose words name the most, and the job and failure terms they name."""

    box: Box
    job: tuple[str, ...]
    failure: tuple[str, ...]

    @classmethod
    def of(cls, kind: str, boxes: Sequence[Box], vocabulary: Vocabulary) -> _BoxWords:
        candidates = [cls(box, *_named(kind, box, vocabulary)) for box in boxes]
        return max(candidates, key=lambda words: bool(words.job) + bool(words.failure))


def _named(kind: str, box: Box, vocabulary: Vocabulary) -> tuple[tuple[str, ...], tuple[str, ...]]:
    if not vocabulary.knows(kind):  # no vocabulary for this kind: written at all is all we can check
        return tuple(text.strip() for text in (box.job,) if _box_has(text)), tuple(
            text.strip() for text in (box.failure,) if _box_has(text)
        )
    return vocabulary.recognise(kind, JOB, box.job), vocabulary.recognise(kind, FAILURE, box.failure)


def _component(
    ref: ReferenceBox,
    name: str,
    verdict: str,
    matched: Sequence[Box],
    message: str,
    credit: float,
    index: PaletteIndex,
) -> dict[str, Any]:
    return {
        "kind": ref.kind,
        "name": name,
        "verdict": verdict,
        "tone": TONES[verdict],
        "matched_ids": sorted(box.id for box in matched),
        "message": message,
        "credit": credit,
        "job_named": [],
        "failure_named": [],
        "reference_job_named": list(index.vocabulary.recognise_reference(ref.kind, JOB, ref.job)),
        "reference_failure_named": list(index.vocabulary.recognise_reference(ref.kind, FAILURE, ref.failure)),
    }


def _extra(
    ordered: Sequence[Box], kind_of: Mapping[str, str], reference_kinds: set[str], index: PaletteIndex
) -> list[dict[str, Any]]:
    extra = []
    for box in ordered:
        kind = kind_of[box.id]
        if kind == CLIENT_KIND or kind in reference_kinds:
            continue
        if kind:
            message = (
                f"Your {_box_name(box)} box ({index.name(kind)}) is not in the reference design; "
                "fine if it earns its place."
            )
        else:
            message = (
                f"Could not match {_box_name(box)} to a palette component; pick a kind from the palette."
            )
        extra.append({"id": box.id, "label": box.label, "kind": kind, "message": message})
    return extra


def _path(
    path: Sequence[str],
    boxes: Sequence[Box],
    arrows: Sequence[Arrow],
    kind_of: Mapping[str, str],
    index: PaletteIndex,
) -> tuple[bool | None, str]:
    if not path:
        return None, ""
    kinds = dict(kind_of)
    kinds.setdefault(CLIENT_ID, CLIENT_KIND)
    starts = sorted(node for node, kind in kinds.items() if kind == CLIENT_KIND)
    linked: dict[str, list[str]] = {}
    for arrow in arrows:
        linked.setdefault(arrow.source, []).append(arrow.target)
        linked.setdefault(arrow.target, []).append(arrow.source)
    reached = _walk(path, starts, linked, kinds)
    if reached == len(path):
        names = " → ".join(["the client", *(index.name(kind) for kind in path)])
        return True, f"A request can travel {names}."
    missing = path[reached]
    if not any(kind == missing for kind in kind_of.values()):
        return False, f"No path from the client to the GPU: there is no {index.name(missing)} box."
    after = "the client" if reached == 0 else f"the {index.name(path[reached - 1])}"
    return (
        False,
        f"No path from the client to the GPU: no arrow leads from {after} on to the {index.name(missing)}.",
    )


def _walk(
    path: Sequence[str], starts: Sequence[str], linked: Mapping[str, list[str]], kinds: Mapping[str, str]
) -> int:
    """How many of the path's kinds, in order, a walk from a start can pass through (len(path): all).

    Arrows count either way: a box that pulls its work (a reconciler reading a state store) draws its arrow
    against the request. A box of a later path kind cannot be passed through early; other boxes, and boxes
    of kinds already passed (going back from a lookup), can."""
    first = {kind: position for position, kind in reversed(list(enumerate(path)))}
    frontier = set(starts)
    for done, wanted in enumerate(path):
        found: set[str] = set()
        seen = set(frontier)
        stack = list(frontier)
        while stack:
            for target in linked.get(stack.pop(), ()):
                if target in seen:
                    continue
                seen.add(target)
                kind = kinds.get(target, "")
                if kind == wanted:
                    found.add(target)  # the next step starts here
                elif first.get(kind, -1) <= done:
                    stack.append(target)
        if not found:
            return done
        frontier = found
    return len(path)


# Design consequences of a curveball (docs/question-format.md, "Curveballs").


def box_kinds(reference: ReferenceDesign, boxes: Sequence[Box], index: PaletteIndex) -> dict[str, str]:
    """The palette kind each drawn box counts as (by id; "" for none), as `check_design` reads it."""
    reference_kinds = [box.kind for box in reference.boxes]
    reference_labels = {label_key(box.label): box.kind for box in reference.boxes if box.label}
    return {box.id: _box_kind(box, index, reference_kinds, reference_labels)[0] for box in boxes}


def kind_terms(index: PaletteIndex, kind: str) -> tuple[str, ...]:
    """Every term a box of `kind` can name: its own jobs and failure modes and the common ones."""
    vocabulary = index.vocabulary
    own = vocabulary.kinds.get(kind)
    terms = [
        term.name
        for words in (own, vocabulary.common)
        if words is not None
        for term in (*words.jobs, *words.failures)
    ]
    return tuple(dict.fromkeys(terms))


def check_consequence(
    kind: str,
    names: str,
    boxes: Sequence[Box],
    kinds: Mapping[str, str],
    notes: Mapping[str, str],
    index: PaletteIndex,
) -> dict[str, Any]:
    """Whether the design shows one consequence: a box of `kind` whose job, failure mode or "what changes"
    note (`notes`, by box id) names the term `names`. JSON-ready: met, box_ids, message."""
    kind_name = index.name(kind)
    matched = sorted((box for box in boxes if kinds.get(box.id) == kind), key=_box_sort_key)
    if not matched:
        return {"met": False, "box_ids": [], "message": f"No {kind_name} box in your design."}
    for box in matched:
        text = " ".join(part for part in (box.job, box.failure, notes.get(box.id, "")) if _box_has(part))
        found = (
            *index.vocabulary.recognise(kind, JOB, text),
            *index.vocabulary.recognise(kind, FAILURE, text),
        )
        if names in found:
            return {
                "met": True,
                "box_ids": [box.id],
                "message": f"Your {_box_name(box)} box ({kind_name}) says it: {names}.",
            }
    return {
        "met": False,
        "box_ids": [box.id for box in matched],
        "message": (
            f"Your {_box_name(matched[0])} box ({kind_name}) does not say {names!r} in its job, failure mode "
            "or what-changes note."
        ),
    }
