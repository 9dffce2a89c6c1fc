"""Design-review rounds: the candidate's failure marks and ranked fixes checked against the planted flaws.

A review question (`kind: review`, docs/question-format.md) gives a design with planted flaws. The candidate
marks failure paths on it (`design.marks = [{target: node id | "a->b", what, how}]`), writes an ordered list
of fixes (`fixes = [{text, category}]`) and may edit the design and its numbers. `grade_review` grades all of
it on top of the ordinary report of `grading.core.grader.grade`. Pure Python: no Django.

Matching a mark to a flaw needs both:
- the component: the mark's box or arrow resolves to palette kinds the way the design check reads boxes
  (`grading.core.design_check`: by kind, else by the given design's own label, else by the palette's names and
  synonyms with small typos). A flaw on a box (palette kind or node id) is matched by a mark on a box of that
  kind or id, or on an arrow touching it; a flaw on an arrow "a->b" by a mark on that arrow (either
  direction, by ids or by the kinds at its ends) or on one of its two boxes;
- the kind of failure: the mark's "what fails" and "how it shows" text contains a phrase of the flaw kind's
  vocabulary (`FLAW_VOCABULARY`), compared lower-case on whole-word starts ("preempt" matches "preempted").
  The words of the kind's own name always count, so a kind missing from the table still matches its name.

Each mark finds at most one flaw (a mark is one failure path); marks and flaws are paired by a maximum
matching, earliest mark and flaw first, so the result does not depend on luck. A mark that fits a flaw
already found by another mark is a duplicate; a mark that fits no flaw is a false alarm.

Ranking: every fix tagged `infrastructure` must come after every fix tagged `correctness`, `admission` or
`placement` (more hardware would inherit every flaw the other fixes remove).

Two sheets: the analysis of the given design (`numbers`, graded by the engine against the given design) and
the fixed design's numbers (`fixed`: the review's fix lines, `review.fix` in the question file, opening on the
given design's values). The fixed sheet alone sizes the fleet replayed as "fixed"; a submission without one
(from before the two sheets) replays its numbers as before.

Replays: every scenario of the question is simulated over the same seeds on three sides: the given design (the
model at its defaults, or the variant), the candidate's fixed design (the model with their fixed sheet) and
the reference fix (the model with the review's fix values). The fixed design meets the deadline when each
scenario's SLO holds on the candidate side in every run. Its failure score (`grading.core.failure_modes`)
compares it with the reference fix, never with the given design: the SLOs met, and its cost against the
reference fix's.

Score (0–100) of the review, with these weights:

| part      | weight | what earns it                                                        |
| --------- | ------ | -------------------------------------------------------------------- |
| flaws     | 0.45   | planted flaws found / planted flaws                                  |
| precision | 0.15   | marks that found a flaw / marks that found a flaw or were false alarms (1 with none) |
| ranking   | 0.15   | 1 when no infrastructure fix comes before another kind; 0 otherwise or with no fixes |
| replays   | 0.25   | the failure score / 100: runs that met the SLO, cost against the reference fix's |

The engine grades the numbers only (the given design is its own reference design, so the design check would
grade nothing but the failure texts the candidate is meant to leave to the marks). The round's overall score
is `REVIEW_SHARE` (0.6) × the review score + 0.4 × the engine's overall score, or the review score alone when
the engine scored nothing.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grading.core.design_check import (
    DEFAULT_PALETTE_PATH,
    PaletteIndex,
    _box_kind,  # the design check's own reading of a box: one rule for both checks
    label_key,
    load_index,
)
from grading.core.failure_modes import failure_report, runs_view
from grading.core.model import ReferenceModel
from grading.core.quantity_text import ParseFailure, read_value
from grading.core.question_export import spec_to_dict
from grading.core.question_reader import parse_question
from grading.core.question_types import CLIENT_KIND, Flaw, QuestionSpec
from grading.core.replay_inputs import replay_inputs, replay_seeds, simulator_args
from grading.core.report_text import format_quantity, format_unit
from grading.core.sim.seeds import DEFAULT_SEEDS
from grading.core.submission import Box, SubmissionError, read_submission
from grading.core.units import UnitError, from_base, parse_unit
from grading.core.vocabulary import FIX_CATEGORIES

INFRASTRUCTURE = "infrastructure"
MAX_FIXES = 20
MAX_FIX_TEXT = 300
WEIGHTS = {"flaws": 0.45, "precision": 0.15, "ranking": 0.15, "replays": 0.25}
REVIEW_SHARE = 0.6

FOUND, DUPLICATE, FALSE_ALARM = "found", "duplicate", "false_alarm"
TONES = {FOUND: "correct", DUPLICATE: "warn", FALSE_ALARM: "bad"}  # CSS: verdict-correct, -warn, -bad

# What people write for each kind of failure, " | " between phrases; matched on word starts, lower-case.
_VOCABULARY_TEXT = {
    "unbounded_queue": (
        "unbounded | no limit | no bound | without bound | without limit | grows without | "
        "grows forever | queue grows | queue explodes | queue blows up | infinite queue | "
        "unlimited | no cap | no max | backlog grows | queueing collapse | queue limit | "
        "bound the queue | fifo grows"
    ),
    "no_deadline_rejection": (
        "deadline | timeout | time out | times out | reject | shed | already late | too late | "
        "retry after | retry-after | expired | stale request | waited too long | "
        "admission control"
    ),
    "kv_overcommit": (
        "kv | key value cache | out of memory | oom | preempt | cache full | memory full | hbm | "
        "evict | recompute | overcommit | over commit | batch too big | batch too large | "
        "does not fit | doesn't fit | not fit"
    ),
    "cross_node_tp": (
        "tensor parallel | tp8 | tp 8 | tp across | across nodes | across servers | "
        "across two servers | cross node | cross server | inter node | inter server | all reduce | "
        "allreduce | interconnect | ethernet | nvlink | 100 gb | network bound | slow link"
    ),
    "slow_client_stall": (
        "slow client | slow reader | slow consumer | stalled client | block | stall | synchronous | "
        "sync write | back pressure | backpressure | socket | head of line"
    ),
    "unconstrained_output": (
        "json | schema | invalid output | malformed | parse | constrained decoding | validat | "
        "structured output | grammar | whole request retry | regenerat"
    ),
    "single_replica": (
        "single point of failure | spof | one replica | single replica | redundan | failover | "
        "fail over | lose a server | loses a server | server loss | failure domain | one server | "
        "no headroom | headroom"
    ),
    "checkpoint_interval": (
        "checkpoint | ckpt | lose a day | loses a day | lost work | lose work | rollback | "
        "roll back | interval | infrequent | young | daly | redo | recompute"
    ),
    "no_spares": (
        "spare | no spare | repair | wait for repair | waits for repair | replacement | hot spare | "
        "replace the node | capacity to restart"
    ),
    "slow_restart": (
        "restart | slow restart | reload | recovery time | time to recover | detect | reschedul | "
        "cold start | startup | start up | mttr"
    ),
    "slow_checkpoint_write": (
        "checkpoint write | write stall | storage bandwidth | slow storage | write bandwidth | "
        "stall | async checkpoint | asynchronous checkpoint"
    ),
    "masked_outage": (
        "mask | hide | hidden | silent | unnoticed | no alert | not alert | never alert | no page | "
        "looks healthy | green | monitor | observab | alarm | nobody notices | no one notices | "
        "goes unnoticed | undetected"
    ),
    "fallback_undersized": (
        "fallback | fall back | quota | undersized | too small | saturat | overflow | capacity | "
        "rate limit | 429"
    ),
    "retry_storm": (
        "retry | retries | retry storm | amplif | thundering herd | multipl | load multiplies | "
        "duplicate requests | backoff | back off"
    ),
}
FLAW_VOCABULARY: dict[str, tuple[str, ...]] = {
    kind: tuple(phrase.strip() for phrase in text.split("|")) for kind, text in _VOCABULARY_TEXT.items()
}


def _normalise(text: str) -> str:
    return " " + " ".join(re.split(r"[^0-9a-z]+", text.lower())).strip() + " "


def kind_phrases(kind: str) -> tuple[str, ...]:
    """The phrases that name a flaw kind: its vocabulary and the words of its own name."""
    return (*FLAW_VOCABULARY.get(kind, ()), kind.replace("_", " "))


def text_names_kind(text: str, kind: str) -> bool:
    """Whether `text` names the failure `kind`: a phrase of its vocabulary starts a word of the text."""
    haystack = _normalise(text)
    for phrase in kind_phrases(kind):
        needle = _normalise(phrase).rstrip()
        if needle.strip() and needle in haystack:
            return True
    return False


_LABEL_WORDS = {
    "kv": "KV", "tp": "TP", "pp": "PP", "gpu": "GPU", "gpus": "GPUs", "slo": "SLO", "hbm": "HBM",
    "dram": "DRAM", "nvme": "NVMe", "ttft": "TTFT", "tpot": "TPOT", "api": "API", "lora": "LoRA",
    "cpu": "CPU", "oom": "OOM",
    "nvlink": "NVLink", "rdma": "RDMA", "ib": "InfiniBand",
}  # fmt: skip
_LABEL_PAIRS = {
    ("cross", "node"): "cross-node",
    ("cross", "region"): "cross-region",
    ("single", "point"): "single-point",
}


def kind_label(kind: str) -> str:
    """The kind as words: "unbounded_queue" -> "Unbounded queue", "kv_overcommit" -> "KV overcommit",
    "cross_node_tp" -> "Cross-node TP"."""
    words: list[str] = []
    for word in kind.strip("_").split("_"):
        if words and (words[-1], word) in _LABEL_PAIRS:
            words[-1] = _LABEL_PAIRS[(words[-1], word)]
        else:
            words.append(_LABEL_WORDS.get(word.lower(), word))
    text = " ".join(words)
    return text[:1].upper() + text[1:]


# Where a mark or a flaw sits.


@dataclass(frozen=True)
class Place:
    """A box (ids and kinds have one entry) or an arrow (two: its ends), with the palette kind of each end."""

    ids: tuple[str, ...]
    kinds: tuple[str, ...]

    @property
    def is_arrow(self) -> bool:
        return len(self.ids) == 2


def _split_arrow(target: str) -> tuple[str, str] | None:
    source, arrow, end = target.partition("->")
    return (source.strip(), end.strip()) if arrow else None


class _Resolver:
    """Turns node ids into palette kinds: the candidate's boxes read as the design check reads them, and the
    given design's nodes as written."""

    def __init__(self, spec: QuestionSpec, boxes: Sequence[Box], index: PaletteIndex):
        self.given = {node.id: node.kind for node in spec.design.nodes}
        self.given_names = {node.id: node.label or index.name(node.kind) for node in spec.design.nodes}
        reference_kinds = [node.kind for node in spec.design.nodes]
        reference_labels = {label_key(node.label): node.kind for node in spec.design.nodes if node.label}
        self.drawn: dict[str, str] = {}
        self.drawn_names: dict[str, str] = {}
        for box in boxes:
            kind, _ = _box_kind(box, index, reference_kinds, reference_labels)
            self.drawn[box.id] = kind
            self.drawn_names[box.id] = box.label.strip() or index.name(kind or box.kind or box.id)
        self.index = index

    def kind(self, node_id: str) -> str:
        if node_id == CLIENT_KIND:
            return CLIENT_KIND
        return self.drawn.get(node_id) or self.given.get(node_id, "")

    def name(self, node_id: str) -> str:
        if node_id == CLIENT_KIND:
            return "client"
        return self.drawn_names.get(node_id) or self.given_names.get(node_id) or node_id

    def mark_place(self, target: str) -> Place:
        ends = _split_arrow(target)
        ids = ends if ends else (target.strip(),)
        return Place(ids, tuple(self.kind(node_id) for node_id in ids))

    def place_name(self, place: Place) -> str:
        return " → ".join(self.name(node_id) for node_id in place.ids)


