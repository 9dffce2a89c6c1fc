"""Question packs: export published questions as the YAML files the bank loads from, and import such files.

Import checks every file first. A broken file loads nothing and is reported as `file: field: message`; the
valid files of the same upload still load, as `load_questions` does for the bank. Importing what was exported
changes nothing: an unchanged file makes no new version.
"""

import io
import math
import re
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from config.service_errors import ServiceError
from grading.core.question_export import spec_to_dict
from grading.core.question_files import BankYamlLoader, pack_question_paths
from grading.core.question_reader import parse_question
from grading.core.question_types import SpecError
from questions.models import Question
from questions.palette import PALETTE_FILE, palette_components
from questions.services.question_bank import LoadReport

MAX_FILE_BYTES = 512 * 1024
MAX_FILES = 300
_FLOAT_TEXT = re.compile(r"^[-+]?(?:[0-9][0-9_]*)(?:\.[0-9_]*)?[eE][-+]?[0-9]+$")


class _Dumper(yaml.SafeDumper):
    """Quotes text such as "1e6" that the bank's loader (YAML 1.2 rules) would read as a number."""


_Dumper.add_implicit_resolver("tag:yaml.org,2002:float", _FLOAT_TEXT, list("-+0123456789"))


def _str_presenter(dumper: yaml.SafeDumper, text: str) -> yaml.Node:
    style = "|" if "\n" in text and text == text.rstrip(" ") and "\t" not in text else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style=style)


_Dumper.add_representer(str, _str_presenter)


def number_notation(value: float) -> str:
    """A number as an author writes it: 13e9 for 13000000000.0, 1e-5 for 1e-05, 0.5 and 2.0 as they are."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    if value == math.inf:
        return "unbounded"  # the model language's no-limit value (issue 30)
    if isinstance(value, int) or not math.isfinite(value):
        return str(value)
    text = repr(value)
    if "e" in text:
        mantissa, exponent = text.split("e")
        return f"{mantissa.removesuffix('.0')}e{int(exponent)}"
    if value.is_integer() and abs(value) >= 1e4:
        digits = str(int(abs(value)))
        zeros = len(digits) - len(digits.rstrip("0"))
        if zeros >= 3:
            return f"{'-' if value < 0 else ''}{digits.rstrip('0')}e{zeros}"
    return text


def _float_presenter(dumper: yaml.SafeDumper, value: float) -> yaml.Node:
    if not math.isfinite(value):
        return dumper.represent_float(value)
    return dumper.represent_scalar("tag:yaml.org,2002:float", number_notation(value))


_Dumper.add_representer(float, _float_presenter)


def yaml_read_text(text: str) -> Any:
    """Parse YAML text by the bank's rules (raises yaml.YAMLError). Aliases are refused: a few lines of them
    can expand to gigabytes once the data is walked or stored as JSON."""
    for event in yaml.parse(text, Loader=BankYamlLoader):
        if isinstance(event, yaml.AliasEvent):
            raise yaml.composer.ComposerError(
                None,
                None,
                "anchors and aliases (*name) are not allowed",
                event.start_mark,  # type: ignore[arg-type]  # libyaml's Mark: the error only formats it
            )
    return yaml.load(text, Loader=BankYamlLoader)  # noqa: S506 - a SafeLoader subclass


def yaml_dump(data: Any) -> str:
    """YAML text that `grading.core.question_files.read_yaml` reads back to the same data."""
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=110)


def yaml_error_message(error: Exception) -> str:
    mark = getattr(error, "problem_mark", None)
    problem = getattr(error, "problem", None) or str(error)
    return f"{problem} (line {mark.line + 1}, column {mark.column + 1})" if mark else problem


@dataclass
class ImportReport(LoadReport):
    files: list[str] = field(default_factory=list)


class PackRefused(ServiceError):
    """Files of a pack that were refused (the valid ones were loaded): `errors` by file, and what loaded."""

    status = 422

    def __init__(self, report: ImportReport) -> None:
        self.report = report
        super().__init__(
            f"{len(self.field_errors())} of {len(report.files)} files were refused; the others were loaded."
        )

    def field_errors(self) -> dict[str, list[str]]:
        errors: dict[str, list[str]] = {}
        for line in self.report.errors:
            name, _, problem = line.partition(": ")
            errors.setdefault(name, []).append(problem)
        return errors

    def extra(self) -> dict[str, Any]:
        return {key: getattr(self.report, key) for key in ("created", "updated", "unchanged")}


def pack_export(*, slugs: list[str] | None = None) -> dict[str, str]:
    """File name -> YAML text of each published question's current version (all, or those in `slugs`)."""
    questions = Question.objects.published()
    if slugs:
        questions = questions.filter(slug__in=slugs)
    return {f"{q.slug}.yaml": yaml_dump(q.current_version.spec) for q in questions.order_by("slug")}


