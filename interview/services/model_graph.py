"""The model check's dependency graph, laid out for the editor's SVG: inputs in the left column, each result
one column right of the deepest quantity it reads, arrows from reader to read, cycles marked."""

from collections.abc import Mapping
from dataclasses import dataclass, field

from grading.core.formula import FormulaError, parse_formula

NODE_WIDTH, NODE_HEIGHT, COLUMN_GAP, ROW_GAP = 190, 46, 70, 16


@dataclass
class GraphNode:
    name: str
    label: str
    kind: str
    value: str
    broken: bool
    x: int = 0
    y: int = 0


@dataclass
class GraphEdge:
    source: str
    target: str
    in_cycle: bool
    x1: int = 0
    y1: int = 0
    x2: int = 0
    y2: int = 0


@dataclass
class ModelGraph:
    """Boxes and arrows with their SVG coordinates, and the drawing's size."""

    nodes: list[GraphNode] = field(default_factory=list)
    edges: list[GraphEdge] = field(default_factory=list)
    width: int = 0
    height: int = 0


def model_graph(items: list, broken: set[str], shown: Mapping[str, str]) -> ModelGraph:
    """The graph of the quantities as typed (`items`); `broken` names the quantities with a problem (a formula
    that does not parse is added to it), `shown` each quantity's value as text."""
    graph = ModelGraph()
    reads: dict[str, set[str]] = {}
    labels: dict[str, tuple[str, str]] = {}
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("name"), str) or item["name"] in reads:
            continue
        name, formula = item["name"], item.get("formula")
        names: set[str] = set()
        if isinstance(formula, str):
            try:
                names = set(parse_formula(formula).names)
            except FormulaError:
                broken.add(name)
        reads[name] = names
        labels[name] = (str(item.get("label", ""))[:80], "derived" if "formula" in item else "input")
    for name in reads:
        reads[name] &= reads.keys()
    depth = {name: 0 for name in reads}
    for _ in range(len(reads)):  # longest path from an input; bounded, so a cycle cannot loop forever
        changed = False
        for name, deps in reads.items():
            best = max((depth[dep] + 1 for dep in deps), default=0)
            if best > depth[name] and best <= len(reads):
                depth[name], changed = best, True
        if not changed:
            break
    columns: dict[int, int] = {}
    positions: dict[str, tuple[int, int]] = {}
    for name in reads:
        column = depth[name]
        row = columns.get(column, 0)
        columns[column] = row + 1
        x, y = 10 + column * (NODE_WIDTH + COLUMN_GAP), 10 + row * (NODE_HEIGHT + ROW_GAP)
        positions[name] = (x, y)
        label, kind = labels[name]
        graph.nodes.append(GraphNode(name, label, kind, shown.get(name, "—"), name in broken, x, y))
    reach = {name: _reachable(name, reads) for name in reads}
    for target, deps in reads.items():
        for source in sorted(deps):
            (sx, sy), (tx, ty) = positions[source], positions[target]
            graph.edges.append(
                GraphEdge(
                    source,
                    target,
                    target in reach[source],  # the source reads its reader back: a cycle
                    sx + NODE_WIDTH,
                    sy + NODE_HEIGHT // 2,
                    tx,
                    ty + NODE_HEIGHT // 2,
                )
            )
    graph.width = 20 + (max(columns, default=0) + 1) * (NODE_WIDTH + COLUMN_GAP)
    graph.height = 20 + max(columns.values(), default=0) * (NODE_HEIGHT + ROW_GAP)
    return graph


def _reachable(start: str, reads: dict[str, set[str]]) -> set[str]:
    """Every quantity `start` reads, directly or not."""
    seen: set[str] = set()
    pending = list(reads.get(start, ()))
    while pending:
        name = pending.pop()
        if name not in seen:
            seen.add(name)
            pending.extend(reads.get(name, ()))
    return seen