def flaw_place(flaw: Flaw, spec: QuestionSpec) -> Place:
    """Where a planted flaw sits: an arrow between two node ids, one node id, or every node of a kind."""
    kinds = {node.id: node.kind for node in spec.design.nodes}
    kinds[CLIENT_KIND] = CLIENT_KIND
    ends = _split_arrow(flaw.component)
    if ends:
        return Place(ends, tuple(kinds.get(node_id, "") for node_id in ends))
    if flaw.component in kinds:
        return Place((flaw.component,), (kinds[flaw.component],))
    return Place(("",), (flaw.component,))  # a palette kind: any box of it


def _box_matches(mark_id: str, mark_kind: str, flaw_id: str, flaw_kind: str) -> bool:
    if flaw_id and mark_id == flaw_id:
        return True
    return bool(mark_kind) and mark_kind == flaw_kind and mark_kind != CLIENT_KIND


def place_matches(mark: Place, flaw: Place) -> bool:
    """Whether a mark sits where the flaw is (see the module docstring for the tolerance)."""
    if flaw.is_arrow and mark.is_arrow:
        for a, b in ((0, 1), (1, 0)):
            if all(
                _box_matches(mark.ids[i], mark.kinds[i], flaw.ids[j], flaw.kinds[j])
                for i, j in ((0, a), (1, b))
            ):
                return True
        return False
    if flaw.is_arrow:  # a box at one end of the flawed arrow
        return any(_box_matches(mark.ids[0], mark.kinds[0], flaw.ids[j], flaw.kinds[j]) for j in (0, 1))
    # a flawed box: the mark is on it, or on an arrow touching it
    return any(
        _box_matches(mark.ids[i], mark.kinds[i], flaw.ids[0], flaw.kinds[0]) for i in range(len(mark.ids))
    )


