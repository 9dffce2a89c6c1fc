"""The leak walk: during an unsubmitted round, nothing the candidate can reach states an asked reference
value.

Every URL of the URL configuration and every path of the OpenAPI schema is requested as the candidate, GET and
POST, with an empty and a minimal body, its parameters filled with the round, the question, the concepts and
questions it links and the candidate's own name. Each answer is searched for every asked value of the round's
question in the formats people write it: 2 and 3 significant figures, with and without thousands separators,
with the unit or a byte or time unit it converts to (KB and KiB alike), with and without a space. Values the
prompt states (premises) are not asked answers and are left out, and so are a review question's asked inputs:
its round opens on the given design with them on the sheet.

By default the walk takes the 11 questions with the longest formula chains, design and review alike, and every
review question besides (a review round opens on a given design and a filled sheet, as no design round does).
`LEAK_WALK_QUESTIONS` sets how many of the longest chains: the whole bank, slow (two minutes or so), is

    LEAK_WALK_QUESTIONS=999 LEAK_WALK_DUMP=/tmp/leaks.json .venv/bin/python -m pytest tests/test_leak_walk.py

(any number at least the bank's size walks every question that asks a value; the dump lists URL -> leaks).
"""

import functools
import html
import json
import math
import os
import re
from dataclasses import dataclass
from itertools import product
from pathlib import Path

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from grading.core.depth import curveball_says
from grading.core.grader import grade
from grading.core.question_text import rendered_spec
from grading.core.units import COUNT_UNITS, plural
from questions.models import Question
from questions.services.question_bank import CORE_PACK, question_bank_load
from rounds.models import Round, RoundStatus
from rounds.readings import describe_reading
from rounds.services.depth import round_depth_next
from rounds.services.rounds import round_opening_work, round_start

pytestmark = pytest.mark.django_db
QUESTIONS_WALKED = int(os.environ.get("LEAK_WALK_QUESTIONS", "11"))
BYTE_UNITS = {
    "B": 1,
    "KB": 1e3,
    "KiB": 1024,
    "MB": 1e6,
    "MiB": 1024**2,
    "GB": 1e9,
    "GiB": 1024**3,
    "TB": 1e12,
    "TiB": 1024**4,
    "PB": 1e15,
    "PiB": 1024**5,
}
TIME_UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1, "min": 60, "h": 3600}
# Units as prose writes them: "2,800 prompt tokens" is caught by its number and "tokens" two words on.
LONG_NAMES = {
    "tok": "tokens",
    "req": "requests",
    "GPU": "GPUs",
    "node": "nodes",
    "replica": "replicas",
    "ms": "milliseconds",
    "s": "seconds",
    "min": "minutes",
    "h": "hours",
    "param": "parameters",
}
COUNT_SYMBOLS = frozenset(symbol for symbol, _ in COUNT_UNITS)
SUFFIXES = (("T", 1e12), ("B", 1e9), ("M", 1e6), ("k", 1e3))
REFUSED = (400, 403, 404, 405)  # answers after which the walk need not look whether a round ended
SKIPPED_PREFIXES = ("/admin/", "/static/", "/api/schema", "/api/docs")
TAGS = re.compile(r"<[^>]+>")
# htmx's polling interval ('hx-trigger="every 10s"') is markup timing, not a figure the candidate reads
HX_TRIGGER = re.compile(r'\shx-trigger="[^"]*"')


def chain_depth(spec: dict) -> int:
    """The longest chain of formulas behind any asked line."""
    formulas = {q["name"]: q.get("formula", "") for q in spec["model"]["quantities"]}
    names = sorted(formulas, key=len, reverse=True)
    uses = {
        name: {other for other in names if other != name and re.search(rf"\b{other}\b", formula)}
        for name, formula in formulas.items()
    }
    depth: dict[str, int] = {}

    def walk(name: str, seen: frozenset) -> int:
        if name not in depth:
            deps = [walk(dep, seen | {name}) for dep in uses[name] if dep not in seen]
            depth[name] = 1 + max(deps, default=0) if formulas[name] else 0
        return depth[name]

    return max((walk(line["name"], frozenset()) for line in spec["asked"]), default=0)


