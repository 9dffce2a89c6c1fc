"""What a replay runs on: each scenario's simulator parameters resolved from the question's reference model.

A scenario maps simulator parameters to model quantity names or plain numbers (docs/question-format.md). The
candidate side evaluates the model with the candidate's typed numbers overriding it (a number that cannot be
read falls back to the reference, and the fallback is noted); the reference side evaluates it at its defaults.
Both start from the round's variant values. Pure Python: no Django.
"""

from __future__ import annotations

import hashlib
import json
import math
import numbers
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from grading.core.formula import UNBOUNDED
from grading.core.model import ModelError, ReferenceModel
from grading.core.quantity_text import ParseFailure, read_value
from grading.core.question_text import answer_texts
from grading.core.sim.slo_words import slo_words
from grading.core.units import compatible, from_base, parse_unit

SIDES = ("candidate", "reference")
# The simulator parameters whose numbers are not in base units, and the unit they are in: a quantity named for
# one is converted from its base units (a rate per GPU-second becomes a rate per GPU-day), so a scenario can
# follow the model's failure rate or price instead of a literal written at the defaults (issue 31).
PARAM_UNITS = {"gpu_failure_rate_per_day": "1/(GPU*day)", "price_gpu_hour": "USD/(GPU*h)"}
# An event field or an SLO target may name a model quantity too (issue 31): the event is the world the replay
# plays and the SLO its bar, so both read the reference side's values (the variant's), never the candidate's
# typed numbers. The unit each is in, to check a named quantity's dimension and convert it.
EVENT_FIELD_UNITS = {"duration": "s", "factor": "", "prompt_tokens": "tok"}


def slo_unit(key: str) -> str | None:
    """The unit an SLO target is in, read from its key ("ttft_p99_s": seconds, "lost_max_frac": a fraction);
    None when the key does not say (a named quantity is then used in base units, unchecked)."""
    if key.endswith("_s"):
        return "s"
    if key.endswith("_frac") or key in ("goodput_min",):
        return ""
    return None


_SIM_FOLDER = Path(__file__).resolve().parent / "sim"


def simulator_version() -> str:
    """The simulator's declared version, else a short hash of its source (same code, same version)."""
    import grading.core.sim

    declared = getattr(grading.core.sim, "__version__", None) or getattr(grading.core.sim, "VERSION", None)
    if declared:
        return str(declared)[:40]
    digest = hashlib.sha256()
    for path in sorted(_SIM_FOLDER.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return "sim-" + digest.hexdigest()[:12]


def replay_seed(key: int | str, scenario: str) -> int:
    """A 31-bit seed from a round id (or any key) and a scenario name; both sides of a scenario share it."""
    digest = hashlib.sha256(f"{key}:{scenario}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


def replay_seeds(key: int | str, scenario: str, count: int) -> list[int]:
    """`count` seeds for one scenario of a round: the first is `replay_seed(key, scenario)`, the others drawn
    the same way from `key#k`; both sides of a scenario share them."""
    return [replay_seed(key if k == 0 else f"{key}#{k}", scenario) for k in range(count)]


RESULT_INPUTS = ("family", "params", "events", "slo", "duration_s")  # what a replay's result depends on


def simulator_args(
    inputs: Mapping[str, Any],
) -> tuple[str, dict[str, Any], list[dict[str, Any]], dict[str, float], float]:
    """A replay's inputs as `run_scenario_seeds` takes them, before the seeds (RESULT_INPUTS, in order)."""
    return (inputs["family"], inputs["params"], inputs["events"], inputs["slo"], inputs["duration_s"])


def replay_result_key(inputs: Mapping[str, Any], seeds: Sequence[int], version: str) -> str:
    """A run's result depends on its simulator inputs (RESULT_INPUTS: the question version and the round's
    variant values resolved for its side), its seeds (from the round and the scenario) and the simulator's
    version, and on nothing else (not its title, description, side or fallbacks): a hash of exactly those,
    numbers compared as numbers (60 and 60.0, as a JSON column may give them back, are one key)."""
    payload = {
        "version": version,
        "seeds": [int(seed) for seed in seeds],
        **{name: _canonical(inputs.get(name)) for name in RESULT_INPUTS},
    }
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), allow_nan=True)
    return hashlib.sha256(text.encode()).hexdigest()