# Marks.


@dataclass(frozen=True)
class Mark:
    target: str
    what: str
    how: str


def read_marks(design: object) -> list[Mark]:
    """The failure marks of a submitted design; entries that are not {target, what, how} text are skipped."""
    raw = design.get("marks") if isinstance(design, Mapping) else None
    marks = []
    for item in raw if isinstance(raw, list) else []:
        if not isinstance(item, Mapping):
            continue
        target, what, how = (item.get(key, "") for key in ("target", "what", "how"))
        if isinstance(target, str) and target.strip() and isinstance(what, str) and isinstance(how, str):
            marks.append(Mark(target.strip(), what.strip(), how.strip()))
    return marks


def read_fixes(raw: object) -> list[dict[str, str]]:
    """The ranked fixes in order, as {text, category}; one without text or a known category is dropped."""
    fixes = []
    for item in raw if isinstance(raw, list) else []:
        if not isinstance(item, Mapping):
            continue
        text, category = item.get("text"), item.get("category")
        if isinstance(text, str) and text.strip() and category in FIX_CATEGORIES:
            fixes.append({"text": text.strip()[:MAX_FIX_TEXT], "category": category})
    return fixes[:MAX_FIXES]


def _pair(candidates: Sequence[Sequence[int]], flaw_count: int) -> dict[int, int]:
    """A maximum matching of marks to flaws (mark index -> flaw index), earliest first (Kuhn's algorithm)."""
    owner: dict[int, int] = {}  # flaw -> mark

    def assign(mark: int, seen: set[int]) -> bool:
        for flaw in candidates[mark]:
            if flaw in seen:
                continue
            seen.add(flaw)
            if flaw not in owner or assign(owner[flaw], seen):
                owner[flaw] = mark
                return True
        return False

    for mark in range(len(candidates)):
        assign(mark, set())
    return {mark: flaw for flaw, mark in owner.items()}


