"""A variant's title, prompt, plan, replays and reference design speak of the variant's values (issue 31): no
figure the question's defaults give stays written when a variant moves it.

For every bank question with variable inputs, a variant moves each of them well inside its range; every number
printed in the variant's title, prompt, plan (the interviewer's, answers written out), replay scenarios'
descriptions and reference design's boxes (jobs and failures, as the report and the interviewer read them:
`question_text.answer_texts`) is then compared with the model: a number that is, to its printed precision, the
default value of a quantity the variant moved (a variable input, or a quantity derived from one) and the
variant's value of no quantity is a figure written at the defaults: a fixed sentence where a placeholder
belongs. Numbers written in words count ("two regions").
"""

import math
import re
from pathlib import Path

import pytest

from grading.core.model import ReferenceModel
from grading.core.question_export import spec_to_dict
from grading.core.question_files import load_question
from grading.core.question_text import answer_texts, rendered_spec

BANK = Path(__file__).resolve().parents[2] / "questions" / "bank" / "core"
WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}
NUMBER = re.compile(
    r"(?<![\w.])(\d[\d,]*(?:\.\d+)?(?:e-?\d+)?)(k|K|M|bn|B\b|T\b)?(%)?|\b(" + "|".join(WORDS) + r")\b",
    re.IGNORECASE,
)
# Words that are no figure of the model, though a default the variant moves reads the same ("two pools" of a
# disaggregated design are not its two prefill nodes): phrase -> the question it is written in.
NOT_FIGURES = {
    "two pools": "disaggregated-prefill-decode",
    "two targets": "training-disaster-recovery",
    "three-tier": "ten-thousand-gpu-cluster",
    # The replays' descriptions, of their own fixed parameters (the burst's length, the replay's limits and
    # rates) or of the engine, that a moved default reads the same as by chance.
    "for three minutes": "eight-gpu-design-review",  # the surge's length
    "a 6 s wait limit": "eight-gpu-design-review",
    "~9 ms of all-reduce": "eight-gpu-design-review",
    "run at ~83%": "eight-gpu-design-review",  # the engine's load, not 0.83 req/s a server
    "Ten thousand one-GPU jobs": "job-scheduler-100k-jobs",
    "serves 20 req/s on 10 instances": "serverless-gpu-warm-pool",  # the replay's load, not a 20 s cold start
    "(15 replicas)": "shared-gpu-cluster-scheduling",
    "Four replicas take 16 req/s (4 a replica": "speculative-decoding",  # not the draft length of 4
    "Llama-3": "ten-thousand-gpu-cluster",
    "1% redelivery": "usage-billing-pipeline",  # not the $0.01 a request
    "about 1% of revenue": "usage-billing-pipeline",
    "a 25% spike": "video-generation-serving",  # not the $0.25 a video
    "up to 2% may": "video-generation-serving",
    "four minutes apart": "autoscaling-cold-start",  # a replay's title: the bursts' spacing
    "Two weeks of ordinary": "training-disaster-recovery",
    "lost for two minutes": "two-region-failover",
}
SCALE = {"k": 1e3, "K": 1e3, "M": 1e6, "bn": 1e9, "B": 1e9, "T": 1e12}


def stored(slug: str) -> dict:
    return spec_to_dict(load_question(BANK / f"{slug}.yaml"))


def variant_of(spec: dict, way: float = 0.6) -> dict[str, float]:
    """Each variable input moved `way` of the way from its default to the far end of its range, at two
    significant figures (whole numbers where the range is whole), in base units."""
    model = ReferenceModel.from_dict(spec["model"])
    moved = {}
    for q in spec["model"]["quantities"]:
        if not q.get("variable") or q.get("formula") is not None:
            continue
        low, high = (float(bound) for bound in q["range"])
        default = float(q["value"])
        far = high if high - default >= default - low else low
        value = default + way * (far - default)
        value = float(f"{value:.2g}")
        if low.is_integer() and high.is_integer():
            value = float(round(value))
        if value != default:
            moved[q["name"]] = float(model.base_value(q["name"], value))
    return moved


def display_values(spec: dict, variant: dict[str, float]) -> dict[str, float]:
    model = ReferenceModel.from_dict(spec["model"])
    values = model.evaluate(variant)
    return {name: float(model.display_value(name, values[name])) for name in model.quantities}


