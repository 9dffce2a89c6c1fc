"""Question files on disk: the bank's YAML reading rules, the palette, the shared workload figures, one
question file, a whole pack.

`load_pack(folder)` reads every question file of a pack: a broken file yields its errors, the others still
load.

Shared workload figures (`workloads.yaml`, beside the palette) are inputs several questions use, such as the
request rate of one 70B TP8 replica: defined once, with a source. A question takes one with
`{name: <figure>, shared: true}` (it may add a label, `variable` and a note; the value, unit, range and source
come from the file), and a question that defines an input of the same name with another value, unit or range
is refused. Figures are resolved when the file is read, so a stored question version holds the values it was
published with.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from pathlib import Path
from typing import Any

import yaml

from grading.core.box_words import KindWords, read_terms
from grading.core.model import ModelError, read_model
from grading.core.question_reader import FieldReader, parse_question
from grading.core.question_types import PaletteComponent, QuestionSpec, SpecError

_SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's parser when available: 10x faster


# The base is chosen at import (libyaml's or the pure one), so mypy sees a variable, not a class.
class BankYamlLoader(_SafeLoader):  # type: ignore[misc, valid-type]
    """Safe YAML with three fixes for hand-written files, as in YAML 1.2: `1e6` is a number (YAML 1.1 reads it
    as text), only true/false are booleans (`id: off` stays the text "off"), and a key given twice in one
    mapping is an error instead of silently keeping the last."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            try:
                duplicate = key in seen
            except TypeError:
                continue  # unhashable: the base constructor reports it
            if duplicate:
                raise yaml.constructor.ConstructorError(
                    None, None, f"key {key!r} appears twice", key_node.start_mark
                )
            seen.add(key)
        mapping: dict[Any, Any] = super().construct_mapping(node, deep)
        return mapping


BankYamlLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:bool"]
    for first, resolvers in _SafeLoader.yaml_implicit_resolvers.items()
}
BankYamlLoader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)
BankYamlLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9][0-9_]*)(?:\.[0-9_]*)?[eE][-+]?[0-9]+$"),
    list("-+0123456789"),
)


def read_yaml(path: str | Path) -> Any:
    """Load one YAML file with our loader (raises yaml.YAMLError, OSError)."""
    with open(path, encoding="utf-8") as handle:
        return yaml.load(handle, Loader=BankYamlLoader)  # noqa: S506 - BankYamlLoader is a SafeLoader


def _read_checked(path: str | Path, field: str) -> Any:
    """`read_yaml`, with an unreadable file raised as a SpecError on `field`, naming the file."""
    try:
        return read_yaml(path)
    except (OSError, yaml.YAMLError) as error:
        raise SpecError([(field, _yaml_message(error))], Path(path).name) from None


def load_palette(path: str | Path) -> dict[str, PaletteComponent]:
    """The component palette, keyed by kind (so `kind in palette` works). Raises SpecError on a bad file."""
    return load_palette_file(path)[0]


def load_palette_file(path: str | Path) -> tuple[dict[str, PaletteComponent], KindWords, int]:
    """The palette by kind, the vocabulary's common jobs and failure modes, and the palette's version."""
    name = Path(path).name
    data = _read_checked(path, "palette")
    reader = FieldReader()
    top = reader.mapping(data, "", {"version", "common", "components"})
    version = top.get("version", 0)
    if not isinstance(version, int) or isinstance(version, bool) or version < 0:
        reader.add("version", "must be a whole number")
        version = 0
    common_entry = reader.mapping(top.get("common") or {}, "common", {"jobs", "failures"})
    common = KindWords(
        read_terms(common_entry.get("jobs"), "common.jobs", reader.problems),
        read_terms(common_entry.get("failures"), "common.failures", reader.problems),
    )
    palette: dict[str, PaletteComponent] = {}
    allowed = {"kind", "name", "group", "synonyms", "job", "failure", "jobs", "failures"}
    for index, item in enumerate(reader.items(top, "components", "components", required=True)):
        field = f"components[{index}]"
        entry = reader.mapping(item, field, allowed)
        kind = reader.text(entry, "kind", f"{field}.kind")
        if kind in palette:
            reader.add(f"{field}.kind", f"{kind!r} appears twice")
        synonyms = entry.get("synonyms", [])
        if not isinstance(synonyms, list) or not all(isinstance(word, str) for word in synonyms):
            reader.add(f"{field}.synonyms", "must be a list of words")
            synonyms = []
        texts = [reader.text(entry, key, f"{field}.{key}") for key in ("name", "group", "job", "failure")]
        jobs = read_terms(entry.get("jobs"), f"{field}.jobs", reader.problems)
        failures = read_terms(entry.get("failures"), f"{field}.failures", reader.problems)
        if kind:
            palette[kind] = PaletteComponent(
                kind, texts[0], texts[1], tuple(synonyms), texts[2], texts[3], jobs, failures
            )
    if reader.problems:
        raise SpecError(reader.problems, name)
    return palette, common, version


WORKLOADS_FILE = "workloads.yaml"
DEFAULT_WORKLOADS_PATH = Path(__file__).resolve().parents[2] / "questions" / "bank" / WORKLOADS_FILE
_SHARED_OVERRIDES = frozenset({"name", "shared", "label", "variable", "note"})
_SHARED_IDENTITY = ("value", "unit", "range")