def _flaw_place_name(flaw: Flaw, place: Place, resolver: _Resolver) -> str:
    if place.ids != ("",):
        return resolver.place_name(place)
    boxes = [node_id for node_id, kind in resolver.given.items() if kind == flaw.component]
    return " and ".join(resolver.given_names[node_id] for node_id in boxes) or resolver.index.name(
        flaw.component
    )


def check_marks(
    spec: QuestionSpec, marks: Sequence[Mark], boxes: Sequence[Box], index: PaletteIndex
) -> dict[str, Any]:
    """Pair the candidate's marks with the planted flaws: found and missed flaws, duplicates, false alarms."""
    flaws = spec.review.flaws if spec.review else ()
    resolver = _Resolver(spec, boxes, index)
    flaw_places = [flaw_place(flaw, spec) for flaw in flaws]
    mark_places = [resolver.mark_place(mark.target) for mark in marks]
    candidates: list[list[int]] = []
    right_kind_elsewhere: list[list[int]] = []
    for mark, place in zip(marks, mark_places, strict=True):
        text = f"{mark.what} {mark.how}"
        named = [i for i, flaw in enumerate(flaws) if text_names_kind(text, flaw.kind)]
        candidates.append([i for i in named if place_matches(place, flaw_places[i])])
        right_kind_elsewhere.append([i for i in named if i not in candidates[-1]])
    paired = _pair(candidates, len(flaws))
    found_by = {flaw: mark for mark, flaw in paired.items()}
    mark_rows = []
    for position, (mark, place) in enumerate(zip(marks, mark_places, strict=True)):
        where = resolver.place_name(place)
        if position in paired:
            flaw = flaws[paired[position]]
            verdict, flaw_id = FOUND, flaw.id
            message = f"Found the planted flaw on {where}: {kind_label(flaw.kind).lower()}."
        elif candidates[position]:
            flaw = flaws[candidates[position][0]]
            verdict, flaw_id = DUPLICATE, flaw.id
            message = f"Another mark already found this flaw ({kind_label(flaw.kind).lower()})."
        else:
            verdict, flaw_id = FALSE_ALARM, None
            if right_kind_elsewhere[position]:
                other = right_kind_elsewhere[position][0]
                message = (
                    f"No planted flaw of this kind on {where}; {kind_label(flaws[other].kind).lower()} was "
                    f"planted on {_flaw_place_name(flaws[other], flaw_places[other], resolver)}."
                )
            else:
                message = f"No planted flaw on {where} matches what this mark describes."
        mark_rows.append(
            {
                "position": position + 1,
                "target": mark.target,
                "target_name": where,
                "what": mark.what,
                "how": mark.how,
                "verdict": verdict,
                "tone": TONES[verdict],
                "flaw": flaw_id,
                "message": message,
            }
        )
    flaw_rows = []
    for i, (flaw, place) in enumerate(zip(flaws, flaw_places, strict=True)):
        where = _flaw_place_name(flaw, place, resolver)
        flaw_rows.append(
            {
                "id": flaw.id,
                "component": flaw.component,
                "component_name": where,
                "kind": flaw.kind,
                "kind_label": kind_label(flaw.kind),
                "fix_category": flaw.fix_category,
                "scenario": flaw.scenario,
                "description": flaw.description,
                "found": i in found_by,
                "mark": found_by[i] + 1 if i in found_by else None,
            }
        )
    return {
        "flaws": flaw_rows,
        "marks": mark_rows,
        "found": [row["id"] for row in flaw_rows if row["found"]],
        "missed": [row["id"] for row in flaw_rows if not row["found"]],
        "false_alarms": sum(row["verdict"] == FALSE_ALARM for row in mark_rows),
        "duplicates": sum(row["verdict"] == DUPLICATE for row in mark_rows),
    }


