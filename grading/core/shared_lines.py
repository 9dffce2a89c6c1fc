"""Which questions' answers a check of another question states.

A check grades a question's asked lines and shows their reference values and the working behind them: any
value of its model can appear. Another question's answer is revealed when one of those values equals it to
two significant figures in the same dimension (a shared workload figure, the same derivation, or a
coincidence a reader would still notice: "141 GB"). A review question's asked inputs are no answers: its
round opens with them on the sheet. Pure Python: no Django.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, SupportsFloat

from grading.core.model import ReferenceModel

Figure = tuple[float, str]  # a value to two significant figures, in base units, and its dimension


def _figure(raw: SupportsFloat, dims: object) -> Figure | None:
    value = float(raw)
    if not math.isfinite(value) or value == 0:
        return None
    return float(f"{value:.2g}"), str(dims)


def stated_figures(spec: Mapping[str, Any]) -> set[Figure]:
    """Every value a check of this question may state, as figures."""
    model = ReferenceModel.from_dict(spec["model"])
    values = model.evaluate({})
    figures = (_figure(value, model.units[name].dims) for name, value in values.items())
    return {figure for figure in figures if figure is not None}


def answer_figures(spec: Mapping[str, Any]) -> dict[str, Figure]:
    """The asked lines a round of this question must keep hidden, each as a figure."""
    model = ReferenceModel.from_dict(spec["model"])
    values = model.evaluate({})
    inputs = {q["name"] for q in spec["model"]["quantities"] if "formula" not in q}
    review = spec.get("kind") == "review"
    answers = {}
    for line in spec.get("asked") or []:
        name = line.get("name")
        if name not in values or (review and name in inputs):
            continue
        figure = _figure(values[name], model.units[name].dims)
        if figure is not None:
            answers[name] = figure
    return answers


def revealed_answers(stated: set[Figure], answers: Mapping[str, Figure]) -> list[str]:
    """The names of the answers a check stating `stated` reveals, sorted."""
    return sorted(name for name, figure in answers.items() if figure in stated)