def load_workloads(path: str | Path) -> dict[str, dict[str, Any]]:
    """The shared workload figures by name, each an input quantity as a question file writes one. Raises
    SpecError on a bad file."""
    name = Path(path).name
    data = _read_checked(path, "yaml")
    reader = FieldReader()
    top = reader.mapping(data, "", {"figures"})
    figures = reader.items(top, "figures", "figures", required=True)
    if not reader.problems:
        try:
            read_model({"quantities": figures})
        except ModelError as error:
            reader.problems.extend((f"figures.{field}", message) for field, message in error.problems)
    by_name: dict[str, dict[str, Any]] = {}
    for figure in figures:
        if isinstance(figure, dict) and "formula" in figure:
            reader.add(f"figures.{figure.get('name')}", "a shared figure is an input: a value, not a formula")
        elif isinstance(figure, dict):
            by_name[str(figure.get("name"))] = figure
    if reader.problems:
        raise SpecError(reader.problems, name)
    return by_name


def resolve_shared(data: Any, workloads: dict[str, dict[str, Any]]) -> tuple[Any, list[tuple[str, str]]]:
    """`data` with each `shared: true` quantity filled in from `workloads`, and the problems: an unknown
    figure, a shared quantity that sets its own value, or an input redefining a figure differently."""
    model = data.get("model") if isinstance(data, dict) else None
    if not isinstance(model, dict):
        return data, []
    quantities = model.get("quantities")
    if not isinstance(quantities, list):
        return data, []
    problems: list[tuple[str, str]] = []
    resolved = [_resolve_quantity(item, workloads, problems) for item in quantities]
    return {**data, "model": {**model, "quantities": resolved}}, problems


def _resolve_quantity(
    item: Any, workloads: dict[str, dict[str, Any]], problems: list[tuple[str, str]]
) -> Any:
    if not isinstance(item, dict) or not isinstance(item.get("name"), str):
        return item
    name, figure = item["name"], workloads.get(item["name"])
    where = f"model.{name}"
    if item.get("shared") is not None:
        if item["shared"] is not True:
            problems.append((where, "shared must be true (or left out)"))
            return {key: value for key, value in item.items() if key != "shared"}
        if figure is None:
            problems.append((where, f"{name!r} is not a shared workload figure ({WORKLOADS_FILE})"))
            return {key: value for key, value in item.items() if key != "shared"}
        extra = sorted(set(item) - _SHARED_OVERRIDES)
        if extra:
            problems.append(
                (where, f"takes {', '.join(extra)} from the shared figure in {WORKLOADS_FILE}; remove them")
            )
        kept = {key: item[key] for key in ("label", "variable", "note") if key in item}
        return {**figure, **kept}
    if figure is not None and "formula" not in item:
        differs = [key for key in _SHARED_IDENTITY if item.get(key) != figure.get(key)]
        if differs:
            problems.append(
                (
                    where,
                    f"redefines the shared workload figure {name} ({figure['value']} {figure['unit']}, "
                    f"range {figure['range']}) with another {', '.join(differs)}; "
                    f"write {{name: {name}, shared: true}}",
                )
            )
    return item


def pack_workloads(folder: Path) -> dict[str, dict[str, Any]]:
    """The shared figures a pack folder's questions read: its own file, its parent's, else the bank's."""
    for candidate in (folder / WORKLOADS_FILE, folder.parent / WORKLOADS_FILE, DEFAULT_WORKLOADS_PATH):
        if candidate.exists():
            return load_workloads(candidate)
    return {}


def load_question(
    path: str | Path,
    *,
    palette: Collection[str] | None = None,
    workloads: dict[str, dict[str, Any]] | None = None,
) -> QuestionSpec:
    """Read and parse one question file (raises SpecError, naming the file). `workloads`: the shared
    workload figures; by default `workloads.yaml` in the file's folder or its parent, else the bank's own."""
    name = Path(path).name
    data = _read_checked(path, "yaml")
    if workloads is None:
        workloads = pack_workloads(Path(path).parent)
    data, problems = resolve_shared(data, workloads)
    if problems:
        raise SpecError(problems, name)
    return parse_question(data, name, palette=palette)


def pack_question_paths(folder: Path) -> list[Path]:
    """The question files of a pack folder, in file-name order: each `*.yaml` but the palette and the shared
    workload figures."""
    skipped = ("palette.yaml", WORKLOADS_FILE)
    return [path for path in sorted(folder.glob("*.yaml")) if path.name not in skipped]


def load_pack(
    folder: str | Path, *, palette: Collection[str] | str | Path | None = None
) -> tuple[list[QuestionSpec], list[str]]:
    """Every question in `folder` (each `*.yaml` but palette.yaml, in file-name order) and one
    `file: field: message` line per problem; a broken file is left out and the others still load.

    `palette`: the kinds, or a palette file; by default `palette.yaml` in the folder or its parent (if neither
    exists, design kinds are not checked)."""
    folder = Path(folder)
    errors: list[str] = []
    kinds = _pack_palette(folder, palette, errors)
    try:
        workloads = pack_workloads(folder)
    except SpecError as error:
        return [], error.lines()
    specs = []
    for path in pack_question_paths(folder):
        try:
            specs.append(load_question(path, palette=kinds, workloads=workloads))
        except SpecError as error:
            errors += error.lines()
    return specs, errors


def _pack_palette(
    folder: Path, palette: Collection[str] | str | Path | None, errors: list[str]
) -> Collection[str] | None:
    if palette is not None and not isinstance(palette, str | Path):
        return palette
    candidates = (
        [Path(palette)] if palette is not None else [folder / "palette.yaml", folder.parent / "palette.yaml"]
    )
    for candidate in candidates:
        if candidate.exists():
            try:
                return load_palette(candidate)
            except SpecError as error:
                errors += error.lines()
                return None
    if palette is not None:
        errors.append(f"{Path(palette).name}: palette: file not found")
    return None


def _yaml_message(error: Exception) -> str:
    mark = getattr(error, "problem_mark", None)
    problem = getattr(error, "problem", None) or str(error)
    return f"{problem} (line {mark.line + 1}, column {mark.column + 1})" if mark else problem
