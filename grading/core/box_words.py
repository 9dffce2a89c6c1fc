"""What a box's job and failure-mode text names: the palette's vocabulary of jobs and failure modes per kind.

Each palette kind lists the jobs it does and the ways it fails, each a name with the phrases people write for
it; a `common` list holds failure modes and jobs any box can have. A text is matched word by word, case-,
plural-, verb-ending- and spacing-insensitive ("Back-pressures" is "backpressure"), a phrase anywhere inside
it, with small typos tolerated: one edit in keys of six to nine letters, and from ten one letter dropped on
each side (a changed letter, or one missing and one added). The distances are rapidfuzz's. Matching is
deterministic: the same text always names the same terms, in vocabulary order.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rapidfuzz.distance import OSA, Indel

JOB = "job"
FAILURE = "failure"
FIELDS = (JOB, FAILURE)
MAX_PHRASE_WORDS = 6
MIN_TYPO_CHARS = 6  # shorter keys must match exactly: "bound" is not "round"
LONG_KEY_CHARS = 10
_REFERENCE_TEXTS = 4096  # reference box texts kept read (the bank has a few hundred)

_NON_WORD = re.compile(r"[^0-9a-z]+")


@functools.lru_cache(maxsize=8192)
def _stem(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        word = word[:-3] + "y"
    elif len(word) > 3 and word.endswith("es") and word[-3] in "sxz":
        word = word[:-2]
    elif len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    if len(word) > 5 and word.endswith("ing"):
        return word[:-3]
    if len(word) > 4 and word.endswith("ed"):
        return word[:-2]
    if len(word) > 4 and word.endswith("e"):
        return word[:-1]  # "queue" and "queued" share "queu"
    return word


def text_words(text: str) -> tuple[str, ...]:
    """Lower-case stemmed words: "Admits past KV capacity" -> ("admit", "past", "kv", "capacity")."""
    return tuple([_stem(word) for word in _NON_WORD.split(text.lower()) if word])


def _heads(key: str) -> tuple[str, ...]:
    """The first three letters of `key` once at most one of its first four is deleted (`key` has four+)."""
    return key[:3], key[1:4], key[0] + key[2:4], key[:2] + key[3]


@dataclass(frozen=True)
class Term:
    """A job or a failure mode: its name, as the report shows it, and the phrases that name it."""

    name: str
    phrases: tuple[str, ...]


@dataclass(frozen=True)
class KindWords:
    """The jobs and failure modes of one palette kind (or the common ones)."""

    jobs: tuple[Term, ...] = ()
    failures: tuple[Term, ...] = ()

    def terms(self, field_name: str) -> tuple[Term, ...]:
        return self.jobs if field_name == JOB else self.failures


@dataclass
class _Matcher:
    """Phrase keys of one kind's terms of one field, for exact and typo-tolerant look-up.

    A window of a text is typo-close to a key when it is within one optimal-string-alignment edit (keys of
    six to nine letters) or one deleted letter each side (ten or more: an indel distance of 2), as rapidfuzz
    measures them. Only keys that can start like the window are measured: two strings one deleted letter each
    side apart share their first three letters once at most one of the first four is deleted (`_heads`), so
    the first four letters of a window, the same for every longer window from the same word, pick the few keys
    that any of those windows could be close to."""

    names: list[str] = field(default_factory=list)
    exact: dict[str, list[int]] = field(default_factory=dict)
    near: dict[str, list[str]] = field(default_factory=dict)  # typo-tolerant keys by each of their `_heads`
    words: set[str] = field(default_factory=set)  # every word of every phrase
    prefixes: set[str] = field(default_factory=set)  # every start of an exact key ("back" of "backpressure")

    def add(self, position: int, phrase: str) -> None:
        phrase_words = text_words(phrase)
        key = "".join(phrase_words)
        if not key:
            return
        self.words.update(phrase_words)
        self.exact.setdefault(key, [])
        if position not in self.exact[key]:
            self.exact[key].append(position)
        self.prefixes.update(key[:end] for end in range(1, len(key) + 1))
        if len(key) >= MIN_TYPO_CHARS:
            for head in set(_heads(key)):
                if key not in self.near.setdefault(head, []):
                    self.near[head].append(key)

    def find(self, text: str) -> tuple[str, ...]:
        words = text_words(text)
        found: set[int] = set()
        exact, prefixes, known = self.exact, self.prefixes, self.words
        for start in range(len(words)):
            key = ""
            unknown = 0  # words no phrase uses: each costs an edit, and a typo may cost two
            near: tuple[str, ...] | None = None  # the typo-tolerant keys that can start like this window
            longest = 0
            for word in words[start : start + MAX_PHRASE_WORDS]:
                key += word
                if word not in known:
                    unknown += 1
                if near is None and len(key) >= 4:
                    near, longest = self._starting_like(key)
                hit = exact.get(key)
                if hit is not None:
                    found.update(hit)
                elif near and unknown <= 2 and len(key) >= MIN_TYPO_CHARS:
                    for phrase in near:
                        if -1 <= len(phrase) - len(key) <= 1 and _close(key, phrase):
                            found.update(exact[phrase])
                # A longer window only adds letters: stop once no exact key starts so and no typo can reach.
                if key not in prefixes and (unknown > 2 or (near is not None and len(key) > longest)):
                    break
        return tuple(self.names[position] for position in sorted(found))

    def _starting_like(self, key: str) -> tuple[tuple[str, ...], int]:
        """The typo-tolerant keys that share one of `_heads(key)`, and the length of the longest."""
        heads = [head for head in _heads(key) if head in self.near]  # mostly none: a list, not a set
        if not heads:
            return (), 0
        near = tuple(dict.fromkeys(phrase for head in heads for phrase in self.near[head]))
        return near, max(map(len, near))


def _close(key: str, phrase: str) -> bool:
    """Whether a window's `key` is a typo of `phrase` (of at most one letter more or less)."""
    if len(key) < LONG_KEY_CHARS:
        return OSA.distance(key, phrase, score_cutoff=1) <= 1
    return Indel.distance(key, phrase, score_cutoff=2) <= 2