def _canonical(value: Any) -> Any:
    """Every number as a float's exact text, recursively (bools stay bools)."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, numbers.Real):
        return float(value).hex()
    if isinstance(value, Mapping):
        return {str(key): _canonical(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_canonical(item) for item in value]
    return repr(value)


def candidate_overrides(
    model: ReferenceModel, numbers: Mapping[str, str]
) -> tuple[dict[str, float], dict[str, Any]]:
    """The candidate's typed numbers in base units, and {name: why it was not used} for the others."""
    values: dict[str, float] = {}
    fallbacks: dict[str, str] = {}
    for name, text in numbers.items():
        if name not in model.quantities or not isinstance(text, str) or not text.strip():
            continue
        value = read_value(text, model.units[name])
        if isinstance(value, ParseFailure):
            fallbacks[name] = (
                f"could not read {text.strip()!r} ({value.message}); the reference value is used"
            )
        elif not math.isfinite(value) and not (value == math.inf and model.may_be_unbounded(name)):
            fallbacks[name] = f"{text.strip()!r} is not a finite number; the reference value is used"
        else:
            values[name] = float(value)
    return values, fallbacks


def evaluate_side(
    model: ReferenceModel,
    *,
    side: str,
    numbers: Mapping[str, str] | None = None,
    variant_values: Mapping[str, float] | None = None,
) -> tuple[dict[str, float], set[str], dict[str, str]]:
    """Every quantity in base units for one side, the names the candidate set, and the fallbacks.

    A candidate value that makes the model non-finite (a zero divisor, say) is dropped in favour of the
    reference value and noted, so a run always has numbers to simulate.
    """
    if side not in SIDES:
        raise ValueError(f"side must be one of {SIDES}, not {side!r}")
    base = {name: float(value) for name, value in (variant_values or {}).items() if name in model.quantities}
    typed, fallbacks = candidate_overrides(model, numbers or {}) if side == "candidate" else ({}, {})
    while True:
        try:
            values = model.evaluate({**base, **typed})
            break
        except ModelError as error:
            failing = error.problems[0][0]
            culprits = [name for name in typed if name == failing or name in model.upstream(failing)]
            if not culprits:
                raise
            for name in _blame(model, base, typed, culprits):
                fallbacks[name] = f"your value makes {failing} not finite; the reference value is used"
                del typed[name]
    return {name: float(value) for name, value in values.items()}, set(typed), fallbacks


def _blame(
    model: ReferenceModel, base: dict[str, Any], typed: dict[str, float], culprits: list[str]
) -> list[str]:
    """The one typed value whose removal lets the model evaluate, else all the culprits."""
    for name in culprits:
        try:
            model.evaluate({**base, **{k: v for k, v in typed.items() if k != name}})
        except ModelError:
            continue
        return [name]
    return culprits


def _param_source(model: ReferenceModel, quantity: str, typed: set[str]) -> str:
    if quantity in typed:
        return "candidate"
    if typed & model.upstream(quantity):
        return "candidate-derived"
    return "reference"


def _in_param_unit(key: str, quantity: str, base_value: float, model: ReferenceModel | None) -> float:
    """A quantity's base value in the unit simulator parameter `key` takes (PARAM_UNITS; base units else)."""
    return in_unit(key, PARAM_UNITS.get(key), quantity, base_value, model)