def number_forms(value: float) -> set[str]:
    """How a number is written: 2 and 3 significant figures, with and without thousands separators."""
    forms = set()
    if value == 0 or not math.isfinite(value):
        return forms
    for figures in (2, 3):
        rounded = float(f"{value:.{figures}g}")
        decimals = max(0, figures - 1 - math.floor(math.log10(abs(rounded))))
        text = f"{rounded:,.{decimals}f}"
        forms |= {text, text.replace(",", "")}
    if float(value).is_integer():
        forms |= {f"{int(value):,}", str(int(value))}
    for suffix, factor in SUFFIXES:  # 1.33M, 28k
        if abs(value) >= factor:
            forms |= {f"{float(f'{value / factor:.{figures}g}'):g}{suffix}" for figures in (2, 3)}
            break
    return forms


def unit_variants(value: float, unit: str) -> list[tuple[float, str]]:
    """The value in its own unit and in the byte or time units it converts to (the rest of the unit kept)."""
    head, slash, rest = unit.partition("/")
    variants = [(value, unit)]
    for table in (BYTE_UNITS, TIME_UNITS):
        if head in table:
            base = value * table[head]
            variants += [(base / factor, name + slash + rest) for name, factor in table.items()]
    return [(v, u) for v, u in variants if 0.001 <= abs(v) < 1e7]


def value_patterns(value: float, unit: str, *, bare: bool = True) -> set[str]:
    """Every written form of an asked value: number and unit, with and without a space, and with `bare` the
    number alone for a count of at least three significant figures that is not a power of two (rounder bare
    numbers are everywhere on a page: 512 GPUs, 4,096 tokens, 2,000 users)."""
    patterns = set()
    for number, written_unit in unit_variants(value, unit):
        shown_unit = written_unit.partition("/")[0] if written_unit.partition("/")[0] else written_unit
        for text in number_forms(number):
            for unit_text in {written_unit, shown_unit} - {""}:
                patterns |= {f"{text} {unit_text}", f"{text}{unit_text}"}
            if long_name := LONG_NAMES.get(shown_unit):
                patterns |= {f"{text} {long_name}", f"{text} \\w+ {long_name}"}
            if shown_unit in COUNT_SYMBOLS:  # counts agree in number on the page: "44 sessions", "3 regions"
                patterns.add(f"{text} {plural(shown_unit)}")
    head = unit.partition("/")[0]
    digits = len(f"{abs(value):.6g}".replace(".", "").strip("0"))
    round_number = digits < 3 or (float(value).is_integer() and math.log2(abs(value)).is_integer())
    if bare and head not in BYTE_UNITS and head not in TIME_UNITS and abs(value) >= 100 and not round_number:
        patterns |= {text for text in number_forms(value) if len(text.replace(",", "").rstrip("0")) >= 3}
    return patterns


def asked_values(
    spec: dict, public: str = "", variant: dict[str, float] | None = None
) -> dict[str, set[str]]:
    """Asked line -> the written forms of its reference value (at a variant's values when given), less the
    figures the prompt states."""
    key = (json.dumps(spec), public, json.dumps(variant))  # the spec's own key order kept
    return {name: set(patterns) for name, patterns in _asked_values(*key).items()}


@functools.cache
def _asked_values(spec_json: str, public: str, variant_json: str) -> dict[str, frozenset[str]]:
    """asked_values, worked out once for each spec, public text and variant: the bank fixture of four tests,
    the walks and the bank-wide searches ask for the same ones (the patterns' searches through every prompt
    cost the fixture ~6 s each time)."""
    spec, variant = json.loads(spec_json), json.loads(variant_json)
    report = grade(spec, {"numbers": {}}, overrides=variant)
    prompt = rendered_spec(spec, variant)["prompt"]  # as the candidate reads it, {placeholders} written out
    review = spec.get("kind") == "review"
    values = {}
    for line in report["lines"]:
        if review and line["kind"] == "input":
            continue  # the given design's own number: the review round opens with it on the sheet
        # A bare number counts only when derived: an assumption's bare value is too common a number.
        patterns = value_patterns(line["reference"], line["unit"], bare=line["kind"] == "derived")
        stated = {pattern for pattern in patterns if _found(pattern, prompt)}
        if line["kind"] == "input" and stated:
            continue  # the prompt gives it: a premise, not an answer
        stated |= {pattern for pattern in patterns if public and _found(pattern, public)}
        if patterns - stated:
            # A figure the prompt states is not an answer either.
            values[line["name"]] = frozenset(patterns - stated)
    return values