def check_ranking(fixes: Sequence[Mapping[str, str]]) -> dict[str, Any]:
    """Whether every infrastructure fix comes after every correctness, admission and placement fix."""
    rows: list[dict[str, Any]] = [{"position": i + 1, **fix} for i, fix in enumerate(fixes)]
    if not rows:
        return {"ok": False, "verdict": "no_fixes", "message": "No fixes were listed.", "fixes": rows}
    last_other = max((row["position"] for row in rows if row["category"] != INFRASTRUCTURE), default=0)
    early = [row for row in rows if row["category"] == INFRASTRUCTURE and row["position"] < last_other]
    if early:
        first = early[0]
        message = (
            f"Fix {first['position']} adds new infrastructure before fix {last_other}, which is "
            f"{next(r for r in rows if r['position'] == last_other)['category']}: more hardware first would "
            "inherit every flaw the other fixes remove."
        )
        return {"ok": False, "verdict": "infrastructure_first", "message": message, "fixes": rows}
    message = "Correctness, admission and placement fixes come before any new infrastructure."
    return {"ok": True, "verdict": "ok", "message": message, "fixes": rows}


# The fixed design's sheet.

FIXED_PREFIX = "fixed--"  # a fixed-sheet line's key among a round's saved numbers ("fixed--replicas")
FIX_SIDE = "fix"  # the reference fix's side of the replays


def sheet_text(value: float, unit: str) -> str:
    """A display value as the sheet writes it: "67 req", "6 s", "0.7" (exact, not rounded for reading); a
    design's limit that is not there is "no limit", which the sheet reads back as that value (issue 30)."""
    if value == math.inf:
        return "no limit"
    shown = str(int(value)) if float(value).is_integer() and abs(value) < 1e15 else f"{value:.10g}"
    return f"{shown} {format_unit(unit)}" if unit else shown


def fix_lines(spec_dict: Mapping[str, Any]) -> list[dict[str, str]]:
    """The review's fix lines as stored ({name, value, label?}); [] for a question without them."""
    return list(((spec_dict.get("review") or {}).get("fix")) or [])


def _fix_sheet(
    spec_dict: Mapping[str, Any], variant_values: Mapping[str, float] | None, *, reference: bool
) -> dict[str, str]:
    lines = fix_lines(spec_dict)
    if not lines:
        return {}
    model = ReferenceModel.from_dict(spec_dict["model"])
    values = model.evaluate(
        {name: float(value) for name, value in (variant_values or {}).items() if name in model.quantities}
    )
    sheet = {}
    for line in lines:
        name, unit = line["name"], model.quantities[line["name"]].unit
        source = line["value"] if reference else name
        if source in model.quantities:
            sheet[name] = sheet_text(float(model.display_value(name, values[source])), unit)
        else:
            sheet[name] = str(source)
    return sheet


