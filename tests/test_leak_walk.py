"""The leak walk: during an unsubmitted round, nothing the candidate can reach states an asked reference
value.

Every URL of the URL configuration and every path of the OpenAPI schema is requested as the candidate, GET and
POST, with an empty and a minimal body, its parameters filled with the round, the question, the concepts and
questions it links and the candidate's own name. Each answer is searched for every asked value of the round's
question in the formats people write it: 2 and 3 significant figures, with and without thousands separators,
with the unit or a byte or time unit it converts to (KB and KiB alike), with and without a space. Values the
prompt states (premises) are not asked answers and are left out. The ten-odd questions with the longest
formula chains are walked.
"""

import functools
import json
import math
import os
import re
from itertools import product
from pathlib import Path

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from grading.core.grader import grade
from interview.models import Question, Round, RoundStatus
from interview.services.question_bank import CORE_PACK, question_bank_load
from interview.services.rounds import round_start

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
SUFFIXES = (("T", 1e12), ("B", 1e9), ("M", 1e6), ("k", 1e3))
SKIPPED_PREFIXES = ("/admin/", "/static/", "/api/schema", "/api/docs")
TAGS = re.compile(r"<[^>]+>")


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
    head = unit.partition("/")[0]
    digits = len(f"{abs(value):.6g}".replace(".", "").strip("0"))
    round_number = digits < 3 or (float(value).is_integer() and math.log2(abs(value)).is_integer())
    if bare and head not in BYTE_UNITS and head not in TIME_UNITS and abs(value) >= 100 and not round_number:
        patterns |= {text for text in number_forms(value) if len(text.replace(",", "").rstrip("0")) >= 3}
    return patterns


def asked_values(spec: dict, public: str = "") -> dict[str, set[str]]:
    """Asked line -> the written forms of its reference value, less the figures the prompt states."""
    report = grade(spec, {"numbers": {}})
    prompt = spec["prompt"]
    values = {}
    for line in report["lines"]:
        # A bare number counts only when derived: an assumption's bare value is too common a number.
        patterns = value_patterns(line["reference"], line["unit"], bare=line["kind"] == "derived")
        stated = {pattern for pattern in patterns if _found(pattern, prompt)}
        if line["kind"] == "input" and stated:
            continue  # the prompt gives it: a premise, not an answer
        stated |= {pattern for pattern in patterns if public and _found(pattern, public)}
        if patterns - stated:
            values[line["name"]] = patterns - stated  # a figure the prompt states is not an answer either
    return values


NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")
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
    """ "slug.name: pattern" for every indexed pattern that `text` states; a pattern is searched for only when
    its number occurs in the text at all."""
    numbers = set(NUMBER.findall(text)) & index.keys()
    return sorted(
        f"{line}: {pattern}" for number in numbers for line, pattern in index[number] if _found(pattern, text)
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


@pytest.fixture
def bank(db):
    ids_far_from_answers()
    report = question_bank_load(folder=CORE_PACK)
    assert not report.errors, report.errors
    questions = list(Question.objects.exclude(current_version=None).select_related("current_version"))
    design = [q for q in questions if q.current_version.spec.get("kind", "design") == "design"]
    design.sort(key=lambda q: (-chain_depth(q.current_version.spec), q.slug))
    return design[:QUESTIONS_WALKED]


def walk(bank: list[Question], make_user) -> dict[str, list[str]]:
    """One candidate with an unsubmitted timed round on every walked question requests every URL; a request
    that ends a round (submit, abandon) hands the walk on to a fresh candidate with fresh rounds."""
    # Another question's prompt is public too: a figure it gives as its premise ("a p95 TPOT target of 40 ms")
    # is no answer to this one, whichever of them asks it.
    prompts = "\n".join(
        spec["prompt"] for spec in Question.objects.values_list("current_version__spec", flat=True)
    )
    values = pattern_index({q.slug: asked_values(q.current_version.spec, prompts) for q in bank})
    specs = [q.current_version.spec for q in bank]
    question_slugs = sorted({slug for spec in specs for slug in (spec["slug"], *spec.get("related", []))})
    concept_slugs = sorted({slug for spec in specs for slug in spec.get("concepts", [])})
    bodies = minimal_bodies(specs)
    held_back = {q.slug for q in bank}
    walkers: list[tuple[Client, list[Round]]] = []

    def fresh() -> tuple[Client, list[Round]]:
        user = make_user(f"walker{len(walkers)}")
        rounds = [round_start(candidate=user, question=question, mode="timed") for question in bank]
        client = Client()
        client.force_login(user)
        walkers.append((client, rounds))
        return client, rounds

    client, rounds = fresh()
    leaks: dict[str, list[str]] = {}
    for template in url_templates():
        if template.startswith(SKIPPED_PREFIXES):
            continue
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
                text = raw + " " + TAGS.sub(" ", raw)
                shown = found_in(values, text)
                if shown:
                    leaks.setdefault(f"{method} {url}", []).extend(shown)
                if method == "GET" and response.status_code == 404:
                    break  # no such object: posting to it answers 404 too
                statuses = Round.objects.filter(pk__in=[r.pk for r in rounds]).values_list(
                    "status", flat=True
                )
                if any(status not in (RoundStatus.ACTIVE, RoundStatus.SCHEDULED) for status in statuses):
                    client, rounds = fresh()  # that request ended a round: walk on with fresh ones
                    params["round_id"] = [str(round_.pk) for round_ in rounds]
                elif not response.wsgi_request.user.is_authenticated:
                    client.force_login(rounds[0].candidate)  # the logout URL
    return leaks


def test_the_walk_covers_the_longest_chains_and_knows_every_asked_value(bank):
    assert len(bank) == QUESTIONS_WALKED
    depths = [chain_depth(q.current_version.spec) for q in bank]
    assert depths == sorted(depths, reverse=True) and depths[-1] >= 3
    for question in bank:
        assert asked_values(question.current_version.spec), question.slug


def test_the_value_forms_cover_figures_separators_and_byte_units():
    forms = value_patterns(327680, "B/tok")
    assert {"327,680 B/tok", "327680B", "320 KiB", "328 KB", "330KB", "0.33 MB/tok"} <= forms
    assert {"13.5 ms", "0.0135 s", "14ms"} <= value_patterns(0.0135, "s")
    assert "1,330,000" in value_patterns(1_330_000, "tok") and "162" in value_patterns(162, "req")
    assert "512" not in value_patterns(512, "GPU") and "1.33M" in value_patterns(1_330_000, "tok")
    assert any(_found(pattern, "about 2,800 prompt tokens") for pattern in value_patterns(2800, "tok"))


def test_the_search_finds_a_planted_value_by_its_number_and_only_where_it_stands_alone():
    asked = {"kv": {"per_token": value_patterns(327680, "B/tok")}, "ttft": {"p99": {"13.5 ms"}}}
    index = pattern_index(asked)
    assert found_in(index, "<td>320 KiB</td> and 13.5 ms") == ["kv.per_token: 320 KiB", "ttft.p99: 13.5 ms"]
    assert found_in(index, "1320 KiB, 13.55 ms, 2,320 KiB") == []


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


def test_no_url_reachable_in_an_unsubmitted_round_states_an_asked_reference_value(bank, make_user):
    leaks = {url: sorted(set(shown)) for url, shown in walk(bank, make_user).items()}
    if dump := os.environ.get("LEAK_WALK_DUMP"):
        Path(dump).write_text(json.dumps(leaks, indent=1))
    assert leaks == {}


def test_no_concept_page_states_an_asked_value_of_a_question_that_links_it():
    from grading.core.question_export import spec_to_dict
    from grading.core.question_files import load_pack

    specs, _ = load_pack(CORE_PACK)
    concepts = Path(CORE_PACK).parent.parent / "concepts"
    shown = sorted(
        f"{slug} states {spec.slug}.{name}: {pattern}"
        for spec in specs
        for name, patterns in asked_values(spec_to_dict(spec)).items()
        for slug in spec.concepts
        for pattern in patterns
        if _found(pattern, (concepts / f"{slug}.md").read_text())
    )
    assert shown == []