NUMBER = re.compile(r"\d(?:[\d,]*\d)?(?:\.\d+)?")  # "109, then": the number is 109, not "109,"
PatternIndex = dict[str, list[tuple[str, str]]]


def pattern_index(values: dict[str, dict[str, set[str]]]) -> PatternIndex:
    """Leading number -> ("slug.name", pattern) for every pattern of `values` (slug -> line -> patterns)."""
    index: PatternIndex = {}
    for slug, asked in values.items():
        for name, patterns in asked.items():
            for pattern in patterns:
                if leading := NUMBER.match(pattern):
                    index.setdefault(leading.group(), []).append((f"{slug}.{name}", pattern))
    return index


def found_in(index: PatternIndex, text: str) -> list[str]:
    """ "slug.name: pattern" for every indexed pattern that `text` states. A pattern can only start where a
    number of the text starts (its own lookbehind rejects a digit, a point or a comma before it), so each is
    tried only there, at the numbers equal to its leading one: a scan of the whole text for each pattern cost
    the walk a third of its time."""
    return sorted(
        {
            f"{line}: {pattern}"
            for number in NUMBER.finditer(text)
            for line, pattern in index.get(number.group(), ())
            if _pattern_regex(pattern).match(text, number.start())
        }
    )


@functools.cache
def _pattern_regex(pattern: str) -> re.Pattern[str]:
    """Compiled once: the walk searches thousands of patterns in thousands of answers (re's own cache of 512
    would thrash)."""
    regex = re.escape(pattern).replace(re.escape("\\w+"), r"[\w-]+")  # "2,800 \w+ tokens": one word between
    return re.compile(rf"(?<![\w.,]){regex}(?![\w]|[.,]\d)")


def _found(pattern: str, text: str) -> bool:
    return _pattern_regex(pattern).search(text) is not None


