// The model check's dependency graph (templates/authoring/editor.html, #model-graph): the server draws it in
// plain columns; here dagre (static/vendor/@dagrejs/dagre) lays it out again so arrows bend around boxes
// instead of running behind them, and the drawing is sized to the whole layout, so nothing is clipped.
(function () {
  "use strict";
  const SVG = "http://www.w3.org/2000/svg";
  const MARGIN = 12;

  function layOut(svg) {
    if (!window.dagre || svg.dataset.laidOut === "1") return;
    const graph = new dagre.graphlib.Graph({ multigraph: true });
    graph.setGraph({ rankdir: "LR", nodesep: 18, ranksep: 70, edgesep: 12, marginx: MARGIN, marginy: MARGIN });
    graph.setDefaultEdgeLabel(() => ({}));
    const nodes = new Map();
    for (const g of svg.querySelectorAll("g.node[data-quantity]")) {
      const rect = g.querySelector("rect");
      const box = { width: Number(rect.getAttribute("width")), height: Number(rect.getAttribute("height")) };
      nodes.set(g.dataset.quantity, { g, x: Number(rect.getAttribute("x")), y: Number(rect.getAttribute("y")) });
      graph.setNode(g.dataset.quantity, box);
    }
    const lines = Array.from(svg.querySelectorAll("line.edge[data-source][data-target]"));
    lines.forEach((line, index) => {
      const { source, target } = line.dataset;
      if (nodes.has(source) && nodes.has(target)) graph.setEdge(source, target, {}, String(index));
    });
    dagre.layout(graph);
    for (const [name, node] of nodes) {
      const placed = graph.node(name);
      const left = placed.x - placed.width / 2;
      const top = placed.y - placed.height / 2;
      node.g.setAttribute("transform", `translate(${left - node.x} ${top - node.y})`);
    }
    // Columns: the x band of each rank. An arrow leaves its box from the side facing the other box, crosses
    // the gaps between columns only diagonally, and crosses a column only straight across, at the height
    // dagre kept free for it: so it never runs through a box it does not join.
    const bands = [];
    for (const name of nodes.keys()) {
      const placed = graph.node(name);
      const band = [placed.x - placed.width / 2, placed.x + placed.width / 2];
      if (!bands.some(([left, right]) => left === band[0] && right === band[1])) bands.push(band);
    }
    const bandOf = (x) => bands.find(([left, right]) => left < x && x < right);
    const side = (placed, towardsX) =>
      towardsX > placed.x
        ? { x: placed.x + placed.width / 2, y: placed.y }
        : { x: placed.x - placed.width / 2, y: placed.y };
    lines.forEach((line, index) => {
      const { source, target } = line.dataset;
      const edge = nodes.has(source) && nodes.has(target) ? graph.edge(source, target, String(index)) : null;
      if (!edge) return;
      const from = graph.node(source);
      const to = graph.node(target);
      const route = [side(from, to.x)];
      for (const point of edge.points.slice(1, -1)) {
        const band = bandOf(point.x);
        if (!band) {
          route.push(point);
        } else {
          const [left, right] = from.x < to.x ? band : [band[1], band[0]];
          route.push({ x: left, y: point.y }, { x: right, y: point.y });
        }
      }
      route.push(side(to, from.x));
      const path = document.createElementNS(SVG, "polyline");
      path.setAttribute("class", line.getAttribute("class"));
      path.setAttribute("points", route.map((p) => `${p.x},${p.y}`).join(" "));
      path.dataset.source = source;
      path.dataset.target = target;
      line.replaceWith(path);
    });
    const size = graph.graph();
    const width = Math.ceil(size.width);
    const height = Math.ceil(size.height);
    svg.setAttribute("width", width);
    svg.setAttribute("height", height);
    svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
    svg.dataset.laidOut = "1";
  }

  function layOutAll() {
    for (const svg of document.querySelectorAll("svg#model-graph")) layOut(svg);
  }

  document.addEventListener("DOMContentLoaded", layOutAll);
  document.addEventListener("htmx:afterSettle", layOutAll);
})();