def printed_numbers(text: str) -> list[tuple[str, float, float]]:
    """(as printed, value, half its last printed digit) of every number in `text`; a percentage as a
    fraction."""
    found = []
    for match in NUMBER.finditer(text):
        if match[4]:
            found.append((match[0], float(WORDS[match[4].lower()]), 0.5))
            continue
        digits, _, exponent = match[1].rstrip(",").replace(",", "").lower().partition("e")
        value = float(digits) * 10 ** int(exponent or 0)
        step = (10 ** -len(digits.partition(".")[2]) if "." in digits else 1.0) * 10 ** int(exponent or 0)
        scale = SCALE.get(match[2] or "", 1.0) / (100 if match[3] else 1)
        found.append((match[0], value * scale, 0.5 * step * scale))
    return found


def reads_as(value: float, printed: float, half_step: float) -> bool:
    """Whether `value` rounds to the printed number (a printed "~44" is 43.6; "1.4" is 1.37)."""
    return math.isfinite(value) and abs(value - printed) <= half_step * 1.0001


def texts(spec: dict, variant: dict[str, float]) -> list[tuple[str, str]]:
    shown, answers = rendered_spec(spec, variant), answer_texts(spec, variant)
    fields = [("title", shown["title"]), ("prompt", shown["prompt"])]
    fields += [(f"plan {phase['phase']}", phase["expect"]) for phase in answers["plan"]]
    for item in answers.get("scenarios") or []:
        fields += [(f"scenario {item['name']} {key}", item.get(key, "")) for key in ("title", "description")]
    for node in answers["design"]["nodes"]:
        fields += [(f"box {node['id']} {key}", node.get(key, "")) for key in ("job", "failure")]
    words = [phrase for phrase, slug in NOT_FIGURES.items() if slug == spec["slug"]]
    return [(field, re.sub("|".join(map(re.escape, words)) or "$^", " ", text)) for field, text in fields]


def stale_figures(spec: dict) -> list[str]:
    """Every number two variants' texts print (each input 60%, then 30% of the way to the far end of its
    range: a figure one of them meets by chance the other does not) that reads as a quantity's default the
    variant moved and as no quantity's value in the variant."""
    return sorted(set(_stale_in(spec, variant_of(spec, 0.6)) + _stale_in(spec, variant_of(spec, 0.3))))


def _stale_in(spec: dict, variant: dict[str, float]) -> list[str]:
    before, after = display_values(spec, {}), display_values(spec, variant)
    moved = {
        name
        for name in before
        if not math.isclose(before[name], after[name], rel_tol=0.01) and math.isfinite(before[name])
    }
    stale = []
    for field, text in texts(spec, variant):
        for printed, value, half in printed_numbers(text):
            was = sorted(name for name in moved if reads_as(before[name], value, half))
            if was and not any(reads_as(now, value, half) for now in after.values()):
                stale.append(f"{field}: {printed!r} is {', '.join(was)} at the defaults")
    return stale


VARIABLE = sorted(
    path.stem
    for path in BANK.glob("*.yaml")
    if any(q.get("variable") for q in stored(path.stem)["model"]["quantities"])
)


@pytest.mark.parametrize("slug", VARIABLE)
def test_no_figure_of_a_variants_texts_is_a_default_the_variant_moved(slug):
    assert stale_figures(stored(slug)) == []


def test_the_check_finds_a_figure_written_at_the_defaults():
    """kv-cache-tiering with its conversation's size written as a fixed "9.83 GB" (30,000 x 327,680 B): a
    variant moves context_tokens, so the figure is stale; written as {=kv_conv} it is not."""
    spec = stored("kv-cache-tiering")
    fixed = [{**phase, "expect": phase["expect"].replace("{=kv_conv}", "9.83 GB")} for phase in spec["plan"]]
    assert stale_figures({**spec, "plan": fixed}) == ["plan arithmetic: '9.83' is kv_conv at the defaults"]
    assert stale_figures(spec) == []
    # A number written as a word: two-region-failover's variant draws 3 regions, so "two regions" is stale.
    regions = stored("two-region-failover")
    worded = {**regions, "prompt": regions["prompt"] + " Both of the two regions serve."}
    added = set(stale_figures(worded)) - set(stale_figures(regions))
    assert added == {"prompt: 'two' is n_regions at the defaults"}