def url_templates() -> list[str]:
    """Every URL of the URL configuration and every OpenAPI path, parameters written {name}."""
    from drf_spectacular.generators import SchemaGenerator

    found: list[str] = []

    def walk(patterns, prefix: str) -> None:
        for pattern in patterns:
            route = str(pattern.pattern)
            if isinstance(pattern, URLResolver):
                walk(pattern.url_patterns, prefix + route)
            elif isinstance(pattern, URLPattern):
                found.append("/" + prefix + route)

    walk(get_resolver().url_patterns, "")
    schema = SchemaGenerator().get_schema(request=None, public=True)
    found += list(schema["paths"])
    return sorted(
        {re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", url).replace("^", "").replace("$", "") for url in found}
    )


def filled(template: str, values: dict[str, list[str]]) -> list[str]:
    names = re.findall(r"\{(\w+)\}", template)
    choices = [values.get(name, values["*"]) for name in names]
    urls = []
    for combination in product(*choices):
        url = template
        for name, value in zip(names, combination, strict=True):
            url = url.replace("{" + name + "}", value, 1)
        urls.append(url)
    return urls


def minimal_bodies(specs: list[dict]) -> list[tuple[str, str]]:
    """(content type, body): an empty form, an empty JSON object, a minimal JSON naming every asked line."""
    names = sorted({line["name"] for spec in specs for line in spec["asked"]})
    minimal = {
        "numbers": dict.fromkeys(names, ""),
        "design": {"nodes": [], "edges": []},
        "revision": 0,
        "name": names[0],
        "text": "1",
        "mode": "timed",
    }
    return [
        ("application/x-www-form-urlencoded", ""),
        ("application/json", "{}"),
        ("application/json", json.dumps(minimal)),
    ]


# Row ids start far above any asked value: a link to round 104 is not the answer 104 (on PostgreSQL ids keep
# climbing across the whole run, so without this the walk's result would depend on the tests before it).
FIRST_ID = 7_000_001
# A drill step of a question with no open round gives premises drawn at random, rounded to two figures; one
# that happens to equal another question's answer tells nothing about it. Such a step's premises are left out
# of the search (a held-back question's step is searched whole; tests/drills checks none is offered).
DRILL_PREMISES = re.compile(r'<ul class="drill-givens">.*?</ul>|<p class="drill-prompt">.*?</p>', re.S)
DRILL_SOURCE = re.compile(r'class="drill-source"><a href="/questions/([\w-]+)/"')


def ids_far_from_answers() -> None:
    from django.apps import apps
    from django.db import connection

    with connection.cursor() as cursor:
        for model in apps.get_models():
            if model._meta.pk.get_internal_type() not in ("AutoField", "BigAutoField"):
                continue
            table = model._meta.db_table
            if connection.vendor == "postgresql":
                cursor.execute(
                    "SELECT setval(pg_get_serial_sequence(%s, %s), %s)", [table, "id", FIRST_ID - 1]
                )
            elif connection.vendor == "sqlite":
                cursor.execute("DELETE FROM sqlite_sequence WHERE name = %s", [table])
                cursor.execute(
                    "INSERT INTO sqlite_sequence (name, seq) VALUES (%s, %s)", [table, FIRST_ID - 1]
                )


def without_drawn_premises(url: str, raw: str, held_back: set[str]) -> str:
    """The response without the premises of a drill step whose question has no open round."""
    if url.startswith("/api/drills/"):
        try:
            data = json.loads(raw)
        except ValueError:
            return raw
        if isinstance(data, dict) and data.get("question") not in held_back:
            data.pop("givens", None)
            data.pop("prompt", None)
            data.pop("arithmetic", None)
        return json.dumps(data)
    if url.startswith("/drills/"):
        source = DRILL_SOURCE.search(raw)
        if source and source.group(1) not in held_back:
            return DRILL_PREMISES.sub(" ", raw)
    return raw


def premises() -> dict[str, tuple[str, str]]:
    """Question slug -> (its prompt, the given design and opening sheet of a review question): what any
    candidate reads of it before submitting."""
    found = {}
    for question in Question.objects.published():
        version = question.current_version
        design, numbers = round_opening_work(version=version, variant_values={})
        given = [str(node.get(key, "")) for node in design["nodes"] for key in ("label", "job")]
        given += [str(edge.get("label", "")) for edge in design["edges"]] + list(numbers.values())
        # the sheet's reading of a given number ("4 replica" is "Read as 4 replicas") is as public as it
        given += [describe_reading(version.spec, name, text)["message"] for name, text in numbers.items()]
        prompt = rendered_spec(version.spec)["prompt"]
        found[question.slug] = (prompt, "\n".join(given) if is_review(question) else "")
    return found


def round_values(
    question: Question, premises: dict[str, tuple[str, str]], variant: dict[str, float] | None = None
) -> dict[str, set[str]]:
    """The asked values a round of `question` must not show, less the premises public to its candidate: every
    prompt and the other review questions' given designs. A figure one of them gives ("a p95 TPOT target of
    40 ms", a batch of "256 req") is no answer to another question that asks it. Its own design stays
    searched: a derived value of its own stated there would be a leak."""
    public = [prompt for prompt, _ in premises.values()]
    public += [given for slug, (_, given) in premises.items() if slug != question.slug]
    return asked_values(question.current_version.spec, "\n".join(public), variant)


def is_review(question: Question) -> bool:
    return question.current_version.spec.get("kind") == "review"


@dataclass
class Bank:
    walked: list[Question]  # the longest chains first, then the review questions not among them
    asking: list[Question]  # every question asking a value that is not public anyway, longest chain first


@pytest.fixture
def bank(db) -> Bank:
    ids_far_from_answers()
    report = question_bank_load(folder=CORE_PACK)
    assert not report.errors, report.errors
    questions = list(Question.objects.published())
    public = premises()
    asking = [q for q in questions if round_values(q, public)]
    asking.sort(key=lambda q: (-chain_depth(q.current_version.spec), q.slug))
    longest = asking[:QUESTIONS_WALKED]
    return Bank(walked=longest + [q for q in asking if is_review(q) and q not in longest], asking=asking)


def depth_texts(spec_data: dict, *, opened: bool) -> set[str]:
    """What of a question's depth phase a candidate must not read yet: before it opens, every curveball's
    title and sentence and every decision's choices and trade-offs; once open, the trade-offs and the design
    consequences, which wait for the report."""
    spec = question_version_spec_of(spec_data)
    texts = {consequence.says for curveball in spec.curveballs for consequence in curveball.design}
    texts |= {option.tradeoff for item in spec.decisions for option in item.options}
    if not opened:
        units = {quantity.name: quantity.unit for quantity in spec.model.quantities}
        texts |= {curveball.title for curveball in spec.curveballs}
        texts |= {curveball_says(curveball, units) for curveball in spec.curveballs}
        texts |= {option.choice for item in spec.decisions for option in item.options}
    return texts


def question_version_spec_of(spec_data: dict):
    from grading.core.question_reader import parse_question

    return parse_question(spec_data, f"{spec_data['slug']}.yaml")


def depth_premises(spec_data: dict) -> str:
    """What an open depth phase tells every candidate of it: each curveball's title and sentence and each
    decision's question and choices (a question's own are checked against its own answers by
    test_no_depth_text_a_candidate_reads_before_submitting_states_an_asked_value)."""
    from grading.core.depth import decision_view

    spec = question_version_spec_of(spec_data)
    units = {quantity.name: quantity.unit for quantity in spec.model.quantities}
    texts = [curveball.title for curveball in spec.curveballs]
    texts += [curveball_says(curveball, units) for curveball in spec.curveballs]
    for item in spec.decisions:
        view = decision_view(item, seed=1)
        texts += [view["text"], *(option["choice"] for option in view["options"])]
    return "\n".join(texts)


def depth_shown(texts: set[str], text: str) -> list[str]:
    plain = html.unescape(text)
    return sorted(f"depth: {phrase[:60]}" for phrase in texts if phrase in plain)


def walk(
    bank: list[Question],
    make_user,
    *,
    depth_open: bool = False,
    variants: dict[str, dict[str, float]] | None = None,
) -> dict[str, list[str]]:
    """One candidate with an unsubmitted timed round on every walked question requests every URL; a request
    that ends a round (submit, abandon) hands the walk on to a fresh candidate with fresh rounds. With
    `depth_open` every round's depth phase is open (all its curveballs shown) and only the round's own URLs
    are walked; without it the depth phase stays closed (its URLs are not posted to). With `variants` (slug
    -> variable inputs in base units) those questions' rounds are variants at those values, searched for the
    variant's asked values."""
    variants = variants or {}
    public = premises()
    hidden = set().union(*(depth_texts(q.current_version.spec, opened=depth_open) for q in bank))
    if depth_open:  # a curveball's new values and a follow-up's are its premise, public once it is shown
        said = "\n".join(depth_premises(q.current_version.spec) for q in bank)
        public = {slug: (prompt + "\n" + said, given) for slug, (prompt, given) in public.items()}
    values = pattern_index({q.slug: round_values(q, public, variants.get(q.slug)) for q in bank})
    specs = [q.current_version.spec for q in bank]
    question_slugs = sorted({slug for spec in specs for slug in (spec["slug"], *spec.get("related", []))})
    concept_slugs = sorted({slug for spec in specs for slug in spec.get("concepts", [])})
    bodies = minimal_bodies(specs)
    held_back = {q.slug for q in bank}
    walkers: list[tuple[Client, list[Round]]] = []

    def fresh() -> tuple[Client, list[Round]]:
        user = make_user(f"walker{len(walkers)}")
        rounds = [
            round_start(
                candidate=user, question=question, mode="timed", variant=question.slug in variants, seed=1
            )
            for question in bank
        ]
        for round_ in rounds:
            if pinned := variants.get(round_.question.slug):
                Round.objects.filter(pk=round_.pk).update(variant_values={**round_.variant_values, **pinned})
                round_.refresh_from_db()
        for round_ in rounds if depth_open else ():
            for _ in question_version_spec_of(round_.spec).curveballs or [None]:
                round_depth_next(round_=round_)
        client = Client()
        client.force_login(user)
        walkers.append((client, rounds))
        return client, rounds

    client, rounds = fresh()
    leaks: dict[str, list[str]] = {}
    for template in url_templates():
        if template.startswith(SKIPPED_PREFIXES):
            continue
        if (not depth_open and "depth/next/" in template) or (depth_open and "{round_id}" not in template):
            continue  # closed: never move to the phase; open: only the round's own URLs
        params = {
            "slug": concept_slugs if "concepts/" in template else question_slugs,
            "round_id": [str(round_.pk) for round_ in rounds],
            "username": [rounds[0].candidate.username],
            "*": [str(rounds[0].pk), "1", "x"],
        }
        for url in filled(template, params):
            for method, content_type, body in [("GET", None, None)] + [("POST", *body) for body in bodies]:
                if method == "GET":
                    response = client.get(url)
                else:
                    response = client.generic("POST", url, body, content_type=content_type)
                raw = without_drawn_premises(url, response.content.decode("utf-8", "replace"), held_back)
                raw = HX_TRIGGER.sub(" ", raw)
                text = raw + " " + TAGS.sub(" ", raw)
                shown = found_in(values, text) + depth_shown(hidden, raw)
                if shown:
                    leaks.setdefault(f"{method} {url}", []).extend(shown)
                if method == "GET" and response.status_code == 404:
                    break  # no such object: posting to it answers 404 too
                if response.status_code in REFUSED:
                    continue  # a refused request changed nothing: no round can have ended
                statuses = Round.objects.filter(pk__in=[r.pk for r in rounds]).values_list(
                    "status", flat=True
                )
                if any(status not in (RoundStatus.ACTIVE, RoundStatus.SCHEDULED) for status in statuses):
                    client, rounds = fresh()  # that request ended a round: walk on with fresh ones
                    params["round_id"] = [str(round_.pk) for round_ in rounds]
                elif not response.wsgi_request.user.is_authenticated:
                    client.force_login(rounds[0].candidate)  # the logout URL
    return leaks


def test_the_walk_covers_the_longest_chains_and_every_review_question(bank):
    questions = Question.objects.published()
    reviews = {q.slug for q in questions if is_review(q)}
    walked = [q.slug for q in bank.walked]
    assert len(walked) == len(set(walked)) and reviews <= set(walked)
    longest = bank.walked[: min(QUESTIONS_WALKED, len(bank.asking))]
    assert set(walked) - {q.slug for q in longest} <= reviews
    depths = [chain_depth(q.current_version.spec) for q in longest]
    skipped = [chain_depth(q.current_version.spec) for q in bank.asking if q not in longest]
    assert depths == sorted(depths, reverse=True) and all(depth <= depths[-1] for depth in skipped)
    assert depths[-1] >= 3 or len(longest) > 11  # the default walk's shortest chain has three formulas


def test_every_question_asks_a_value_the_walk_searches_for_and_a_review_asks_more_than_its_inputs(bank):
    """A question whose every asked value is a premise somewhere would drop out of the walk unnoticed."""
    everything = Question.objects.published()
    assert sorted(q.slug for q in bank.asking) == sorted(q.slug for q in everything)
    review = next(q.current_version.spec for q in everything if q.slug == "eight-gpu-design-review")
    asked = asked_values(review)
    assert "max_batch_cfg" not in asked and "inter_node_bw" not in asked  # on the sheet the round opens with
    assert {"kv_cap_tp8", "e2e_tp8", "servers_needed"} <= asked.keys()


def test_the_value_forms_cover_figures_separators_and_byte_units():
    forms = value_patterns(327680, "B/tok")
    assert {"327,680 B/tok", "327680B", "320 KiB", "328 KB", "330KB", "0.33 MB/tok"} <= forms
    assert {"13.5 ms", "0.0135 s", "14ms"} <= value_patterns(0.0135, "s")
    assert "1,330,000" in value_patterns(1_330_000, "tok") and "162" in value_patterns(162, "req")
    assert "512" not in value_patterns(512, "GPU") and "1.33M" in value_patterns(1_330_000, "tok")
    assert any(_found(pattern, "about 2,800 prompt tokens") for pattern in value_patterns(2800, "tok"))
    assert any(_found(pattern, "44 sessions; you wrote 352") for pattern in value_patterns(44, "session"))


def test_the_search_finds_a_planted_value_by_its_number_and_only_where_it_stands_alone():
    asked = {"kv": {"per_token": value_patterns(327680, "B/tok")}, "ttft": {"p99": {"13.5 ms"}}}
    index = pattern_index(asked)
    assert found_in(index, "<td>320 KiB</td> and 13.5 ms") == ["kv.per_token: 320 KiB", "ttft.p99: 13.5 ms"]
    assert found_in(index, "1320 KiB, 13.55 ms, 2,320 KiB") == []
    bound = pattern_index({"queue": {"bound": value_patterns(109, "req")}})
    assert found_in(bound, "a bound of 109, then 1,109 or 109.5") == ["queue.bound: 109"]


def test_no_title_or_summary_in_the_bank_states_an_asked_value_of_any_question():
    from grading.core.question_export import spec_to_dict
    from grading.core.question_files import load_pack

    specs, errors = load_pack(CORE_PACK)
    assert not errors
    questions = [spec_to_dict(spec) for spec in specs]
    shown = sorted(
        f"{card['slug']} states {asker['slug']}.{name}: {pattern}"
        for asker in questions
        for name, patterns in asked_values(asker).items()
        for card in questions
        for pattern in patterns
        if _found(pattern, card["title"] + " \n " + card["summary"])
    )
    assert shown == []


def test_no_depth_text_a_candidate_reads_before_submitting_states_an_asked_value():
    """A curveball's title and sentence and a decision's question and choices are shown in the depth phase,
    before submit: none may state a reference value the question asks (a trade-off is shown after submit)."""
    from grading.core.depth import curveball_view, decision_view
    from grading.core.drill_wording import PLACEHOLDER
    from grading.core.question_export import spec_to_dict
    from grading.core.question_files import load_pack

    specs, errors = load_pack(CORE_PACK)
    assert not errors
    shown = []
    for spec in specs:
        asked = asked_values(spec_to_dict(spec))
        texts = []
        for curveball in spec.curveballs:  # the new values it states are its premise, not answers
            texts += [curveball_view(spec, curveball)["title"], PLACEHOLDER.sub(" ", curveball.says)]
        for item in spec.decisions:
            view = decision_view(item, seed=1)
            texts += [view["text"], *(option["choice"] for option in view["options"])]
        shown += [
            f"{spec.slug}.{name}: {pattern} in {text!r}"
            for text in texts
            for name, patterns in asked.items()
            for pattern in patterns
            if _found(pattern, text)
        ]
    assert shown == []


def test_no_url_reachable_in_an_unsubmitted_round_states_an_asked_reference_value(bank, make_user):
    leaks = {url: sorted(set(shown)) for url, shown in walk(bank.walked, make_user).items()}
    if dump := os.environ.get("LEAK_WALK_DUMP"):
        Path(dump).write_text(json.dumps(leaks, indent=1))
    assert leaks == {}


def test_with_the_depth_phase_open_no_round_url_states_a_reference_value_or_a_trade_off(bank, make_user):
    with_depth = [q for q in bank.walked if depth_texts(q.current_version.spec, opened=True)]
    assert with_depth  # the walk's questions include some with curveballs or decisions
    leaks = {url: sorted(set(shown)) for url, shown in walk(with_depth, make_user, depth_open=True).items()}
    if dump := os.environ.get("LEAK_WALK_DUMP"):
        Path(dump).write_text(json.dumps(leaks, indent=1))
    assert leaks == {}


def test_no_concept_page_states_an_asked_value_of_a_question_that_links_it():
    from grading.core.question_export import spec_to_dict
    from grading.core.question_files import load_pack

    specs, _ = load_pack(CORE_PACK)
    from interview.views.concepts import CONCEPTS_DIR as concepts

    shown = sorted(
        f"{slug} states {spec.slug}.{name}: {pattern}"
        for spec in specs
        for name, patterns in asked_values(spec_to_dict(spec)).items()
        for slug in spec.concepts
        for pattern in patterns
        if _found(pattern, (concepts / f"{slug}.md").read_text())
    )
    assert shown == []


def test_a_variant_round_states_none_of_the_variants_asked_values_before_submit(db, make_user):
    """A variant's plan writes its answers out for the interviewer ({=name}); the candidate's pages must not.
    kv-cache-tiering at 64,000 tokens, 35% prefill MFU: by hand, 64,000 x 327,680 B = 20.97 GB a
    conversation, floor((640 GB x 0.9 - 141.1 GB) / 20.97 GB) = 20 in HBM; none of them may show."""
    report = question_bank_load(folder=CORE_PACK)
    assert not report.errors, report.errors
    question = Question.objects.get(slug="kv-cache-tiering")
    variant = {"context_tokens": 64000.0, "mfu_prefill": 0.35}
    searched = round_values(question, premises(), variant)
    assert "21 GB" in searched["kv_conv"] and "20 sessions" in searched["convs_in_hbm"]  # what it searches
    leaks = walk([question], make_user, variants={"kv-cache-tiering": variant})
    assert leaks == {}


# A follow-up's own figure that equals an asked count by chance, read by hand: (question, line) -> why.
NOT_THAT_COUNT = {
    ("research-cluster-fair-share", "guarantee_b"): "a borrowed job of 512 GPUs, not team B's guarantee",
    ("token-rate-limits", "cost_ratio"): "a request's 1,000 prompt tokens, not the cost ratio",
}


def test_no_follow_up_states_an_asked_count_as_a_bare_number():
    """The walk's patterns leave out bare counts under 100 (they are everywhere on a page), so a follow-up's
    question, choices and number label, read in the depth phase before submit, are searched here for every
    whole asked count of five or more that the question's title and prompt do not state ("Is the pool of 12
    still right" said autoscaling-cold-start's asked warm pool)."""
    from grading.core.depth import decision_view
    from grading.core.question_export import spec_to_dict
    from grading.core.question_files import load_pack

    specs, errors = load_pack(CORE_PACK)
    assert not errors
    shown = []
    for spec in specs:
        data = spec_to_dict(spec)
        rendered = rendered_spec(data)
        public = rendered["title"] + "\n" + rendered["prompt"]
        texts = []
        for item in spec.decisions:
            view = decision_view(item, seed=1)
            texts += [view["text"], *(option["choice"] for option in view["options"])]
            texts += [item.number.label] if item.number else []
        for line in grade(data, {"numbers": {}})["lines"]:
            if spec.kind == "review" and line["kind"] == "input":
                continue  # the given design's number: on the sheet from the start
            value, head = line["reference"], line["unit"].partition("/")[0]
            if (head not in COUNT_SYMBOLS and line["unit"]) or value is None or value < 5:
                continue
            if not float(value).is_integer() or (spec.slug, line["name"]) in NOT_THAT_COUNT:
                continue
            bare = re.compile(rf"(?<![\w.,])({int(value):,}|{int(value)})(?![\w%]|[.,]\d)")
            if bare.search(public):
                continue  # a premise the candidate reads anyway
            shown += [f"{spec.slug}.{line['name']}: {text!r}" for text in texts if bare.search(text)]
    assert shown == []