def given_fixed_sheet(
    spec_dict: Mapping[str, Any], variant_values: Mapping[str, float] | None = None
) -> dict[str, str]:
    """The fixed sheet as a round opens it: each fix line at the given design's value (at the variant)."""
    return _fix_sheet(spec_dict, variant_values, reference=False)


def reference_fix_numbers(
    spec_dict: Mapping[str, Any], variant_values: Mapping[str, float] | None = None
) -> dict[str, str]:
    """The reference fix as a fixed sheet: {name: text}, a quantity-named value evaluated at the variant."""
    return _fix_sheet(spec_dict, variant_values, reference=True)


def fixed_sheet_rows(
    spec_dict: Mapping[str, Any], fixed: Mapping[str, str], variant_values: Mapping[str, float] | None = None
) -> list[dict[str, str]]:
    """The report's view of the fixed sheet: per fix line its label and unit, the given design's value, the
    candidate's (as typed; the given value when left out) and the reference fix's."""
    lines = fix_lines(spec_dict)
    if not lines:
        return []
    given = given_fixed_sheet(spec_dict, variant_values)
    reference = reference_fix_numbers(spec_dict, variant_values)
    quantities = {q["name"]: q for q in spec_dict["model"]["quantities"]}
    rows = []
    for line in lines:
        name = line["name"]
        typed = fixed.get(name, "")
        rows.append(
            {
                "name": name,
                "label": line.get("label") or quantities[name].get("label", name),
                "unit": quantities[name].get("unit", ""),
                "given": _shown(given[name], quantities[name].get("unit", "")),
                "yours": typed if isinstance(typed, str) and typed.strip() else given[name],
                "reference": _shown(reference[name], quantities[name].get("unit", "")),
            }
        )
    return rows


def _shown(text: str, unit: str) -> str:
    """Sheet text as the report writes a value ("109 req", "1M req"); text that does not read stays."""
    try:
        parsed = parse_unit(unit)
    except UnitError:
        return text
    value = read_value(text, parsed)
    if isinstance(value, ParseFailure) or not math.isfinite(value):
        return text
    return format_quantity(float(from_base(value, parsed)), unit)