def in_unit(
    key: str, unit_text: str | None, quantity: str, base_value: float, model: ReferenceModel | None
) -> float:
    """A quantity's base value in `unit_text` (base units when None); ValueError when the quantity's
    dimension is not the unit's."""
    if unit_text is None:
        return base_value
    unit = parse_unit(unit_text)
    if model is not None and not compatible(model.dims(quantity), unit):
        raise ValueError(
            f"{key} is in {unit_text or 'no unit'}; {quantity!r} is in {model.units[quantity].text}"
        )
    return float(from_base(base_value, unit))


def _named(
    scenario: Mapping[str, Any],
    key: str,
    given: Any,
    unit_text: str | None,
    world: Mapping[str, float],
    model: ReferenceModel | None,
) -> Any:
    """An event field's or SLO target's value: a quantity name read from `world` in the field's unit, a number
    as a float (an event's other text, its type, as given)."""
    if isinstance(given, str):
        if given not in world:
            return given
        return in_unit(key, unit_text, given, world[given], model)
    return float(given)


def fleet_words(family: str, params: Mapping[str, float | None]) -> str:
    """The size of what a run simulates, to name it beside the scenario's title ("11-replica fleet"); a
    parameter with no limit is None."""
    if family == "serving":
        replicas = params.get("servers") or params.get("replicas")
        if replicas is not None and math.isfinite(replicas):
            return f"{replicas:,.0f}-replica fleet" if replicas != 1 else "1-replica fleet"
    gpus = params.get("gpus")
    if family == "training" and gpus is not None and math.isfinite(gpus):
        return f"{gpus:,.0f}-GPU job"
    return ""


def scenario_inputs(
    scenario: Mapping[str, Any],
    values: Mapping[str, float],
    *,
    model: ReferenceModel | None = None,
    typed: set[str] | None = None,
    world: Mapping[str, float] | None = None,
) -> dict[str, Any]:
    """One scenario's simulator inputs: params in base units (quantity names replaced by their values); a
    parameter with no limit (`unbounded`, or a quantity whose value is) is None, JSON's null (issue 30).
    Event fields and SLO targets that name quantities read `world` (the reference side's values; `values`
    when not given)."""
    world = values if world is None else world
    params: dict[str, float | None] = {}
    sources: dict[str, dict[str, str]] = {}
    for key, given in (scenario.get("params") or {}).items():
        if given == UNBOUNDED:
            params[key] = None
        elif isinstance(given, str):
            if given not in values:
                raise ValueError(
                    f"scenario {scenario.get('name')!r}: {given!r} is not a quantity of the model"
                )
            value = values[given]
            params[key] = _in_param_unit(key, given, value, model) if math.isfinite(value) else None
            origin = _param_source(model, given, typed or set()) if model is not None else "reference"
            sources[key] = {"quantity": given, "from": origin}
        else:
            params[key] = float(given)
    slo = {
        key: float(_named(scenario, key, target, slo_unit(key), world, model))
        for key, target in (scenario.get("slo") or {}).items()
    }
    events = [
        {
            key: value
            if key in ("at", "type")
            else _named(scenario, key, value, EVENT_FIELD_UNITS.get(key), world, model)
            for key, value in event.items()
        }
        for event in scenario.get("events") or []
    ]
    return {
        "scenario": scenario["name"],
        "title": scenario.get("title") or scenario["name"],
        "fleet": fleet_words(scenario["family"], params),
        "slo_words": [slo_words(key, target) for key, target in slo.items()],
        "description": scenario.get("description", ""),
        "family": scenario["family"],
        "params": params,
        "events": events,
        "slo": slo,
        "duration_s": float(scenario["duration_s"]),
        "sources": sources,
    }