class Vocabulary:
    """The palette's jobs and failure modes per kind, plus the common ones, with the palette's version."""

    def __init__(self, kinds: Mapping[str, KindWords], common: KindWords = KindWords(), version: int = 0):
        self.kinds = dict(kinds)
        self.common = common
        self.version = version
        self._matchers: dict[tuple[str, str], _Matcher] = {}
        self._reference: dict[tuple[str, str, str], tuple[str, ...]] = {}

    def knows(self, kind: str) -> bool:
        """Whether the vocabulary lists jobs and failure modes for `kind`."""
        words = self.kinds.get(kind)
        return bool(words and words.jobs and words.failures)

    def _matcher(self, kind: str, field_name: str) -> _Matcher:
        cached = self._matchers.get((kind, field_name))
        if cached is None:
            cached = _Matcher()
            own = self.kinds.get(kind, KindWords()).terms(field_name)
            for term in (*own, *self.common.terms(field_name)):  # a common term a kind names too: one term
                if term.name not in cached.names:
                    cached.names.append(term.name)
                for phrase in (term.name, *term.phrases):
                    cached.add(cached.names.index(term.name), phrase)
            self._matchers[(kind, field_name)] = cached
        return cached

    def recognise(self, kind: str, field_name: str, text: str) -> tuple[str, ...]:
        """The names of the kind's (and the common) terms of `field_name` ("job" or "failure") that `text`
        names, in vocabulary order; () for blank or unrecognisable text."""
        if not text or not text.strip():
            return ()
        return self._matcher(kind, field_name).find(text[:2000])

    def recognise_reference(self, kind: str, field_name: str, text: str) -> tuple[str, ...]:
        """`recognise` for a question's own reference box, whose text comes back on every grading of the
        question: read once per vocabulary (the reference designs are few and fixed)."""
        key = (kind, field_name, text)
        found = self._reference.get(key)
        if found is None:
            if len(self._reference) >= _REFERENCE_TEXTS:
                self._reference.clear()
            found = self._reference[key] = self.recognise(kind, field_name, text)
        return found

    def example(self, kind: str, field_name: str) -> str:
        """A term of the kind to quote when a text names nothing ("" when the kind has none)."""
        words = self.kinds.get(kind)
        terms = (words.terms(field_name) if words else ()) or self.common.terms(field_name)
        return terms[0].name if terms else ""


def read_terms(value: object, where: str, problems: list[tuple[str, str]]) -> tuple[Term, ...]:
    """Terms from the palette file's form `{name: [phrase, ...]}` (a name with no phrases may map to [])."""
    if value is None:
        return ()
    if not isinstance(value, Mapping):
        problems.append((where, "must map each name to a list of phrases"))
        return ()
    terms = []
    for name, phrases in value.items():
        phrases = [] if phrases is None else phrases
        if not isinstance(name, str) or not name.strip():
            problems.append((where, f"{name!r} is not a name"))
        elif not isinstance(phrases, list) or not all(isinstance(p, str) and p.strip() for p in phrases):
            problems.append((f"{where}.{name}", "must be a list of phrases"))
        else:
            terms.append(Term(name.strip(), tuple(p.strip() for p in phrases)))
    return tuple(terms)


def vocabulary_from(
    components: Iterable[object], common: KindWords = KindWords(), version: int = 0
) -> Vocabulary:
    """A Vocabulary from palette components that carry `jobs` and `failures` term tuples (or dicts)."""
    kinds: dict[str, KindWords] = {}
    for component in components:

        def get(key: str, c: object = component) -> Any:
            return c.get(key) if isinstance(c, Mapping) else getattr(c, key, ())

        jobs, failures = get("jobs") or (), get("failures") or ()
        kinds[get("kind")] = KindWords(_terms(jobs), _terms(failures))
    return Vocabulary(kinds, common, version)


def _terms(items: Sequence[object] | Mapping[str, Sequence[str]]) -> tuple[Term, ...]:
    if isinstance(items, Mapping):
        return tuple(Term(name, tuple(phrases or ())) for name, phrases in items.items())
    return tuple(item if isinstance(item, Term) else Term(str(item), ()) for item in items)


def edit_distance(a: str, b: str, limit: int) -> int:
    """Optimal-string-alignment distance between `a` and `b` (swapping neighbours is one edit), or
    `limit + 1` when it exceeds `limit` (rapidfuzz's OSA)."""
    return OSA.distance(a, b, score_cutoff=limit)