def split_sheets(numbers: Mapping[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """A round's saved numbers as (the analysis sheet, the fixed sheet without its key prefix)."""
    analysis = {name: text for name, text in numbers.items() if not name.startswith(FIXED_PREFIX)}
    fixed = {
        name.removeprefix(FIXED_PREFIX): text
        for name, text in numbers.items()
        if name.startswith(FIXED_PREFIX)
    }
    return analysis, fixed


# Replays.


def review_replays(
    spec_dict: Mapping[str, Any],
    numbers: Mapping[str, str],
    *,
    overrides: Mapping[str, float] | None = None,
    seed_key: str | int | None = None,
    seed_count: int = DEFAULT_SEEDS,
) -> dict[str, Any]:
    """Every scenario run on the given design (reference side), on the fixed design (candidate side, from
    `numbers`: the fixed sheet) and on the reference fix, once per seed (`seed_count` seeds, the same on every
    side); with the fixed design's failure score against the reference fix."""
    key = seed_key if seed_key is not None else spec_dict.get("slug", "")
    variant = dict(overrides or {}) or None
    fix = reference_fix_numbers(spec_dict, variant)
    given_side = replay_inputs(spec_dict, side="reference", variant_values=variant)
    fixed_side = replay_inputs(spec_dict, side="candidate", numbers=numbers, variant_values=variant)
    fix_side = replay_inputs(spec_dict, side="candidate", numbers=fix, variant_values=variant) if fix else []
    rows: list[dict[str, Any]] = []
    fixed_runs: dict[str, dict[str, Any]] = {}
    fix_runs: dict[str, dict[str, Any]] = {}
    for index, (given, fixed) in enumerate(zip(given_side, fixed_side, strict=True)):
        seeds = replay_seeds(key, given["scenario"], seed_count)
        fixed_runs[given["scenario"]] = _run_entry(fixed, seeds)
        if fix_side:
            fix_runs[given["scenario"]] = _run_entry(fix_side[index], seeds)
        rows.append(
            {
                "scenario": given["scenario"],
                "title": given["title"],
                "given": review_side(_run_entry(given, seeds)),
                "fixed": review_side(fixed_runs[given["scenario"]]),
                **({"reference_fix": review_side(fix_runs[given["scenario"]])} if fix_runs else {}),
                "fallbacks": fixed.get("fallbacks") or {},
            }
        )
    titles = {row["scenario"]: row["title"] for row in rows}
    return review_replays_summary(rows, fixed_failure_report(fixed_runs, fix_runs or None, titles=titles))


def fixed_failure_report(
    fixed: Mapping[str, Mapping[str, Any] | None],
    reference_fix: Mapping[str, Mapping[str, Any] | None] | None,
    *,
    titles: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The fixed design's failure score and reasons: against the reference fix's runs (its SLOs met, its
    cost), or against the SLOs alone when the question has no reference fix. A side stored as {"error": why}
    (the simulator refused the candidate's numbers) scores 0."""
    return failure_report(fixed, reference_fix, titles=titles, reference_name="the reference fix")


def _run_entry(entry: Mapping[str, Any], seeds: Sequence[int]) -> dict[str, Any]:
    """One side's runs as stored (SeedRuns.to_dict()), or {"error": why} when the inputs are refused."""
    from grading.core.sim import run_scenario_seeds

    try:
        runs = run_scenario_seeds(*simulator_args(entry), seeds)
    except ValueError as error:
        return {"error": str(error)}
    return runs.to_dict()


def review_side(result: Mapping[str, Any] | None, error: str = "") -> dict[str, Any]:
    """A review's view of one side's runs: the runs that met the SLO (passed: all of them) and each SLO check
    in words with its median actual and the runs that met it, or why it could not run (a run that could not
    run does not meet its SLO)."""
    why = error or (result or {}).get("error", "")
    view = runs_view(result) if not why else None
    if view is None or not view["runs"]:
        return {
            "passed": False,
            "met": 0,
            "runs": 0,
            "slo_checks": [],
            "error": why or "The replay did not run.",
        }
    checks = [
        {
            "key": check["key"],
            "target": check["target"],
            "actual": check["median"],
            "words": check["words"],
            "actual_words": check["median_words"]
            + (f" (median; {check['range_words']} over the runs)" if check["range_words"] else ""),
            **({"reason": check["reason"]} if check["reason"] else {}),
            "passed": check["met"] == check["runs"],
            "met": check["met"],
            "runs": check["runs"],
        }
        for check in view["checks"]
    ]
    return {"passed": view["passed"], "met": view["met"], "runs": view["runs"], "slo_checks": checks}


def review_replays_summary(
    rows: Sequence[Mapping[str, Any]], failure: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The replays section of a review from its rows ({scenario, title, given, fixed, reference_fix?,
    fallbacks}) and the fixed design's failure report (`fixed_failure_report`)."""
    rows = list(rows)
    met = sum(row["fixed"]["passed"] for row in rows)
    shares = [
        row["fixed"].get("met", 0) / row["fixed"]["runs"] if row["fixed"].get("runs") else 0.0 for row in rows
    ]
    return {
        "scenarios": rows,
        "fixed_meets": bool(rows) and met == len(rows),
        "fixed_met": met,
        "fixed_run_share": round(sum(shares), 4),
        "given_failed": sum(not row["given"]["passed"] for row in rows),
        "total": len(rows),
        "reference_fix": any("reference_fix" in row for row in rows),
        **({"failure": dict(failure)} if failure is not None else {}),
    }


# The whole review.


def _spec_and_dict(question: QuestionSpec | Mapping[str, Any]) -> tuple[QuestionSpec, dict[str, Any]]:
    if isinstance(question, QuestionSpec):
        return question, spec_to_dict(question)
    slug = question.get("slug")
    spec = parse_question(dict(question), source=slug if isinstance(slug, str) else "")
    return spec, dict(question)


def review_score(
    marks: Mapping[str, Any], ranking: Mapping[str, Any], replays: Mapping[str, Any]
) -> dict[str, Any]:
    """The review's part scores (0–1) and its score (0–100), weighted by WEIGHTS; while the replays are
    pending their part and the score are None."""
    total = len(marks["flaws"])
    found = len(marks["found"])
    flagged = found + marks["false_alarms"]
    parts: dict[str, float | None] = {
        "flaws": found / total if total else 1.0,
        "precision": found / flagged if flagged else 1.0,
        "ranking": 1.0 if ranking["ok"] else 0.0,
        "replays": None if replays.get("pending") else _replays_part(replays),
    }
    rounded = {part: None if value is None else round(value, 4) for part, value in parts.items()}
    if parts["replays"] is None:
        return {**rounded, "review": None}
    score = 100.0 * sum(WEIGHTS[part] * value for part, value in parts.items() if value is not None)
    return {**rounded, "review": round(score, 1)}


def _replays_part(replays: Mapping[str, Any]) -> float:
    """The replays' part (0–1): the fixed design's failure score / 100; from before the failure score, the
    share of the fixed design's runs that met their SLO."""
    score = (replays.get("failure") or {}).get("score")
    if score is not None:
        return float(score) / 100
    if not replays["total"]:
        return 1.0
    return float(replays.get("fixed_run_share", replays["fixed_met"])) / float(replays["total"])


def review_replays_pending(spec_dict: Mapping[str, Any]) -> dict[str, Any]:
    """The replays section of a review whose replays run later (as background jobs)."""
    total = len(spec_dict.get("scenarios") or [])
    return {
        "pending": True,
        "scenarios": [],
        "fixed_meets": False,
        "fixed_met": 0,
        "given_failed": 0,
        "total": total,
    }


def review_with_replays(report: Mapping[str, Any], replays: Mapping[str, Any]) -> dict[str, Any]:
    """A graded review report with its replays section set to `replays`, and its scores worked out again."""
    review = dict(report["review"])
    scores = review_score(review, review["ranking"], replays)
    engine = review["engine_overall"]
    if scores["review"] is None:
        overall = None
    elif engine is None:
        overall = scores["review"]
    else:
        overall = round(REVIEW_SHARE * scores["review"] + (1 - REVIEW_SHARE) * engine, 1)
    review.update({"replays": dict(replays), "scores": scores})
    return {
        **report,
        "scores": {**report["scores"], "review": scores["review"], "overall": overall},
        "review": review,
    }


def read_fixed_sheet(raw: object) -> dict[str, str]:
    """A submission's fixed sheet ({name: text}), checked as numbers are; {} when there is none."""
    if raw is None:
        return {}
    try:
        return dict(read_submission({"numbers": raw}).numbers)
    except SubmissionError as error:
        raise SubmissionError(
            [(f"fixed{field[len('numbers') :]}", why) for field, why in error.problems]
        ) from None


def grade_review(
    question: QuestionSpec | Mapping[str, Any],
    submission: Mapping[str, Any],
    overrides: Mapping[str, float] | None = None,
    *,
    palette: PaletteIndex | str | Path | None = None,
    seed_key: str | int | None = None,
    version: int | None = None,
    run_replays: bool = True,
    seed_count: int = DEFAULT_SEEDS,
) -> dict[str, Any]:
    """Grade a review round: `grading.core.grader.grade`'s report plus a `review` section, and the overall
    score combined from both (see the module docstring). `submission` is the ordinary one plus `fixes` and the
    canvas's `design.marks`. A question without a review block is graded by `grade` alone.

    Each scenario runs over `seed_count` seeds on both sides. With `run_replays` False the replays are left
    pending (they run as background jobs): the review and
    overall scores are None until `review_with_replays` fills them in.
    """
    from grading.core.grader import grade
    from grading.core.submission import read_submission

    spec, spec_dict = _spec_and_dict(question)
    graded = {key: value for key, value in submission.items() if key not in ("fixes", "fixed")}
    if spec.review is None:
        return grade(question, graded, overrides=overrides, palette=palette, version=version)
    checked = read_submission(graded)
    # The given design is the reference design, so the design check would only count the failure texts left
    # blank on purpose: in a review the marks are the shape of the answer, and the engine grades the numbers.
    report = grade(
        question,
        {key: value for key, value in graded.items() if key != "design"},
        overrides=overrides,
        version=version,
    )
    index = palette if isinstance(palette, PaletteIndex) else load_index(palette or DEFAULT_PALETTE_PATH)
    marks = check_marks(spec, read_marks(submission.get("design")), checked.boxes or (), index)
    ranking = check_ranking(read_fixes(submission.get("fixes")))
    numbers = {name: text for name, text in checked.numbers.items() if isinstance(text, str)}
    fixed = read_fixed_sheet(submission.get("fixed"))
    if fixed:  # the fixed sheet sizes the fixed design; without one, the numbers do (as before two sheets)
        numbers = fixed
    replays = (
        review_replays(spec_dict, numbers, overrides=overrides, seed_key=seed_key, seed_count=seed_count)
        if run_replays
        else review_replays_pending(spec_dict)
    )
    report["review"] = {
        **marks,
        "fixed_sheet": fixed_sheet_rows(spec_dict, numbers, overrides),
        "ranking": ranking,
        "weights": dict(WEIGHTS),
        "review_share": REVIEW_SHARE,
        "engine_overall": report["scores"].get("overall"),
    }
    return review_with_replays(report, replays)