def replay_inputs(
    spec: Mapping[str, Any],
    *,
    side: str,
    numbers: Mapping[str, str] | None = None,
    variant_values: Mapping[str, float] | None = None,
) -> list[dict[str, Any]]:
    """Inputs for every scenario of a question spec (as stored: the question file as JSON), in file order.

    Each entry also carries `side` and `fallbacks` ({quantity: why the candidate's text was not used}).
    """
    scenarios = spec.get("scenarios") or []
    if not scenarios:
        return []
    model = ReferenceModel.from_dict(spec["model"])
    values, typed, fallbacks = evaluate_side(model, side=side, numbers=numbers, variant_values=variant_values)
    world = evaluate_side(model, side="reference", variant_values=variant_values)[0] if typed else values
    # The descriptions speak of the round's values (the reference's, a variant's too): shown after submit.
    scenarios = answer_texts(spec, variant_values).get("scenarios") or scenarios
    return [
        {
            **scenario_inputs(scenario, values, model=model, typed=typed, world=world),
            "side": side,
            "fallbacks": fallbacks,
        }
        for scenario in scenarios
    ]


CURVEBALL_RUN_SEPARATOR = ":"  # never in a slug: a run named "CURVEBALL:SCENARIO" is a curveball's replay


def curveball_run_name(curveball_id: str, scenario: str) -> str:
    """The name a curveball's replay runs under: its id and the scenario it replays."""
    return f"{curveball_id}{CURVEBALL_RUN_SEPARATOR}{scenario}"


def is_curveball_run_name(name: str) -> bool:
    return CURVEBALL_RUN_SEPARATOR in name


def curveball_moved(model: ReferenceModel, changed: set[str]) -> set[str]:
    """The quantities a curveball's change moves: the inputs it sets and everything computed from them (the
    grader's curveball sheet keeps every other main-sheet line, with the candidate's number)."""
    return set(changed) | {name for name in model.quantities if changed & model.upstream(name)}


def curveball_replay_inputs(
    spec: Mapping[str, Any],
    curveball_id: str,
    *,
    side: str,
    numbers: Mapping[str, str] | None = None,
    curveball_numbers: Mapping[str, str] | None = None,
    variant_values: Mapping[str, float] | None = None,
) -> dict[str, Any] | None:
    """The inputs of the scenario a curveball names, under the curveball's change; None when it names none.

    Both sides take the change as fixed inputs (over the round's variant values). The candidate side carries
    their numbers as the grader does for the curveball: their curveball lines, and their main-sheet numbers
    for the quantities the change does not move (error carried forward); a main-sheet number the change moves
    is a pre-change value and is not used. The reference side is the model under the change.
    """
    curveball = next((item for item in spec.get("curveballs") or [] if item["id"] == curveball_id), None)
    if curveball is None or not curveball.get("scenario"):
        return None
    scenario = next(
        (item for item in spec.get("scenarios") or [] if item["name"] == curveball["scenario"]), None
    )
    if scenario is None:
        raise ValueError(f"curveball {curveball_id!r}: no scenario {curveball['scenario']!r} in the question")
    model = ReferenceModel.from_dict(spec["model"])
    changed = {name: float(model.base_value(name, value)) for name, value in curveball["set"].items()}
    typed: dict[str, str] = {}
    if side == "candidate":
        moved = curveball_moved(model, set(changed))
        own = {line["name"] for line in curveball["asked"]}
        typed = {
            name: text for name, text in (numbers or {}).items() if name not in moved and name not in own
        }
        typed.update({name: text for name, text in (curveball_numbers or {}).items() if name in own})
    values, used, fallbacks = evaluate_side(
        model, side=side, numbers=typed, variant_values={**(variant_values or {}), **changed}
    )
    index = list(spec["scenarios"]).index(scenario)
    scenario = answer_texts(spec, {**(variant_values or {}), **changed})["scenarios"][index]
    world = evaluate_side(model, side="reference", variant_values={**(variant_values or {}), **changed})[0]
    entry = scenario_inputs(scenario, values, model=model, typed=used, world=world)
    return {
        **entry,
        "side": side,
        "fallbacks": fallbacks,
        "curveball": curveball_id,
        "curveball_title": curveball["title"],
    }
