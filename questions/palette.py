"""The shared component palette, loaded once, and the slice of it the canvas offers."""

from functools import lru_cache
from pathlib import Path

from grading.core.question_files import load_palette
from grading.core.question_types import PaletteComponent

PALETTE_FILE = Path(__file__).resolve().parent.parent / "questions" / "bank" / "palette.yaml"
GROUP_ORDER = {"serving": 0, "platform": 1, "training": 2, "data": 3}


@lru_cache(maxsize=1)
def palette_components() -> dict[str, PaletteComponent]:
    return load_palette(PALETTE_FILE)


def palette_for_canvas(spec: dict) -> list[dict]:
    """Every palette component, serving boxes first. Never only the reference's boxes: that would give the
    answer away."""
    del spec
    components = sorted(palette_components().values(), key=lambda c: GROUP_ORDER.get(c.group, 9))
    return [{"kind": c.kind, "name": c.name, "synonyms": list(c.synonyms)} for c in components]