def pack_export_zip(*, slugs: list[str] | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in pack_export(slugs=slugs).items():
            archive.writestr(name, text)
    return buffer.getvalue()


def pack_export_folder(*, folder: Path, slugs: list[str] | None = None) -> list[str]:
    folder.mkdir(parents=True, exist_ok=True)
    files = pack_export(slugs=slugs)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return list(files)


def pack_files_from_upload(name: str, content: bytes) -> dict[str, bytes]:
    """The question files of an upload: one .yaml file, or every .yaml file of a .zip (palette.yaml aside).
    Raises ValueError for anything else, or an archive too big to be a pack."""
    if name.endswith((".yaml", ".yml")):
        return {PurePosixPath(name).name: content}
    if not name.endswith(".zip"):
        raise ValueError(f"{name}: upload a .yaml file or a .zip of them")
    try:
        archive = zipfile.ZipFile(io.BytesIO(content))
    except zipfile.BadZipFile:
        raise ValueError(f"{name}: not a zip archive") from None
    files: dict[str, bytes] = {}
    for info in archive.infolist():
        base = PurePosixPath(info.filename).name
        if info.is_dir() or not base.endswith(".yaml") or base == PALETTE_FILE.name:
            continue
        if len(files) >= MAX_FILES:
            raise ValueError(f"{name}: more than {MAX_FILES} files")
        if info.file_size > MAX_FILE_BYTES:
            raise ValueError(f"{base}: larger than {MAX_FILE_BYTES // 1024} KB")
        with archive.open(info) as handle:
            files[base] = handle.read(MAX_FILE_BYTES + 1)[:MAX_FILE_BYTES]
    return files


def pack_files_from_folder(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes()[: MAX_FILE_BYTES + 1] for path in pack_question_paths(folder)}


def pack_check(files: Mapping[str, bytes | str]) -> tuple[dict[str, dict], list[str]]:
    """Every file checked, nothing written: (file name -> question dict of the valid ones, error lines)."""
    kinds = palette_components()
    valid: dict[str, dict] = {}
    errors: list[str] = []
    for name in sorted(files):
        content = files[name]
        try:
            if len(content) > MAX_FILE_BYTES:
                raise SpecError([("file", f"larger than {MAX_FILE_BYTES // 1024} KB")], name)
            text = content.decode("utf-8") if isinstance(content, bytes) else content
            try:
                data = yaml_read_text(text)
            except yaml.YAMLError as error:
                raise SpecError([("yaml", yaml_error_message(error))], name) from None
            valid[name] = spec_to_dict(parse_question(data, name, palette=kinds))
        except UnicodeDecodeError:
            errors.append(f"{name}: file: is not UTF-8 text")
        except SpecError as error:
            errors.extend(f"{name}: {where}: {message}" for where, message in error.problems)
    return valid, errors


def pack_import(*, files: Mapping[str, bytes | str], source: str, created_by=None) -> ImportReport:
    """Check every file, then publish the valid ones (an unchanged file makes no new version)."""
    valid, errors = pack_check(files)
    report = ImportReport(errors=errors, files=sorted(files))
    for name, spec_dict in valid.items():
        report.publish(spec_dict=spec_dict, source=f"{source}/{name}"[:200], created_by=created_by)
    return report
