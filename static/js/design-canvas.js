/*
 * Sevenbox design canvas: boxes from the component palette, arrows between them, a job and a way to
 * fail for each box. Plain ES2020, no build step, safe under CSP `script-src 'self'`.
 *
 * Load order on a page:
 *   static/vendor/cytoscape/cytoscape.min.js
 *   static/vendor/cytoscape-dagre/cytoscape-dagre.min.js       (auto-layout; bundles dagre)
 *   static/vendor/lodash/lodash.min.js                          (edgehandles takes window._)
 *   static/vendor/cytoscape-edgehandles/cytoscape-edgehandles.js
 *   static/js/design-canvas.js
 *
 * API:
 *   const canvas = SevenboxCanvas.mount(containerEl, {palette, design, readOnly, markable, onChange});
 *   canvas.getDesign() / setDesign(design) / undo() / redo() / destroy() / flush() / lock()
 *   canvas.selection() / svg() / zoom() / geometry()   (what is selected, the SVG export, for tests)
 *   canvas.boxRect(id)               where box `id` is drawn, in client pixels (tests, popovers)
 *   SevenboxCanvas.autoMount(root?)  mounts every [data-sevenbox-canvas] inside root (see autoMount below)
 *   SevenboxCanvas.get(containerEl)  the controller mounted on that element, or null
 *
 * Design JSON: {nodes: [{id, kind, label, job, failure, x, y, parent?}], edges: [{source, target, label}],
 *               marks: [{target: id | "a->b", what, how}],     (only when markable or present)
 *               notes: [{id, text, x, y}],                     (free notes; only when present)
 *               groups: [{id, label, parent?}]}                (containers; a box or group names its group
 *                                                               in `parent`; only when present)
 *
 * User text only ever reaches the page through textContent, input values and cytoscape data.
 */
(function () {
  "use strict";

  const LABEL_MAX = 80;
  const TEXT_MAX = 200;
  const CHANGE_DELAY_MS = 300;
  const HISTORY_MAX = 200;
  const MOVE_STEP = 20;
  const MOVE_STEP_BIG = 80;
  const GRID_COLUMNS = 4;
  const GRID_DX = 240;
  const GRID_DY = 170;
  const NOTE_MAX = 400;
  const SNAP = 20;
  const BOX_WIDTH = 180;
  const NOTE_WIDTH = 170;
  const FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
  const DESIGN_KEYS = ["nodes", "edges", "marks", "notes", "groups"];
  const PASTE_OFFSET = 40;

  const controllers = new WeakMap();
  let widgetCount = 0;

  // ---- small DOM helpers (text is set with textContent, never parsed as HTML) ----

  function el(tag, attrs, children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (name === "text") node.textContent = value;
      else if (name === "className") node.className = value;
      else node.setAttribute(name, value === true ? "" : String(value));
    }
    for (const child of children || []) {
      if (child) node.appendChild(child);
    }
    return node;
  }

  function clip(value, max) {
    return String(value === null || value === undefined ? "" : value).slice(0, max);
  }

  function isTextField(target) {
    if (!target || !target.tagName) return false;
    const tag = target.tagName.toLowerCase();
    if (tag === "textarea" || tag === "select") return true;
    if (tag === "input") return !["button", "checkbox", "radio", "submit", "reset"].includes(target.type);
    return Boolean(target.isContentEditable);
  }

  function edgeKey(source, target) {
    return source + "->" + target;
  }

  // ---- palette ----

  function normalisePalette(palette) {
    const list = Array.isArray(palette) ? palette : (palette && palette.components) || [];
    return list
      .filter((item) => item && item.kind)
      .map((item) => ({
        kind: String(item.kind),
        name: String(item.name || item.kind),
        synonyms: Array.isArray(item.synonyms) ? item.synonyms.map(String) : [],
      }));
  }

  // Matches on name, kind or synonym (case-insensitive substring); names that start with the query first.
  function searchPalette(palette, query) {
    const q = query.trim().toLowerCase();
    if (!q) return palette.map((item) => ({ item, via: "" }));
    const scored = [];
    for (const item of palette) {
      const name = item.name.toLowerCase();
      let score = -1;
      let via = "";
      if (name.startsWith(q)) score = 0;
      else if (name.includes(q)) score = 1;
      else if (item.kind.toLowerCase().includes(q)) score = 2;
      else {
        const synonym = item.synonyms.find((s) => s.toLowerCase().includes(q));
        if (synonym !== undefined) {
          score = synonym.toLowerCase().startsWith(q) ? 2 : 3;
          via = synonym;
        }
      }
      if (score >= 0) scored.push({ item, via, score });
    }
    scored.sort((a, b) => a.score - b.score);
    return scored.map(({ item, via }) => ({ item, via }));
  }

  // ---- design normalisation ----

  function position(raw, into) {
    if (raw.x !== null && raw.y !== null && Number.isFinite(Number(raw.x)) && Number.isFinite(Number(raw.y))) {
      into.x = Number(raw.x);
      into.y = Number(raw.y);
    }
    return into;
  }

  // Boxes, arrows, and (when present) failure marks, free notes and groups. Ids are unique across boxes, notes
  // and groups; a box or group names its group in `parent`; a group whose parents loop loses its parent.
  function normaliseDesign(design) {
    const source = design && typeof design === "object" ? design : {};
    const extra = {};
    for (const [key, value] of Object.entries(source)) {
      if (!DESIGN_KEYS.includes(key)) extra[key] = value;
    }
    const seen = new Set();
    const fresh = (raw) => {
      if (!raw || raw.id === undefined || raw.id === null || raw.id === "") return null;
      const id = String(raw.id);
      if (seen.has(id)) return null;
      seen.add(id);
      return id;
    };
    const groups = [];
    for (const raw of Array.isArray(source.groups) ? source.groups : []) {
      const id = fresh(raw);
      if (id === null) continue;
      groups.push({ id, label: clip(raw.label, LABEL_MAX), parent: raw.parent ? String(raw.parent) : "" });
    }
    const groupIds = new Set(groups.map((g) => g.id));
    const parentOf = new Map(groups.map((g) => [g.id, g.parent]));
    for (const group of groups) {
      const trail = new Set([group.id]);
      let up = group.parent;
      while (up && groupIds.has(up) && !trail.has(up)) {
        trail.add(up);
        up = parentOf.get(up);
      }
      if (!groupIds.has(group.parent) || (up && trail.has(up))) {
        group.parent = "";
        parentOf.set(group.id, "");
      }
    }
    const nodes = [];
    for (const raw of Array.isArray(source.nodes) ? source.nodes : []) {
      const id = fresh(raw);
      if (id === null) continue;
      const node = {
        id,
        kind: raw.kind ? String(raw.kind) : "",
        label: raw.label === undefined || raw.label === null ? "" : String(raw.label),
        job: raw.job ? String(raw.job) : "",
        failure: raw.failure ? String(raw.failure) : "",
      };
      if (raw.parent && groupIds.has(String(raw.parent))) node.parent = String(raw.parent);
      nodes.push(position(raw, node));
    }
    const notes = [];
    for (const raw of Array.isArray(source.notes) ? source.notes : []) {
      const id = fresh(raw);
      if (id === null) continue;
      notes.push(position(raw, { id, text: clip(raw.text, NOTE_MAX) }));
    }
    const boxIds = new Set(nodes.map((n) => n.id));
    const edges = [];
    const seenEdges = new Set();
    for (const raw of Array.isArray(source.edges) ? source.edges : []) {
      if (!raw) continue;
      const s = String(raw.source);
      const t = String(raw.target);
      if (!boxIds.has(s) || !boxIds.has(t) || s === t || seenEdges.has(edgeKey(s, t))) continue;
      seenEdges.add(edgeKey(s, t));
      edges.push({ source: s, target: t, label: raw.label ? String(raw.label) : "" });
    }
    const marks = (Array.isArray(source.marks) ? source.marks : [])
      .filter((m) => m && m.target !== undefined)
      .map((m) => ({ target: String(m.target), what: m.what ? String(m.what) : "", how: m.how ? String(m.how) : "" }));
    return {
      nodes,
      edges,
      marks,
      notes,
      groups,
      extra,
      hadMarks: Array.isArray(source.marks),
      hadNotes: Array.isArray(source.notes),
      hadGroups: Array.isArray(source.groups),
    };
  }

  // Nodes without a position: in path order (breadth-first from the boxes nothing points to), on a grid.
  function placeMissing(design) {
    const missing = design.nodes.filter((n) => n.x === undefined);
    if (!missing.length) return;
    const incoming = new Map(design.nodes.map((n) => [n.id, 0]));
    const out = new Map(design.nodes.map((n) => [n.id, []]));
    for (const e of design.edges) {
      incoming.set(e.target, incoming.get(e.target) + 1);
      out.get(e.source).push(e.target);
    }
    const order = [];
    const visited = new Set();
    const queue = design.nodes.filter((n) => incoming.get(n.id) === 0).map((n) => n.id);
    for (const n of design.nodes) queue.push(n.id);
    while (queue.length) {
      const id = queue.shift();
      if (visited.has(id)) continue;
      visited.add(id);
      order.push(id);
      for (const next of out.get(id)) if (!visited.has(next)) queue.unshift(next);
    }
    const taken = design.nodes.filter((n) => n.x !== undefined).map((n) => ({ x: n.x, y: n.y }));
    const byId = new Map(design.nodes.map((n) => [n.id, n]));
    let slot = 0;
    for (const id of order) {
      const node = byId.get(id);
      if (node.x !== undefined) continue;
      let pos;
      do {
        pos = gridSlot(slot++);
      } while (taken.some((p) => overlaps(p, pos)));
      node.x = pos.x;
      node.y = pos.y;
      taken.push(pos);
    }
  }

  // Snake order, so a chain of boxes reads left to right, then right to left on the next row.
  function gridSlot(i) {
    const row = Math.floor(i / GRID_COLUMNS);
    let col = i % GRID_COLUMNS;
    if (row % 2 === 1) col = GRID_COLUMNS - 1 - col;
    return { x: 90 + col * GRID_DX, y: 60 + row * GRID_DY };
  }

  function overlaps(a, b) {
    return Math.abs(a.x - b.x) < 200 && Math.abs(a.y - b.y) < 120;
  }

  // ---- text on the diagram: wrapped here (measured with the canvas's font), so the drawing, its height and
  // the SVG export all show the same lines ----

  let measureContext = null;
  function textWidth(text, size, weight) {
    if (!measureContext) measureContext = document.createElement("canvas").getContext("2d");
    measureContext.font = (weight || "normal") + " " + size + "px " + FONT;
    return measureContext.measureText(text).width;
  }

  function wrapText(text, maxWidth, size, weight) {
    const lines = [];
    for (const paragraph of String(text).split("\n")) {
      let line = "";
      for (const word of paragraph.split(/\s+/).filter(Boolean)) {
        let piece = word;
        // A word wider than the box is cut where it overflows.
        while (textWidth(piece, size, weight) > maxWidth) {
          let cut = piece.length - 1;
          while (cut > 1 && textWidth((line ? line + " " : "") + piece.slice(0, cut), size, weight) > maxWidth) cut--;
          if (line && textWidth(line + " " + piece.slice(0, cut), size, weight) > maxWidth) {
            lines.push(line);
            line = "";
            continue;
          }
          lines.push((line ? line + " " : "") + piece.slice(0, cut));
          line = "";
          piece = piece.slice(cut);
        }
        const candidate = line ? line + " " + piece : piece;
        if (textWidth(candidate, size, weight) <= maxWidth) line = candidate;
        else {
          if (line) lines.push(line);
          line = piece;
        }
      }
      lines.push(line);
    }
    return lines;
  }

  // ---- cytoscape style ----

  const GRAPH_STYLE = [
    {
      selector: "node",
      style: {
        shape: "round-rectangle",
        width: BOX_WIDTH,
        height: "data(h)",
        "background-color": "#ffffff",
        "border-width": 1.5,
        "border-color": "#5b6778",
        "text-wrap": "wrap",
        "text-max-width": BOX_WIDTH + 40, // the lines are already wrapped (wrapText)
        "text-valign": "center",
        "text-halign": "center",
        "text-justification": "center",
        "line-height": 1.25,
        "font-family": FONT,
        "font-size": 12,
        color: "#1b2430",
      },
    },
    // [display]: edgehandles' ghost node has none.
    { selector: "node[display]", style: { label: "data(display)" } },
    { selector: "node[kind = 'client']", style: { shape: "round-rectangle", "background-color": "#eef2f7" } },
    {
      selector: "node[kind = ''][role = 'box']",
      style: { "border-style": "dashed", "background-color": "#fbfaf4" },
    },
    { selector: "node.sbc-detailed", style: { "text-justification": "left" } },
    { selector: "node.sbc-complete", style: { "border-color": "#2f7d4f" } },
    {
      selector: "node[role = 'note']",
      style: {
        shape: "rectangle",
        width: NOTE_WIDTH,
        "background-color": "#fff7c2",
        "border-color": "#c9a400",
        "border-width": 1,
        "text-justification": "left",
        "font-size": 12,
      },
    },
    {
      selector: "node[role = 'group']",
      style: {
        shape: "round-rectangle",
        "background-color": "#eef3ff",
        "background-opacity": 0.55,
        "border-style": "dashed",
        "border-color": "#6b7fa8",
        "border-width": 1.5,
        "text-valign": "top",
        "text-halign": "center",
        "text-margin-y": -4,
        "font-weight": 600,
        "font-size": 12,
        color: "#33415c",
        padding: 18,
      },
    },
    {
      selector: "edge",
      style: {
        width: 2,
        "curve-style": "bezier",
        "line-color": "#7b8796",
        "target-arrow-color": "#7b8796",
        "target-arrow-shape": "triangle",
        "arrow-scale": 1.2,
        "overlay-padding": 6,
      },
    },
    {
      // [label]: edgehandles' ghost edges have no label data. The margins move the label off any box.
      selector: "edge[label]",
      style: {
        label: "data(label)",
        "font-size": 11,
        "font-family": FONT,
        color: "#334155",
        "text-background-color": "#ffffff",
        "text-background-opacity": 0.95,
        "text-background-padding": 2,
        "text-margin-x": "data(lmx)",
        "text-margin-y": "data(lmy)",
      },
    },
    { selector: "node.sbc-marked", style: { "background-color": "#fde8e8", "border-color": "#b42318" } },
    { selector: "edge.sbc-marked", style: { "line-color": "#b42318", "target-arrow-color": "#b42318", width: 3 } },
    { selector: "node:selected", style: { "border-width": 3, "border-color": "#1d4ed8", "overlay-opacity": 0 } },
    { selector: "edge:selected", style: { width: 4, "line-color": "#1d4ed8", "target-arrow-color": "#1d4ed8" } },
    { selector: "node.sbc-connect-source", style: { "border-width": 3, "border-color": "#b45309" } },
    { selector: "node.sbc-candidate", style: { "border-width": 3, "border-color": "#b45309", "border-style": "dotted" } },
    { selector: ".eh-hover", style: { "background-color": "#fff4e0" } },
    { selector: ".eh-source, .eh-target", style: { "border-width": 3, "border-color": "#b45309" } },
    {
      selector: ".eh-preview, .eh-ghost-edge",
      style: { "line-color": "#b45309", "target-arrow-color": "#b45309", "source-arrow-color": "#b45309" },
    },
    { selector: ".eh-ghost-edge.eh-preview-active", style: { opacity: 0 } },
    { selector: ".eh-ghost-node", style: { width: 1, height: 1, opacity: 0, label: "" } },
  ];

  // ---- toolbar icons: 24x24 outlines drawn in the button's text colour ----

  const ICONS = {
    note: ["M5 4h14v11l-5 5H5z", "M14 20v-5h5"],
    connect: ["M2 8h6v8H2z", "M16 8h6v8h-6z", "M8 12h8", "M13 9l3 3-3 3"],
    group: [["M3 4h18v16H3z", { "stroke-dasharray": "3 2" }], "M6 9h5v6H6z", "M13 9h5v6h-5z"],
    duplicate: ["M9 9h11v11H9z", "M5 15H4V4h11v1"],
    delete: ["M4 7h16", "M9 7V4h6v3", "M6 7l1 13h10l1-13", "M10 11v6", "M14 11v6"],
    mark: ["M12 3l10 17H2z", "M12 10v4", "M12 17v1"],
    layout: ["M2 9h6v6H2z", "M16 3h6v6h-6z", "M16 15h6v6h-6z", "M8 12h4", "M12 6v12", "M12 6h4", "M12 18h4"],
    snap: ["M4 4h16v16H4z", "M4 9.3h16", "M4 14.7h16", "M9.3 4v16", "M14.7 4v16"],
    compact: ["M4 5h16v14H4z", "M8 12h8"],
    export: ["M12 3v12", "M7 10l5 5 5-5", "M5 20h14"],
    undo: ["M9 14L4 9l5-5", "M4 9h10a6 6 0 0 1 0 12h-3"],
    redo: ["M15 14l5-5-5-5", "M20 9H10a6 6 0 0 0 0 12h3"],
    "zoom-out": ["M5 12h14"],
    "zoom-in": ["M12 5v14", "M5 12h14"],
    fit: ["M4 9V4h5", "M15 4h5v5", "M20 15v5h-5", "M9 20H4v-5"],
  };

  function icon(name) {
    const ns = "http://www.w3.org/2000/svg";
    const svg = document.createElementNS(ns, "svg");
    for (const [key, value] of Object.entries({
      viewBox: "0 0 24 24",
      width: "18",
      height: "18",
      fill: "none",
      stroke: "currentColor",
      "stroke-width": "1.8",
      "stroke-linecap": "round",
      "stroke-linejoin": "round",
      "aria-hidden": "true",
      focusable: "false",
      class: "sbc-icon",
    })) {
      svg.setAttribute(key, value);
    }
    for (const part of ICONS[name]) {
      const [d, extra] = Array.isArray(part) ? part : [part, {}];
      const path = document.createElementNS(ns, "path");
      path.setAttribute("d", d);
      for (const [key, value] of Object.entries(extra)) path.setAttribute(key, value);
      svg.appendChild(path);
    }
    return svg;
  }

  // ---- the widget ----

  function mount(container, options) {
    if (!container) throw new Error("SevenboxCanvas.mount: no container element");
    if (controllers.has(container)) return controllers.get(container);
    if (typeof window.cytoscape !== "function") {
      throw new Error("SevenboxCanvas.mount: load static/vendor/cytoscape/cytoscape.min.js first");
    }
    const opts = options || {};
    claimCytoscapeStylesheet();
    const widget = new Canvas(container, opts);
    const controller = {
      getDesign: () => widget.getDesign(),
      setDesign: (design) => widget.setDesign(design),
      undo: () => widget.undo(),
      redo: () => widget.redo(),
      destroy: () => widget.destroy(),
      boxRect: (id) => widget.boxRect(id),
      flush: () => widget.flush(),
      selection: () => widget.selection().map((item) => item.id()),
      svg: () => widget.toSvg(),
      zoom: () => widget.cy.zoom(),
      // Model-coordinate boxes of what is drawn (tests: labels must not cover boxes, snapping, layout).
      geometry: () => widget.geometry(),
      lock: () => widget.lock(),
    };
    controllers.set(container, controller);
    container.setAttribute("data-sevenbox-mounted", "true");
    return controller;
  }

  // Cytoscape adds an inline <style> (position: relative on its container) unless an element with this
  // id exists; under CSP style-src 'self' that insert is refused, so claim the id (our CSS sets it).
  function claimCytoscapeStylesheet() {
    const id = "__________cytoscape_stylesheet";
    if (document.getElementById(id)) return;
    const marker = document.createElement("meta");
    marker.id = id;
    document.head.appendChild(marker);
  }

  class Canvas {
    constructor(container, opts) {
      this.container = container;
      this.uid = "sbc" + ++widgetCount;
      this.palette = normalisePalette(opts.palette);
      this.paletteByKind = new Map(this.palette.map((p) => [p.kind, p]));
      this.readOnly = Boolean(opts.readOnly);
      this.markable = Boolean(opts.markable);
      // A read-only design can still take failure marks, and those can be undone.
      this.undoable = !this.readOnly || this.markable;
      this.onChange = typeof opts.onChange === "function" ? opts.onChange : null;
      this.panelHost = opts.panelHost || null;
      this.marks = [];
      this.extra = {};
      this.keepMarks = false;
      this.past = [];
      this.future = [];
      this.editKey = null;
      this.connectFrom = null;
      this.changeTimer = null;
      this.handleNode = null;
      this.edgeDrawing = false;
      this.markFormOpen = false;
      this.listeners = [];
      this.compact = false;
      this.snap = true;
      this.clipboard = null;

      this.buildDom();
      this.cy = window.cytoscape({
        container: this.stage,
        elements: [],
        style: GRAPH_STYLE,
        layout: { name: "preset" },
        minZoom: 0.25,
        maxZoom: 2.5,
        // Shift-drag on the background draws a selection box; shift-click adds to the selection.
        boxSelectionEnabled: !this.readOnly,
        selectionType: "single",
        autoungrabify: this.readOnly,
      });
      this.bindGraph();
      this.bindDom();
      this.loadDesign(opts.design, true);
      this.renderAll();
      this.showZoomLevel();
    }

    // ---- DOM ----

    buildDom() {
      const id = (suffix) => this.uid + "-" + suffix;
      this.container.textContent = "";
      this.root = el("div", {
        className: "sbc" + (this.readOnly ? " sbc-readonly" : ""),
        role: "group",
        "aria-label": this.readOnly ? "Design (read only)" : "Design canvas",
      });

      // Toolbar: palette search and the actions.
      this.toolbar = el("div", { className: "sbc-toolbar", role: "toolbar", "aria-label": "Canvas tools" });
      if (!this.readOnly) {
        this.search = el("input", {
          type: "search",
          id: id("search"),
          className: "sbc-search",
          "data-sbc": "search",
          placeholder: "Add a box: router, queue, kv cache…",
          autocomplete: "off",
          role: "combobox",
          "aria-autocomplete": "list",
          "aria-expanded": "false",
          "aria-controls": id("results"),
          maxlength: LABEL_MAX,
        });
        this.results = el("ul", {
          id: id("results"),
          className: "sbc-results",
          role: "listbox",
          "aria-label": "Palette matches",
          "data-sbc": "results",
          hidden: true,
        });
        this.addBox = el("div", { className: "sbc-add" }, [
          el("label", { for: id("search"), className: "sbc-add-label sbc-sr", text: "Add a box" }),
          this.search,
          this.results,
        ]);
        this.toolbar.appendChild(this.addBox);
      }
      this.buttons = {};
      const button = (action, text, label, shortcut) => {
        const b = el("button", {
          type: "button",
          className: "sbc-button",
          "data-action": action,
          "aria-label": label,
          "aria-keyshortcuts": shortcut || null,
          title: label + (shortcut ? " (" + shortcut + ")" : ""),
        });
        if (ICONS[action]) b.appendChild(icon(action));
        b.appendChild(el("span", { className: "sbc-button-text", text }));
        this.buttons[action] = b;
        return b;
      };
      const group = (label, children) =>
        el("div", { className: "sbc-actions", role: "group", "aria-label": label }, children.filter(Boolean));
      const editable = !this.readOnly;
      const edit = group("Edit", [
        editable && button("note", "Note", "Add a free note", "N"),
        editable && button("connect", "Connect", "Connect the selected box to another box", "C"),
        editable && button("group", "Group", "Group the selected boxes (a selected group: ungroup it)", "G"),
        editable && button("duplicate", "Duplicate", "Duplicate the selection", "Control+D"),
        editable && button("delete", "Delete", "Delete the selection", "Delete"),
        this.markable && button("mark", "Mark", "Mark the selected box or arrow as a failure path", "M"),
      ]);
      const arrange = group("Arrange", [
        editable && button("layout", "Tidy", "Lay the design out left to right", "L"),
        editable && button("snap", "Snap", "Snap boxes to the grid when dropped"),
        button("compact", "Compact", "Show only the labels in the boxes (hide jobs and ways to fail)", "T"),
      ]);
      // Export is a small disclosure: one button in the toolbar, its two formats below it.
      this.exportMenu = el("div", { className: "sbc-menu", id: id("export-menu"), "aria-label": "Export formats", hidden: true }, [
        button("export-png", "PNG image", "Export the design as a PNG image"),
        button("export-svg", "SVG image", "Export the design as an SVG image"),
      ]);
      const exportButton = button("export", "Export", "Export the design as an image");
      exportButton.setAttribute("aria-expanded", "false");
      exportButton.setAttribute("aria-controls", id("export-menu"));
      this.exportWrap = el("div", { className: "sbc-actions sbc-export" }, [exportButton, this.exportMenu]);
      if (edit.childElementCount) this.toolbar.appendChild(edit);
      if (arrange.childElementCount) this.toolbar.appendChild(arrange);
      this.toolbar.appendChild(this.exportWrap);

      // The view tools float in the canvas's corner (as in Excalidraw): undo and redo, zoom, fit.
      this.zoomLevel = el("span", { className: "sbc-zoom-level", "aria-label": "Zoom level", "data-sbc": "zoom-level" });
      this.viewBar = el("div", { className: "sbc-viewbar", role: "toolbar", "aria-label": "View and history" }, [
        this.undoable && group("History", [button("undo", "Undo", "Undo", "Control+Z"), button("redo", "Redo", "Redo", "Control+Shift+Z")]),
        group("Zoom", [
          button("zoom-out", "Zoom out", "Zoom out", "-"),
          this.zoomLevel,
          button("zoom-in", "Zoom in", "Zoom in", "+"),
          button("fit", "Fit", "Fit the whole design in view", "0"),
        ]),
      ]);

      // Stage: the cytoscape canvas and the drag handle for drawing arrows.
      this.stage = el("div", { className: "sbc-cy" });
      this.stageWrap = el("div", {
        className: "sbc-stage",
        tabindex: "0",
        "data-sbc": "stage",
        "aria-label": this.readOnly
          ? "Canvas (read only). The box and arrow lists describe the same design."
          : "Canvas. Select boxes with the box list; arrow keys move the selection.",
      });
      this.stageWrap.appendChild(this.stage);
      this.handle = el("div", { className: "sbc-handle", "aria-hidden": "true", title: "Drag to another box to connect", hidden: true });
      this.stageWrap.appendChild(this.handle);
      this.stageWrap.appendChild(this.viewBar);

      // Side panel: status, box list, arrow list, details of the selection, marks.
      this.status = el("p", { className: "sbc-status", role: "status", "aria-live": "polite", "data-sbc": "status" });
      this.boxList = el("ul", { className: "sbc-list", "aria-label": "Boxes", "data-sbc": "boxes" });
      this.arrowList = el("ul", { className: "sbc-list", "aria-label": "Arrows", "data-sbc": "arrows" });
      this.boxesEmpty = el("p", { className: "sbc-empty", text: "No boxes yet." });
      this.arrowsEmpty = el("p", { className: "sbc-empty", text: "No arrows yet." });
      this.groupList = el("ul", { className: "sbc-list", "aria-label": "Groups", "data-sbc": "groups" });
      this.noteList = el("ul", { className: "sbc-list", "aria-label": "Notes", "data-sbc": "notes" });
      this.groupsHeading = el("h3", { className: "sbc-heading", text: "Groups" });
      this.notesHeading = el("h3", { className: "sbc-heading", text: "Notes" });
      this.details = this.buildDetails(id);
      this.panel = el("aside", { className: "sbc-panel", "aria-label": "Boxes and details" }, [
        this.status,
        this.details,
        el("h3", { className: "sbc-heading", id: id("boxes-h"), text: "Boxes" }),
        this.boxesEmpty,
        this.boxList,
        el("h3", { className: "sbc-heading", text: "Arrows" }),
        this.arrowsEmpty,
        this.arrowList,
        this.groupsHeading,
        this.groupList,
        this.notesHeading,
        this.noteList,
      ]);
      // Marks are shown whenever the design has some; they can be edited only when markable.
      this.marksSection = this.buildMarks(id);
      this.panel.appendChild(this.marksSection);
      if (!this.readOnly) this.panel.appendChild(this.buildHelp());

      this.root.appendChild(this.toolbar);
      if (this.panelHost) {
        // The page has a place for the panel (the round's side panel): the stage fills the container.
        this.root.classList.add("sbc-fill");
        this.root.appendChild(el("div", { className: "sbc-body" }, [this.stageWrap]));
        this.panel.classList.add("sbc", "sbc-hosted");
        this.panelHost.appendChild(this.panel);
      } else {
        this.root.appendChild(el("div", { className: "sbc-body" }, [this.stageWrap, this.panel]));
      }
      this.container.appendChild(this.root);
    }

    buildDetails(id) {
      const field = (name, labelText, tag, max) => {
        const input = el(tag, {
          id: id(name),
          className: "sbc-field",
          "data-sbc-field": name,
          maxlength: max,
          rows: tag === "textarea" ? 3 : null,
          type: tag === "input" ? "text" : null,
          readonly: this.readOnly,
        });
        const counter = tag === "textarea" ? el("span", { className: "sbc-count", "aria-hidden": "true" }) : null;
        const wrap = el("div", { className: "sbc-row" }, [
          el("label", { for: id(name), text: labelText }),
          input,
          counter,
        ]);
        return { input, wrap, counter };
      };
      this.fields = {
        label: field("label", "Label", "input", LABEL_MAX),
        job: field("job", "Job", "textarea", TEXT_MAX),
        failure: field("failure", "Way to fail", "textarea", TEXT_MAX),
        edgeLabel: field("edge-label", "Arrow label", "input", LABEL_MAX),
        noteText: field("note-text", "Note on the canvas", "textarea", NOTE_MAX),
      };
      this.kindText = el("span", { className: "sbc-kind", "data-sbc": "kind" });
      this.edgeText = el("span", { className: "sbc-kind", "data-sbc": "edge-ends" });
      this.detailsTitle = el("h3", { className: "sbc-heading", text: "Selected" });
      this.nodeDetails = el("div", { className: "sbc-node-details" }, [
        el("div", { className: "sbc-row" }, [el("span", { className: "sbc-label", text: "Kind" }), this.kindText]),
        this.fields.label.wrap,
        this.fields.job.wrap,
        this.fields.failure.wrap,
      ]);
      this.edgeDetails = el("div", { className: "sbc-edge-details" }, [
        el("div", { className: "sbc-row" }, [el("span", { className: "sbc-label", text: "Arrow" }), this.edgeText]),
        this.fields.edgeLabel.wrap,
      ]);
      this.noteDetails = el("div", { className: "sbc-note-details" }, [this.fields.noteText.wrap]);
      this.multiText = el("p", { className: "sbc-multi", "data-sbc": "multi" });
      const form = el("form", { className: "sbc-details", "data-sbc": "details", hidden: true, "aria-label": "Selected item" }, [
        this.detailsTitle,
        this.nodeDetails,
        this.edgeDetails,
        this.noteDetails,
        this.multiText,
      ]);
      return form;
    }

    buildMarks(id) {
      this.markList = el("ul", { className: "sbc-marks", "data-sbc": "marks", "aria-label": "Failure marks" });
      this.markWhat = el("input", { id: id("mark-what"), type: "text", className: "sbc-field", maxlength: TEXT_MAX, "data-sbc-field": "mark-what" });
      this.markHow = el("textarea", { id: id("mark-how"), className: "sbc-field", rows: 2, maxlength: TEXT_MAX, "data-sbc-field": "mark-how" });
      this.markTargetText = el("span", { className: "sbc-kind" });
      this.markSave = el("button", { type: "submit", className: "sbc-button sbc-primary", "data-action": "mark-save", text: "Add mark" });
      this.markCancel = el("button", { type: "button", className: "sbc-button", "data-action": "mark-cancel", text: "Cancel" });
      this.markForm = el("form", { className: "sbc-mark-form", "data-sbc": "mark-form", hidden: true, "aria-label": "Mark a failure path" }, [
        el("div", { className: "sbc-row" }, [el("span", { className: "sbc-label", text: "Marking" }), this.markTargetText]),
        el("div", { className: "sbc-row" }, [el("label", { for: id("mark-what"), text: "What fails" }), this.markWhat]),
        el("div", { className: "sbc-row" }, [el("label", { for: id("mark-how"), text: "How it fails" }), this.markHow]),
        el("div", { className: "sbc-row sbc-buttons" }, [this.markSave, this.markCancel]),
      ]);
      this.marksHeading = el("h3", { className: "sbc-heading", text: "Failure marks" });
      return el("section", { className: "sbc-marks-section" }, [this.marksHeading, this.markForm, this.markList]);
    }

    // The keys listed are those that work where the focus is now (renderHelp runs on every focus move).
    buildHelp() {
      this.helpList = el("dl", { className: "sbc-keys", "data-sbc": "keys" });
      this.help = el("details", { className: "sbc-help", "data-sbc": "help" }, [el("summary", { text: "Keyboard" }), this.helpList]);
      return this.help;
    }

    helpContext() {
      const focus = document.activeElement;
      if (this.connectFrom !== null) return "connecting";
      if (!this.owns(focus)) return "outside";
      if (focus === this.search) return "search";
      if (focus === this.markWhat || focus === this.markHow) return "mark";
      if (this.exportMenu.contains(focus)) return "export";
      if (isTextField(focus)) return "field";
      if (focus.closest && focus.closest(".sbc-list")) return "list";
      return "canvas";
    }

    helpKeys(context) {
      const canvas = [
        ["A", "add a box: search the palette"],
        ["N", "add a free note"],
        ["C", "connect the selected box: then Tab to the target box and press Enter"],
        ["R or F2", "rename the selected box, group or arrow"],
        ["J / F", "write the job / the way to fail of the selected box"],
        ["Arrow keys", "move the selection (Shift: further)"],
        ["Ctrl+A", "select everything"],
        ["G / Shift+G", "group the selection / ungroup the selected group"],
        ["Ctrl+C / Ctrl+V / Ctrl+D", "copy / paste / duplicate the selection"],
        ["Delete", "delete the selection"],
        ["Ctrl+Z / Ctrl+Shift+Z", "undo / redo"],
        ["L", "lay the design out left to right"],
        ["+ / − / 0", "zoom in / zoom out / fit"],
        ["T", "show or hide jobs and ways to fail in the boxes"],
      ];
      if (this.markable) canvas.push(["M", "mark the selected box or arrow as a failure path"]);
      if (this.readOnly) {
        return [["Tab", "move through the boxes and arrows"], ["+ / − / 0", "zoom in / zoom out / fit"], ["T", "show or hide jobs and ways to fail"]]
          .concat(this.markable ? [["M", "mark the selected box or arrow as a failure path"]] : []);
      }
      switch (context) {
        case "connecting":
          return [["Tab", "move to the box to connect to"], ["Enter", "connect to the focused box"], ["Escape", "cancel connecting"]];
        case "search":
          return [
            ["Type", "search boxes by name or synonym"],
            ["↓ / ↑", "choose a match"],
            ["Enter", "add the chosen box"],
            ["Escape", "clear the search (when empty: to the selected box in the list)"],
          ];
        case "mark":
          return [["Enter", "add the mark"], ["Escape", "cancel the mark"]];
        case "export":
          return [["Tab", "move between the formats"], ["Enter", "export in this format"], ["Escape", "close the formats"]];
        case "field":
          return [["Type", "edit the text (shortcuts do not apply here)"], ["Escape", "back to the item in the list"]];
        case "list":
          return [
            ["Tab", "move between items (focus selects one)"],
            ["Enter", "select only this item"],
            ["Shift+Space", "add this item to the selection, or take it out"],
            ["Escape", "keep only this item selected"],
          ].concat(canvas);
        case "canvas":
          return [["Escape", "keep one item selected"]].concat(canvas);
        default:
          return [["Tab", "move into the canvas: its search, buttons, boxes and arrows"]];
      }
    }

    renderHelp() {
      if (!this.helpList) return;
      const context = this.helpContext();
      if (context === this.helpShown) return;
      this.helpShown = context;
      this.help.setAttribute("data-context", context);
      this.helpList.textContent = "";
      for (const [key, what] of this.helpKeys(context)) {
        this.helpList.appendChild(el("dt", { text: key }));
        this.helpList.appendChild(el("dd", { text: what }));
      }
    }

    // The widget's parts: its container, and the panel when the page hosts it elsewhere.
    owns(node) {
      return Boolean(node) && (this.root.contains(node) || this.panel.contains(node));
    }

    listen(target, type, handler, options) {
      target.addEventListener(type, handler, options);
      this.listeners.push([target, type, handler, options]);
    }

    bindDom() {
      this.listen(this.root, "keydown", (e) => this.onKeyDown(e));
      if (this.panelHost) this.listen(this.panel, "keydown", (e) => this.onKeyDown(e));
      for (const part of [this.root, this.panel]) {
        this.listen(part, "focusin", () => this.renderHelp());
        this.listen(part, "focusout", () => setTimeout(() => this.renderHelp(), 0));
      }
      for (const bar of [this.toolbar, this.viewBar]) {
        this.listen(bar, "click", (e) => {
          const b = e.target.closest("button[data-action]");
          // detail 0: activated by keyboard, so focus may move to where the action continues.
          if (b) this.runAction(b.getAttribute("data-action"), e.detail === 0);
        });
      }
      // The export formats close on Escape (focus back on Export), on a click elsewhere and when focus leaves.
      this.listen(this.exportWrap, "keydown", (e) => {
        if (e.key !== "Escape" || this.exportMenu.hidden) return;
        e.preventDefault();
        e.stopPropagation();
        this.toggleExportMenu(false);
        this.buttons.export.focus();
      });
      this.listen(this.exportWrap, "focusout", (e) => {
        if (!this.exportWrap.contains(e.relatedTarget)) this.toggleExportMenu(false);
      });
      this.listen(document, "pointerdown", (e) => {
        if (!this.exportMenu.hidden && !this.exportWrap.contains(e.target)) this.toggleExportMenu(false);
      });
      // The observer's callback only schedules the measurement: changing the toolbar inside it would loop.
      if (typeof ResizeObserver === "function") {
        let width = 0;
        this.toolbarObserver = new ResizeObserver(() => {
          if (this.toolbar.clientWidth === width) return;
          width = this.toolbar.clientWidth;
          requestAnimationFrame(() => this.fitToolbar());
        });
        this.toolbarObserver.observe(this.toolbar);
      }
      if (this.search) {
        this.listen(this.search, "input", () => this.showResults());
        this.listen(this.search, "focus", () => this.showResults());
        this.listen(this.search, "keydown", (e) => this.onSearchKey(e));
        this.listen(this.addBox, "focusout", (e) => {
          if (!this.addBox.contains(e.relatedTarget)) this.hideResults();
        });
        // Keep focus in the search box while an option is clicked.
        this.listen(this.results, "mousedown", (e) => e.preventDefault());
        this.listen(this.results, "click", (e) => {
          const option = e.target.closest("[role=option]");
          if (option) this.pickOption(option);
        });
      }
      for (const list of this.lists()) {
        this.listen(list, "click", (e) => {
          const item = e.target.closest("button[data-id]");
          if (item) this.onItemActivate(item, e.shiftKey || e.ctrlKey || e.metaKey);
        });
        this.listen(list, "focusin", (e) => {
          const item = e.target.closest("button[data-id]");
          if (item) this.onItemFocus(item);
        });
      }
      this.listen(this.boxList, "focusout", () => this.cy.nodes().removeClass("sbc-candidate"));
      // Text fields: update live, one undo step per field visit.
      const bindField = (field, name) => {
        this.listen(field.input, "input", () => this.onFieldInput(name, field));
        this.listen(field.input, "blur", () => {
          this.editKey = null;
        });
      };
      bindField(this.fields.label, "label");
      bindField(this.fields.job, "job");
      bindField(this.fields.failure, "failure");
      bindField(this.fields.edgeLabel, "edgeLabel");
      bindField(this.fields.noteText, "noteText");
      this.listen(this.details, "submit", (e) => {
        e.preventDefault();
        this.focusSelectedItem();
      });
      this.listen(this.markForm, "submit", (e) => {
        e.preventDefault();
        this.saveMark();
      });
      this.listen(this.markCancel, "click", () => this.closeMarkForm(true));
      this.listen(this.markList, "click", (e) => {
        const b = e.target.closest("button[data-mark-index]");
        if (b) this.removeMark(Number(b.getAttribute("data-mark-index")));
      });
      // The handle: press on it and drag to another box (mouse; touch uses the Connect button). Not
      // pointerdown: cancelling that would suppress the mouse events cytoscape follows the drag with.
      this.listen(this.handle, "mousedown", (e) => {
        if (!this.eh || !this.handleNode || this.readOnly) return;
        e.preventDefault();
        this.edgeDrawing = true;
        this.eh.start(this.handleNode);
      });
      // cytoscape blurs the focus on every touchstart and, for a pinch, gives it back nowhere: once the
      // fingers lift, the keys go to the canvas again.
      this.listen(this.stage, "touchend", (e) => {
        const focus = document.activeElement;
        if (e.touches.length === 0 && (!focus || focus === document.body)) this.stageWrap.focus({ preventScroll: true });
      });
      this.listen(window, "mouseup", () => {
        if (this.edgeDrawing && this.eh) this.eh.stop();
        this.edgeDrawing = false;
      });
      if (typeof ResizeObserver === "function") {
        this.resizeObserver = new ResizeObserver(() => {
          if (!this.cy) return;
          this.cy.resize();
          if (this.needsFit) this.fitView();
          this.placeHandle();
        });
        this.resizeObserver.observe(this.stage);
      }
    }

    bindGraph() {
      const cy = this.cy;
      cy.on("select unselect", () => {
        if (this.syncing) return;
        this.editKey = null;
        this.renderSelection();
      });
      // A press on the canvas (a tap, a drag, a selection box) puts the keyboard there, so Delete, the arrow
      // keys and Ctrl+C act on what was just chosen.
      cy.on("tapstart boxend", () => {
        if (document.activeElement !== this.stageWrap) this.stageWrap.focus({ preventScroll: true });
      });
      cy.on("tap", (e) => {
        this.previousTap = this.lastTap;
        this.lastTap = e.target === cy ? null : e.target.id();
        this.stageWrap.focus({ preventScroll: true });
        if (this.connectFrom !== null) {
          if (e.target !== cy && e.target.isNode && e.target.isNode() && !e.target.hasClass("eh-ghost")) {
            if (e.target.data("role") === "box") this.connectTo(e.target.id());
          } else if (e.target === cy) {
            this.cancelConnect("Connecting cancelled.");
          }
          return;
        }
        if (e.target === cy) this.hideHandle();
        else this.reveal();
      });
      cy.on("dbltap", "node[role]", (e) => {
        // cytoscape reports two quick taps on different boxes (or a shift-click soon after a click) as a
        // double tap too: only a double tap on one box opens its label.
        const o = e.originalEvent || {};
        if (this.readOnly || this.previousTap !== e.target.id() || o.shiftKey || o.ctrlKey || o.metaKey) return;
        this.select(e.target.id());
        if (e.target.data("role") === "note") {
          this.reveal();
          this.fields.noteText.input.focus();
        } else this.rename();
      });
      // mousemove too: after an arrow is dropped on a box the pointer is already over it, so no mouseover
      // follows, and the handle must still move to that box rather than stay on the arrow's source.
      cy.on("mouseover mousemove", "node", (e) => {
        if (this.edgeDrawing || e.target.data("role") !== "box") return;
        if (!this.handleNode || !this.handleNode.same(e.target)) this.showHandle(e.target);
      });
      cy.on("select", "node[role = 'box']", (e) => {
        if (!this.edgeDrawing) this.showHandle(e.target);
      });
      cy.on("pan zoom", () => this.placeHandle());
      cy.on("zoom", () => this.showZoomLevel());
      cy.on("position", "node", (e) => {
        if (this.handleNode && e.target.same(this.handleNode)) this.placeHandle();
      });
      cy.on("grab", "node", () => {
        this.dragBefore = this.snapshot();
      });
      cy.on("dragfree", "node", (e) => {
        if (!this.dragBefore) return;
        if (this.snap) this.snapToGrid(this.movable(e.target.selected() ? e.target.union(this.selection()) : e.target));
        this.pushHistory(this.dragBefore);
        this.dragBefore = null;
        this.placeEdgeLabels();
        this.changed();
      });
      if (!this.readOnly && typeof cy.edgehandles === "function") {
        this.eh = cy.edgehandles({
          canConnect: (source, target) => this.canConnect(source.id(), target.id()),
          edgeParams: () => ({ data: { label: "", lmx: 0, lmy: 0 } }),
          hoverDelay: 120,
          snap: true,
          snapThreshold: 30,
        });
        cy.on("ehcomplete", (e, source, target, added) => {
          // Replace the extension's edge with ours, so it goes through undo and gets our id.
          added.remove();
          this.connect(source.id(), target.id());
          this.dropTarget = target;
        });
        cy.on("ehstop", () => {
          this.edgeDrawing = false;
          // The next drag starts from where this one ended.
          if (this.dropTarget && !this.dropTarget.removed()) this.showHandle(this.dropTarget);
          else this.hideHandle();
          this.dropTarget = null;
        });
      }
    }

    // ---- model ----

    // Boxes (the design's nodes); notes and groups are nodes in cytoscape but not boxes.
    nodes() {
      return this.cy.nodes("[role = 'box']");
    }

    notes() {
      return this.cy.nodes("[role = 'note']");
    }

    groups() {
      return this.cy.nodes("[role = 'group']");
    }

    // Everything the candidate drew, in cytoscape (not edgehandles' ghosts and previews).
    items() {
      return this.cy.elements("node[role], edge[lmx]");
    }

    edges() {
      return this.cy.edges().not(".eh-ghost, .eh-preview");
    }

    getDesign() {
      const design = Object.assign({}, this.extra);
      design.nodes = this.nodes().map((n) => {
        const p = n.position();
        const node = {
          id: n.id(),
          kind: n.data("kind"),
          label: n.data("label"),
          job: n.data("job"),
          failure: n.data("failure"),
          x: Math.round(p.x),
          y: Math.round(p.y),
        };
        if (n.data("parent")) node.parent = n.data("parent");
        return node;
      });
      design.edges = this.edges().map((e) => ({ source: e.data("source"), target: e.data("target"), label: e.data("label") }));
      if (this.markable || this.keepMarks || this.marks.length) design.marks = this.marks.map((m) => Object.assign({}, m));
      const notes = this.notes().map((n) => ({ id: n.id(), text: n.data("text"), x: Math.round(n.position("x")), y: Math.round(n.position("y")) }));
      if (notes.length || this.keepNotes) design.notes = notes;
      const groups = this.groups().map((g) => {
        const group = { id: g.id(), label: g.data("label") };
        if (g.data("parent")) group.parent = g.data("parent");
        return group;
      });
      if (groups.length || this.keepGroups) design.groups = groups;
      return design;
    }

    snapshot() {
      return { design: this.getDesign(), selected: this.selection().map((item) => item.id()) };
    }

    loadDesign(design, fit) {
      const d = normaliseDesign(design);
      placeMissing(d);
      this.extra = d.extra;
      this.keepMarks = d.hadMarks;
      this.keepNotes = d.hadNotes;
      this.keepGroups = d.hadGroups;
      this.marks = d.marks;
      const before = new Set(this.nodes().map((n) => n.id()));
      // Parents before children: cytoscape wants a compound node to exist when a child names it.
      const depth = new Map();
      const byId = new Map(d.groups.map((g) => [g.id, g]));
      const depthOf = (g) => {
        if (!depth.has(g.id)) depth.set(g.id, g.parent ? depthOf(byId.get(g.parent)) + 1 : 0);
        return depth.get(g.id);
      };
      const groups = d.groups.slice().sort((a, b) => depthOf(a) - depthOf(b));
      this.syncing = true;
      this.cy.batch(() => {
        this.cy.elements().remove();
        for (const g of groups) this.cy.add({ group: "nodes", data: this.groupData(g) });
        this.cy.add(d.nodes.map((n) => ({ group: "nodes", data: this.nodeData(n), position: { x: n.x, y: n.y } })));
        for (const n of d.notes) {
          const pos = n.x === undefined ? this.nextPosition() : { x: n.x, y: n.y };
          this.cy.add({ group: "nodes", data: this.noteData(n), position: pos });
        }
        this.cy.add(d.edges.map((e) => ({ group: "edges", data: this.edgeData(e.source, e.target, e.label) })));
      });
      this.syncing = false;
      this.cy.nodes("[role]").forEach((n) => this.refreshNode(n));
      this.placeEdgeLabels();
      const after = this.nodes().map((n) => n.id());
      if (fit || after.length !== before.size || after.some((id) => !before.has(id))) this.fitView();
    }

    nodeData(n) {
      const data = { id: n.id, role: "box", kind: n.kind, label: n.label, job: n.job, failure: n.failure, display: "", h: 52 };
      if (n.parent) data.parent = n.parent;
      return data;
    }

    noteData(n) {
      return { id: n.id, role: "note", text: n.text, display: "", h: 40 };
    }

    groupData(g) {
      const data = { id: g.id, role: "group", label: g.label, display: "", h: 0 };
      if (g.parent) data.parent = g.parent;
      return data;
    }

    edgeData(source, target, label) {
      return { id: edgeKey(source, target), source, target, label: label || "", lmx: 0, lmy: 0 };
    }

    // The text drawn in a box: its label and, unless the view is compact, its job and way to fail.
    refreshNode(node) {
      const role = node.data("role");
      if (role === "group") {
        node.data("display", node.data("label").trim() || "(group)");
        return;
      }
      if (role === "note") {
        const lines = wrapText(node.data("text").trim() || "(empty note)", NOTE_WIDTH - 16, 12);
        node.data({ display: lines.join("\n"), h: Math.max(36, lines.length * 15 + 16) });
        return;
      }
      const label = node.data("label").trim() || "(no label)";
      const width = BOX_WIDTH - 16;
      let lines = wrapText(label, width, 12);
      const job = node.data("job").trim();
      const failure = node.data("failure").trim();
      const detailed = !this.compact && (job || failure);
      if (detailed) {
        lines = lines.concat(wrapText("Job: " + (job || "—"), width, 12), wrapText("Fails: " + (failure || "—"), width, 12));
      }
      node.data({ display: lines.join("\n"), h: Math.max(52, lines.length * 15 + 18) });
      node.toggleClass("sbc-detailed", Boolean(detailed));
      node.toggleClass("sbc-complete", Boolean(job && failure));
      // The box grew or shrank with its text: its connect handle moves with the top edge, never over the text.
      if (this.handleNode && this.handleNode.same(node)) this.placeHandle();
    }

    kindName(kind) {
      if (!kind) return "Free label";
      const item = this.paletteByKind.get(kind);
      return item ? item.name : kind;
    }

    newNodeId(kind) {
      const base = kind || "label";
      if (this.cy.getElementById(base).empty()) return base;
      let i = 2;
      while (this.cy.getElementById(base + "-" + i).nonempty()) i++;
      return base + "-" + i;
    }

    // The first grid slot whose box would not overlap anything drawn.
    nextPosition() {
      const taken = this.cy.nodes("[role = 'box'], [role = 'note']").map((n) => n.boundingBox({ includeLabels: false }));
      for (let i = 0; ; i++) {
        const pos = gridSlot(i);
        const box = { x1: pos.x - BOX_WIDTH / 2 - 20, x2: pos.x + BOX_WIDTH / 2 + 20, y1: pos.y - 50, y2: pos.y + 50 };
        if (!taken.some((t) => t.x1 < box.x2 && t.x2 > box.x1 && t.y1 < box.y2 && t.y2 > box.y1)) return pos;
      }
    }

    canConnect(source, target) {
      if (this.readOnly || source === target) return false;
      const s = this.cy.getElementById(source);
      const t = this.cy.getElementById(target);
      if (s.empty() || t.empty() || s.data("role") !== "box" || t.data("role") !== "box") return false;
      return this.cy.getElementById(edgeKey(source, target)).empty();
    }

    // The one selected item, or null when none or several are selected.
    selected() {
      const sel = this.selection();
      return sel.length === 1 ? sel[0] : null;
    }

    selection() {
      return this.cy.$(":selected").filter((item) => item.isNode() ? Boolean(item.data("role")) : item.data("lmx") !== undefined);
    }

    pushHistory(state) {
      this.past.push(JSON.stringify(state));
      if (this.past.length > HISTORY_MAX) this.past.shift();
      this.future = [];
    }

    // Record the state before a change; changes sharing `key` (typing in one field) make one undo step.
    record(key) {
      if (key && key === this.editKey) return;
      this.pushHistory(this.snapshot());
      this.editKey = key || null;
    }

    restore(serialised) {
      const state = JSON.parse(serialised);
      this.loadDesign(state.design, false);
      this.syncing = true;
      this.cy.elements().unselect();
      const ids = Array.isArray(state.selected) ? state.selected : state.selected ? [state.selected] : [];
      for (const id of ids) this.cy.getElementById(id).select();
      this.syncing = false;
    }

    undo() {
      if (!this.undoable || !this.past.length) return false;
      this.cancelConnect();
      const hadFocus = this.owns(document.activeElement);
      this.future.push(JSON.stringify(this.snapshot()));
      this.restore(this.past.pop());
      this.editKey = null;
      this.changed("Undone.");
      // The focused list item may have been undone away: the keyboard stays on the canvas.
      if (hadFocus && !this.owns(document.activeElement)) this.stageWrap.focus();
      return true;
    }

    redo() {
      if (!this.undoable || !this.future.length) return false;
      this.cancelConnect();
      const hadFocus = this.owns(document.activeElement);
      this.past.push(JSON.stringify(this.snapshot()));
      this.restore(this.future.pop());
      this.editKey = null;
      this.changed("Redone.");
      if (hadFocus && !this.owns(document.activeElement)) this.stageWrap.focus();
      return true;
    }

    // After every edit: redraw the panel and tell the page (debounced).
    changed(message) {
      this.renderAll();
      if (message) this.announce(message);
      if (!this.onChange) return;
      clearTimeout(this.changeTimer);
      this.changeTimer = setTimeout(() => {
        this.changeTimer = null;
        if (this.cy) this.onChange(this.getDesign());
      }, CHANGE_DELAY_MS);
    }

    // Tell the page about a change still waiting for its debounce now (the page is being left).
    flush() {
      if (this.changeTimer === null || !this.cy) return;
      clearTimeout(this.changeTimer);
      this.changeTimer = null;
      if (this.onChange) this.onChange(this.getDesign());
    }

    // From now on the design only shows: the page could not save it (a stale tab, a locked round).
    lock() {
      this.flush();
      this.cancelConnect();
      this.readOnly = true;
      this.undoable = false;
      this.markable = false;
      this.hideHandle();
      if (this.cy) this.cy.autoungrabify(true);
      for (const field of this.panel.querySelectorAll("input, textarea")) field.readOnly = true;
      this.root.classList.add("sbc-readonly");
      this.renderButtons();
    }

    setDesign(design) {
      clearTimeout(this.changeTimer);
      this.changeTimer = null;
      const selectedIds = this.selection().map((item) => item.id());
      this.cancelConnect();
      this.closeMarkForm(false);
      this.loadDesign(design, false);
      this.announce("");
      this.past = [];
      this.future = [];
      this.editKey = null;
      this.syncing = true;
      for (const id of selectedIds) this.cy.getElementById(id).select();
      this.syncing = false;
      this.renderAll();
    }

    addNode(kind, label) {
      if (this.readOnly) return null;
      this.cancelConnect();
      this.record();
      const id = this.newNodeId(kind);
      const pos = this.nextPosition();
      const text = clip(label !== undefined ? label : this.kindName(kind), LABEL_MAX);
      const node = this.cy.add({
        group: "nodes",
        data: this.nodeData({ id, kind, label: text, job: "", failure: "" }),
        position: pos,
      });
      this.refreshNode(node);
      this.select(id);
      this.ensureVisible(node);
      this.changed("Added box " + (text || this.kindName(kind)) + ".");
      return id;
    }

    // A free note on the canvas (not a box: the grader never sees it); focus goes to its text.
    addNote(text) {
      if (this.readOnly) return null;
      this.cancelConnect();
      this.record();
      const id = this.newNodeId("note");
      const node = this.cy.add({ group: "nodes", data: this.noteData({ id, text: clip(text || "", NOTE_MAX) }), position: this.nextPosition() });
      this.refreshNode(node);
      this.select(id);
      this.ensureVisible(node);
      this.changed("Added a note.");
      this.reveal();
      this.fields.noteText.input.focus();
      return id;
    }

    // A group around the selected boxes (and groups): containment only, drawn as a dashed container.
    groupSelection() {
      if (this.readOnly) return null;
      const members = this.selection().filter((item) => item.isNode() && item.data("role") !== "note");
      if (!members.length) {
        this.announce("Select the boxes to group first.");
        return null;
      }
      this.cancelConnect();
      this.record();
      const id = this.newNodeId("group");
      // The new group sits where its members were: inside their common parent, if they share one.
      const parents = new Set(members.map((m) => m.data("parent") || ""));
      const parent = parents.size === 1 ? [...parents][0] : "";
      this.cy.add({ group: "nodes", data: this.groupData({ id, label: "Group", parent }) });
      members.forEach((m) => m.move({ parent: id }));
      const group = this.cy.getElementById(id);
      this.refreshNode(group);
      this.select(id);
      this.changed("Grouped " + members.length + " items.");
      this.rename();
      return id;
    }

    // Ungroup: the selected group goes, its members stay where they are (in the group's own parent).
    ungroupSelection() {
      const group = this.selected();
      if (this.readOnly || !group || group.data("role") !== "group") {
        this.announce("Select a group to ungroup.");
        return;
      }
      this.record();
      const parent = group.data("parent") || null;
      const members = group.children();
      members.forEach((m) => m.move({ parent }));
      group.remove();
      this.cy.elements().unselect();
      members.select();
      this.changed("Ungrouped.");
    }

    connect(source, target) {
      if (!this.canConnect(source, target)) {
        this.announce("Those boxes are already connected.");
        return false;
      }
      this.record();
      this.cy.add({ group: "edges", data: this.edgeData(source, target, "") });
      this.placeEdgeLabels();
      this.changed("Connected " + this.nodeName(source) + " to " + this.nodeName(target) + ".");
      return true;
    }

    nodeName(id) {
      const n = this.cy.getElementById(id);
      if (n.empty()) return id;
      if (n.data("role") === "note") return "note";
      return n.data("label") || this.kindName(n.data("kind"));
    }

    deleteSelected() {
      const selection = this.selection();
      if (this.readOnly || selection.empty()) return;
      if (selection.length === 1) {
        this.deleteElement(selection[0].id());
        return;
      }
      this.cancelConnect();
      const hadFocus = this.owns(document.activeElement);
      this.record();
      this.removeItems(selection);
      this.changed("Deleted " + selection.length + " items.");
      // A focused list item may have gone with them: the keyboard stays on the canvas.
      if (hadFocus && !this.owns(document.activeElement)) this.stageWrap.focus();
    }

    // Remove items with their arrows and marks; a group's members stay (in the group's own parent).
    removeItems(items) {
      const gone = new Set();
      items.forEach((item) => {
        if (item.removed()) return;
        if (item.isNode() && item.data("role") === "group") {
          const parent = item.data("parent") || null;
          item.children().forEach((child) => {
            if (!items.has(child)) child.move({ parent });
          });
        }
        if (item.isNode()) {
          gone.add(item.id());
          item.connectedEdges().forEach((e) => gone.add(edgeKey(e.data("source"), e.data("target"))));
          if (this.handleNode && this.handleNode.same(item)) this.hideHandle();
        } else {
          gone.add(edgeKey(item.data("source"), item.data("target")));
        }
        item.remove();
      });
      this.marks = this.marks.filter((m) => !gone.has(m.target));
    }

    deleteElement(id) {
      const item = this.cy.getElementById(id);
      if (this.readOnly || item.empty()) return;
      this.cancelConnect();
      const isNode = item.isNode();
      const name = isNode ? this.nodeName(id) : this.edgeName(item);
      // Focus moves to the neighbour in the list, so keyboard users stay in place.
      const list = this.itemFor(id) ? this.itemFor(id).closest("ul") : this.boxList;
      const buttons = Array.from(list.querySelectorAll("button[data-id]"));
      const index = buttons.findIndex((b) => b.getAttribute("data-id") === id);
      const hadFocus = this.owns(document.activeElement);
      this.record();
      this.removeItems(item);
      const next = buttons[index + 1] || buttons[index - 1];
      const nextId = next ? next.getAttribute("data-id") : null;
      if (nextId) this.select(nextId);
      const what = !isNode ? "arrow " : item.data("role") === "note" ? "" : item.data("role") === "group" ? "group " : "box ";
      this.changed("Deleted " + what + name + ".");
      if (hadFocus && document.activeElement !== this.stageWrap) {
        const target = nextId ? this.itemFor(nextId) : this.search || this.stageWrap;
        if (target) target.focus();
      }
    }

    edgeName(edge) {
      return this.nodeName(edge.data("source")) + " → " + this.nodeName(edge.data("target"));
    }

    setField(name, value) {
      const item = this.selected();
      if (this.readOnly || !item) return;
      this.record("field:" + item.id() + ":" + name);
      if (name === "edgeLabel") {
        item.data("label", clip(value, LABEL_MAX));
        this.placeEdgeLabels();
      } else if (name === "noteText") {
        item.data("text", clip(value, NOTE_MAX));
        this.refreshNode(item);
      } else {
        item.data(name, clip(value, name === "label" ? LABEL_MAX : TEXT_MAX));
        this.refreshNode(item);
        this.placeEdgeLabels();
      }
      this.changed();
    }

    // Arrow keys move every selected box and note (a group moves with its members).
    moveSelected(dx, dy) {
      if (this.readOnly) return;
      const moving = this.movable(this.selection());
      if (moving.empty()) return;
      this.record("move:" + moving.map((n) => n.id()).join(","));
      moving.forEach((n) => {
        const p = n.position();
        n.position({ x: p.x + dx, y: p.y + dy });
      });
      this.placeEdgeLabels();
      this.ensureVisible(moving);
      this.changed();
    }

    // The boxes and notes that moving `items` moves: groups stand for their descendants.
    movable(items) {
      let nodes = this.cy.collection();
      items.forEach((item) => {
        if (!item.isNode()) return;
        nodes = nodes.union(item.data("role") === "group" ? item.descendants().filter((d) => !d.isParent()) : item);
      });
      return nodes.filter((n) => n.data("role") === "box" || n.data("role") === "note");
    }

    // ---- selection, clipboard ----

    selectAll() {
      this.cy.elements().unselect();
      this.items().select();
      this.announce("Selected everything: " + this.selection().length + " items.");
    }

    toggleSelected(id) {
      const item = this.cy.getElementById(id);
      if (item.empty()) return;
      if (item.selected()) item.unselect();
      else item.select();
      this.renderSelection();
      this.announce(this.selection().length + " selected.");
    }

    // The selected boxes, notes and groups (with what they contain) and the arrows between them.
    copySelection() {
      const selection = this.selection();
      let nodes = this.cy.collection();
      selection.forEach((item) => {
        if (item.isNode()) nodes = nodes.union(item).union(item.descendants());
      });
      if (nodes.empty()) {
        this.announce("Select boxes or notes to copy.");
        return null;
      }
      const ids = new Set(nodes.map((n) => n.id()));
      const edges = this.edges().filter((e) => ids.has(e.data("source")) && ids.has(e.data("target")));
      this.clipboard = {
        boxes: nodes.filter("[role = 'box']").map((n) => Object.assign({ x: n.position("x"), y: n.position("y") }, n.data())),
        notes: nodes.filter("[role = 'note']").map((n) => ({ text: n.data("text"), id: n.id(), x: n.position("x"), y: n.position("y") })),
        groups: nodes.filter("[role = 'group']").map((n) => ({ id: n.id(), label: n.data("label"), parent: n.data("parent") || "" })),
        edges: edges.map((e) => ({ source: e.data("source"), target: e.data("target"), label: e.data("label") })),
        pasted: 0,
      };
      this.announce("Copied " + ids.size + " items.");
      return this.clipboard;
    }

    // Pasted copies get new ids, sit a step down and right of the last copy, and become the selection.
    paste() {
      const clip = this.clipboard;
      if (this.readOnly || !clip) {
        this.announce("Nothing to paste: copy boxes first (Ctrl+C).");
        return;
      }
      this.cancelConnect();
      this.record();
      clip.pasted += 1;
      const offset = PASTE_OFFSET * clip.pasted;
      const newId = new Map();
      const claim = (oldId, base) => {
        const id = this.newNodeId(base);
        newId.set(oldId, id);
        this.cy.add({ group: "nodes", data: { id, role: "placeholder", h: 0 } }); // hold the id until the batch ends
        return id;
      };
      const boxes = clip.boxes.map((b) => ({ b, id: claim(b.id, b.kind || "label") }));
      const notes = clip.notes.map((n) => ({ n, id: claim(n.id, "note") }));
      const groups = clip.groups.map((g) => ({ g, id: claim(g.id, "group") }));
      this.cy.nodes("[role = 'placeholder']").remove();
      const added = [];
      const inCopy = (parent) => (parent && newId.has(parent) ? newId.get(parent) : "");
      for (const { g, id } of groups) added.push(this.cy.add({ group: "nodes", data: this.groupData({ id, label: g.label, parent: "" }) }));
      for (const { g, id } of groups) {
        if (inCopy(g.parent)) this.cy.getElementById(id).move({ parent: inCopy(g.parent) });
      }
      for (const { b, id } of boxes) {
        const data = this.nodeData({ id, kind: b.kind, label: b.label, job: b.job, failure: b.failure, parent: inCopy(b.parent) });
        added.push(this.cy.add({ group: "nodes", data, position: { x: b.x + offset, y: b.y + offset } }));
      }
      for (const { n, id } of notes) {
        added.push(this.cy.add({ group: "nodes", data: this.noteData({ id, text: n.text }), position: { x: n.x + offset, y: n.y + offset } }));
      }
      for (const e of clip.edges) {
        added.push(this.cy.add({ group: "edges", data: this.edgeData(newId.get(e.source), newId.get(e.target), e.label) }));
      }
      this.cy.nodes("[role]").forEach((n) => this.refreshNode(n));
      this.cy.elements().unselect();
      this.cy.collection(added).select();
      this.placeEdgeLabels();
      this.ensureVisible(this.cy.collection(added).nodes());
      this.changed("Pasted " + (boxes.length + notes.length + groups.length) + " items.");
    }

    duplicate() {
      if (this.copySelection()) this.paste();
    }

    startConnect(moveFocus) {
      if (this.readOnly) return;
      if (this.connectFrom !== null) {
        this.cancelConnect("Connecting cancelled.");
        return;
      }
      const item = this.selected();
      if (!item || !item.isNode() || item.data("role") !== "box") {
        this.announce("Select a box first, then press Connect.");
        return;
      }
      this.connectFrom = item.id();
      item.addClass("sbc-connect-source");
      this.root.classList.add("sbc-connecting");
      this.helpShown = null;
      this.renderHelp();
      this.renderButtons();
      this.announce(
        "Connecting from " + this.nodeName(item.id()) + ": tap or click the target box, or Tab to it in the list and press Enter. Escape cancels.",
      );
      // Put the keyboard user on the box after the source in the list (a chain drawn in order connects with
      // C, Enter, C, Enter…), ready to Tab on and press Enter.
      if (moveFocus) {
        const buttons = Array.from(this.boxList.querySelectorAll("button[data-id]"));
        const at = buttons.findIndex((b) => b.getAttribute("data-id") === this.connectFrom);
        const next = buttons[(at + 1) % buttons.length];
        if (next && next.getAttribute("data-id") !== this.connectFrom) next.focus();
      }
    }

    connectTo(target) {
      const source = this.connectFrom;
      this.cancelConnect();
      if (source === target) {
        this.announce("Pick a different box to connect to.");
        return;
      }
      if (this.connect(source, target)) this.select(target);
      const item = this.itemFor(target);
      if (item && this.owns(document.activeElement) && document.activeElement !== this.stageWrap) item.focus();
    }

    cancelConnect(message) {
      if (this.connectFrom === null) return;
      this.connectFrom = null;
      this.cy.nodes().removeClass("sbc-connect-source sbc-candidate");
      this.root.classList.remove("sbc-connecting");
      this.helpShown = null;
      this.renderHelp();
      this.renderButtons();
      if (message) this.announce(message);
    }

    // ---- selection and panel ----

    select(id) {
      const item = this.cy.getElementById(id);
      if (item.empty()) return;
      this.multiMode = false;
      this.cy.elements().not(item).unselect();
      item.select();
      this.renderSelection();
    }

    lists() {
      return [this.boxList, this.arrowList, this.groupList, this.noteList];
    }

    itemFor(id) {
      for (const list of this.lists()) {
        for (const b of list.querySelectorAll("button[data-id]")) if (b.getAttribute("data-id") === id) return b;
      }
      return null;
    }

    focusSelectedItem() {
      const item = this.selected() || this.selection()[0];
      const button = item ? this.itemFor(item.id()) : null;
      if (button) button.focus();
    }

    rename() {
      const item = this.selected();
      if (!item) {
        this.announce("Select one box, group or arrow to rename.");
        return;
      }
      const role = item.isNode() ? item.data("role") : "edge";
      const input = role === "edge" ? this.fields.edgeLabel.input : role === "note" ? this.fields.noteText.input : this.fields.label.input;
      this.reveal();
      input.focus();
      input.select();
    }

    // Focus in a list selects that item, except while several are selected (built with Shift+Space or
    // shift-click): then Tab walks the list and the selection stays.
    onItemFocus(button) {
      const id = button.getAttribute("data-id");
      if (this.connectFrom !== null) {
        this.cy.nodes().removeClass("sbc-candidate");
        if (id !== this.connectFrom) this.cy.getElementById(id).addClass("sbc-candidate");
        return;
      }
      if (this.multiMode || this.selection().length > 1) return;
      const current = this.selected();
      if (!current || current.id() !== id) this.select(id);
    }

    onItemActivate(button, adding) {
      const id = button.getAttribute("data-id");
      if (this.connectFrom !== null && button.closest("ul") === this.boxList) {
        this.connectTo(id);
        return;
      }
      this.cancelConnect();
      if (adding) this.toggleSelected(id);
      else this.select(id);
    }

    renderAll() {
      this.renderLists();
      this.renderSelection();
      this.renderMarks();
      this.renderButtons();
    }

    // Keyed update: existing buttons are kept (and keep focus); only text and order change.
    renderList(list, items) {
      const existing = new Map();
      for (const b of list.querySelectorAll("button[data-id]")) existing.set(b.getAttribute("data-id"), b.parentElement);
      const keep = new Set();
      items.forEach((item, i) => {
        let li = existing.get(item.id);
        if (!li) {
          li = el("li", {}, [el("button", { type: "button", className: "sbc-item", "data-id": item.id })]);
        }
        keep.add(item.id);
        const button = li.firstChild;
        button.textContent = "";
        button.appendChild(el("span", { className: "sbc-item-main", text: item.main }));
        if (item.sub) button.appendChild(el("span", { className: "sbc-item-sub", text: item.sub }));
        button.setAttribute("aria-label", item.aria);
        button.setAttribute("aria-current", item.current ? "true" : "false");
        button.classList.toggle("sbc-marked", Boolean(item.marked));
        if (list.children[i] !== li) list.insertBefore(li, list.children[i] || null);
      });
      for (const [id, li] of existing) if (!keep.has(id)) li.remove();
    }

    renderLists() {
      const chosen = new Set(this.selection().map((item) => item.id()));
      const marked = new Set(this.marks.map((m) => m.target));
      const inGroup = (n) => (n.data("parent") ? "in " + this.nodeName(n.data("parent")) : "");
      this.renderList(
        this.boxList,
        this.nodes().map((n) => {
          const missing = [];
          if (!n.data("job").trim()) missing.push("no job");
          if (!n.data("failure").trim()) missing.push("no way to fail");
          const main = n.data("label") || "(no label)";
          const kind = this.kindName(n.data("kind"));
          const sub = (kind !== main ? [kind] : []).concat(missing, inGroup(n) ? [inGroup(n)] : []).join(" · ");
          return { id: n.id(), main, sub, aria: "Box " + main + ", " + sub, current: chosen.has(n.id()), marked: marked.has(n.id()) };
        }),
      );
      this.renderList(
        this.arrowList,
        this.edges().map((e) => {
          const main = this.edgeName(e);
          const label = e.data("label");
          return {
            id: e.id(),
            main,
            sub: label,
            aria: "Arrow from " + main.replace(" → ", " to ") + (label ? ", " + label : ""),
            current: chosen.has(e.id()),
            marked: marked.has(edgeKey(e.data("source"), e.data("target"))),
          };
        }),
      );
      this.renderList(
        this.groupList,
        this.groups().map((g) => {
          const main = g.data("label") || "(group)";
          const members = g.children().map((c) => this.nodeName(c.id()));
          const sub = (members.length ? "around " + members.join(", ") : "empty") + (inGroup(g) ? " · " + inGroup(g) : "");
          return { id: g.id(), main, sub, aria: "Group " + main + ", " + sub, current: chosen.has(g.id()), marked: false };
        }),
      );
      this.renderList(
        this.noteList,
        this.notes().map((n) => {
          const main = n.data("text").trim() || "(empty note)";
          return { id: n.id(), main, sub: "", aria: "Note: " + main, current: chosen.has(n.id()), marked: false };
        }),
      );
      this.boxesEmpty.hidden = this.nodes().nonempty();
      this.arrowsEmpty.hidden = this.edges().nonempty();
      this.groupsHeading.hidden = this.groupList.hidden = this.groups().empty();
      this.notesHeading.hidden = this.noteList.hidden = this.notes().empty();
    }

    renderSelection() {
      const item = this.selected();
      const chosen = new Set(this.selection().map((s) => s.id()));
      for (const b of this.panel.querySelectorAll(".sbc-list button[data-id]")) {
        b.setAttribute("aria-current", chosen.has(b.getAttribute("data-id")) ? "true" : "false");
      }
      this.details.hidden = chosen.size === 0;
      const role = item ? (item.isNode() ? item.data("role") : "edge") : chosen.size ? "many" : null;
      this.nodeDetails.hidden = role !== "box" && role !== "group";
      this.edgeDetails.hidden = role !== "edge";
      this.noteDetails.hidden = role !== "note";
      this.multiText.hidden = role !== "many";
      this.fields.job.wrap.hidden = this.fields.failure.wrap.hidden = role === "group";
      if (role === "box" || role === "group") {
        this.detailsTitle.textContent = role === "box" ? "Selected box" : "Selected group";
        this.kindText.textContent = role === "box" ? this.kindName(item.data("kind")) : "Group (a container)";
        this.fillField(this.fields.label, item.data("label"));
        if (role === "box") {
          this.fillField(this.fields.job, item.data("job"));
          this.fillField(this.fields.failure, item.data("failure"));
        }
      } else if (role === "edge") {
        this.detailsTitle.textContent = "Selected arrow";
        this.edgeText.textContent = this.edgeName(item);
        this.fillField(this.fields.edgeLabel, item.data("label"));
      } else if (role === "note") {
        this.detailsTitle.textContent = "Selected note";
        this.fillField(this.fields.noteText, item.data("text"));
      } else if (role === "many") {
        this.detailsTitle.textContent = chosen.size + " selected";
        this.multiText.textContent =
          this.selection().map((s) => (s.isNode() ? this.nodeName(s.id()) : this.edgeName(s))).join(", ") +
          ". Move them together with the arrow keys or by dragging; Delete, Duplicate, Group and Ctrl+C act on all.";
      }
      if (!item || !item.isNode() || item.data("role") !== "box") this.hideHandle();
      if (this.markFormOpen && (!item || this.markTarget !== this.markTargetOf(item))) this.closeMarkForm(false);
      this.renderButtons();
      this.renderHelp();
    }

    // Leave the field alone while the user types in it, so the caret does not jump.
    fillField(field, value) {
      if (document.activeElement !== field.input) field.input.value = value;
      if (field.counter) field.counter.textContent = field.input.value.length + "/" + TEXT_MAX;
    }

    onFieldInput(name, field) {
      if (field.counter) field.counter.textContent = field.input.value.length + "/" + TEXT_MAX;
      this.setField(name, field.input.value);
    }

    // A button's visible text (its icon stays); the toolbar is measured again, since the text's width changed.
    setButtonText(b, text) {
      const span = b.querySelector(".sbc-button-text");
      if (span.textContent === text) return;
      span.textContent = text;
      this.fitToolbar();
    }

    // The toolbar shows its buttons with text when they fit in one row beside the search, with icons only when
    // they do not (each keeps its name as aria-label and title); narrower still, the row wraps. It never
    // scrolls sideways and never hides a button.
    fitToolbar() {
      const bar = this.toolbar;
      if (!bar.isConnected || !bar.clientWidth) return;
      bar.classList.remove("sbc-icons-only");
      bar.classList.add("sbc-measuring");
      const tooWide = bar.scrollWidth > bar.clientWidth + 1;
      bar.classList.remove("sbc-measuring");
      bar.classList.toggle("sbc-icons-only", tooWide);
    }

    toggleExportMenu(open, focusFirst) {
      const show = open === undefined ? this.exportMenu.hidden : open;
      this.exportMenu.hidden = !show;
      this.buttons.export.setAttribute("aria-expanded", show ? "true" : "false");
      if (show && focusFirst) this.buttons["export-png"].focus();
    }

    renderButtons() {
      const item = this.selected();
      const count = this.selection().length;
      const b = this.buttons;
      const isBox = Boolean(item && item.isNode() && item.data("role") === "box");
      if (b.connect) {
        b.connect.disabled = !isBox && this.connectFrom === null;
        b.connect.setAttribute("aria-pressed", this.connectFrom !== null ? "true" : "false");
        // "Cancel", not "Cancel connect": as wide as "Connect", so the toolbar does not change shape meanwhile.
        const connecting = this.connectFrom !== null;
        this.setButtonText(b.connect, connecting ? "Cancel" : "Connect");
        b.connect.setAttribute("aria-label", connecting ? "Cancel connecting" : "Connect the selected box to another box");
      }
      if (b.delete) b.delete.disabled = !count;
      if (b.duplicate) b.duplicate.disabled = !this.selection().filter((s) => s.isNode()).length;
      if (b.group) {
        const isGroup = Boolean(item && item.isNode() && item.data("role") === "group");
        b.group.disabled = !this.selection().filter((s) => s.isNode() && s.data("role") !== "note").length;
        this.setButtonText(b.group, isGroup ? "Ungroup" : "Group");
      }
      if (b.undo) b.undo.disabled = !this.past.length;
      if (b.redo) b.redo.disabled = !this.future.length;
      if (b.mark) b.mark.disabled = !(item && (item.isEdge() || item.data("role") === "box"));
      if (b.compact) b.compact.setAttribute("aria-pressed", this.compact ? "true" : "false");
      if (b.snap) b.snap.setAttribute("aria-pressed", this.snap ? "true" : "false");
      if (this.readOnly && !this.markable) {
        for (const name of ["connect", "delete", "duplicate", "group", "note", "layout", "snap", "mark"]) {
          if (b[name]) b[name].disabled = true;
        }
      }
      if (!this.undoable) {
        if (b.undo) b.undo.disabled = true;
        if (b.redo) b.redo.disabled = true;
      }
    }

    // Ask the page to show the panel (it may sit in a hidden tab) before focus moves into it.
    reveal() {
      this.panel.dispatchEvent(new CustomEvent("sevenbox:reveal", { bubbles: true }));
    }

    announce(message) {
      this.status.textContent = message;
    }

    // ---- the drag handle ----

    showHandle(node) {
      if (this.readOnly || !this.eh || node.hasClass("eh-ghost")) return;
      this.handleNode = node;
      this.handle.hidden = false;
      this.placeHandle();
    }

    placeHandle() {
      if (!this.handleNode || this.handle.hidden) return;
      if (this.handleNode.removed()) {
        this.hideHandle();
        return;
      }
      const box = this.handleNode.renderedBoundingBox({ includeLabels: false });
      this.handle.style.left = Math.round((box.x1 + box.x2) / 2) + "px";
      this.handle.style.top = Math.round(box.y1) + "px";
    }

    hideHandle() {
      this.handleNode = null;
      this.handle.hidden = true;
    }

    // ---- viewport ----

    // Where a box is drawn, in viewport (client) pixels: for tests and for pages placing popovers.
    boxRect(id) {
      const node = this.cy ? this.cy.getElementById(String(id)) : null;
      if (!node || node.empty() || !node.isNode()) return null;
      const box = node.renderedBoundingBox({ includeLabels: false });
      const origin = this.stage.getBoundingClientRect();
      return { x: origin.left + box.x1, y: origin.top + box.y1, width: box.w, height: box.h };
    }

    fitView() {
      const cy = this.cy;
      if (!cy) return;
      // Mounted while hidden: fit once the stage has a size.
      this.needsFit = this.stage.clientWidth === 0 || this.stage.clientHeight === 0;
      if (this.needsFit) return;
      const nodes = cy.nodes("[role]");
      if (nodes.empty()) {
        cy.zoom(1);
        cy.pan({ x: 0, y: 0 });
        return;
      }
      // Fit above the view bar in the bottom-left corner, so it never covers a box; never zoom in past 110%.
      const padding = 30;
      const bar = this.viewBar.offsetHeight + 8;
      const width = this.stage.clientWidth;
      const height = this.stage.clientHeight - (this.stage.clientHeight - bar > 4 * padding ? bar : 0);
      const bb = nodes.boundingBox();
      const fits = Math.min((width - 2 * padding) / Math.max(bb.w, 1), (height - 2 * padding) / Math.max(bb.h, 1), 1.1);
      const level = Math.min(cy.maxZoom(), Math.max(cy.minZoom(), fits));
      cy.zoom(level);
      cy.pan({ x: width / 2 - level * (bb.x1 + bb.w / 2), y: height / 2 - level * (bb.y1 + bb.h / 2) });
    }

    showZoomLevel() {
      this.zoomLevel.textContent = Math.round(this.cy.zoom() * 100) + "%";
    }

    zoomBy(factor) {
      const cy = this.cy;
      const level = Math.min(cy.maxZoom(), Math.max(cy.minZoom(), cy.zoom() * factor));
      cy.zoom({ level, renderedPosition: { x: this.stage.clientWidth / 2, y: this.stage.clientHeight / 2 } });
      this.announce("Zoom " + Math.round(level * 100) + "%.");
    }

    toggleCompact() {
      this.compact = !this.compact;
      this.cy.nodes("[role]").forEach((n) => this.refreshNode(n));
      this.placeEdgeLabels();
      this.renderButtons();
      this.announce(this.compact ? "Boxes show their labels only." : "Boxes show their jobs and ways to fail.");
    }

    toggleSnap() {
      this.snap = !this.snap;
      this.renderButtons();
      this.announce(this.snap ? "Boxes snap to the grid." : "Boxes no longer snap to the grid.");
    }

    snapToGrid(nodes) {
      nodes.forEach((n) => {
        const p = n.position();
        n.position({ x: Math.round(p.x / SNAP) * SNAP, y: Math.round(p.y / SNAP) * SNAP });
      });
    }

    // Auto-layout on demand with dagre (cytoscape-dagre), left to right along the arrows; notes keep their place.
    layout() {
      if (this.readOnly || typeof this.cy.layout !== "function") return;
      const eles = this.cy.elements("node[role = 'box'], node[role = 'group'], edge[lmx]");
      if (eles.nodes().empty()) return;
      this.cancelConnect();
      this.record();
      eles
        .layout({ name: "dagre", rankDir: "LR", nodeSep: 40, rankSep: 90, edgeSep: 20, fit: false, animate: false })
        .run();
      if (this.snap) this.snapToGrid(this.nodes());
      // Notes go below what was laid out, so none covers a box.
      const box = this.cy.nodes("[role = 'box'], [role = 'group']").boundingBox({ includeLabels: false });
      let x = box.x1 + NOTE_WIDTH / 2;
      this.notes().forEach((n) => {
        n.position({ x, y: box.y2 + 60 });
        x += NOTE_WIDTH + 20;
      });
      this.placeEdgeLabels();
      this.fitView();
      this.changed("Laid the design out left to right.");
    }

    // Arrow labels sit at the arrow's middle unless that covers a box; then at the nearest place that covers
    // none (and no other label), trying offsets on a widening spiral. Positions and sizes are worked out here
    // (not read back from cytoscape, which updates an edge's label box only when it next draws).
    placeEdgeLabels() {
      const cy = this.cy;
      if (!cy) return;
      const blockers = cy.nodes("[role = 'box'], [role = 'note']").map((n) => n.boundingBox({ includeLabels: false }));
      const hit = (a, b) => a.x1 < b.x2 && a.x2 > b.x1 && a.y1 < b.y2 && a.y2 > b.y1;
      const placed = [];
      const offsets = [[0, 0]];
      for (let r = 14; r <= 320; r += 14) {
        offsets.push([0, -r], [0, r], [r, 0], [-r, 0], [r, -r], [-r, r], [r, r], [-r, -r]);
      }
      this.edges().forEach((edge) => {
        const label = edge.data("label");
        if (!label) {
          if (edge.data("lmx") || edge.data("lmy")) edge.data({ lmx: 0, lmy: 0 });
          return;
        }
        const w = textWidth(label, 11) + 2 * 2 + 6; // text, its background padding, a little air
        const h = 11 * 1.25 + 2 * 2 + 6;
        // Where cytoscape draws the label before its margins: the curve's middle (a pair of opposite arrows
        // bends apart, so that is not the middle of the two boxes).
        const middle = this.edgeMiddle(edge);
        const cx = middle.x;
        const cy0 = middle.y;
        let chosen = [0, 0];
        for (const [dx, dy] of offsets) {
          const box = { x1: cx + dx - w / 2, x2: cx + dx + w / 2, y1: cy0 + dy - h / 2, y2: cy0 + dy + h / 2 };
          if (!blockers.some((b) => hit(b, box)) && !placed.some((p) => hit(p, box))) {
            chosen = [dx, dy];
            placed.push(box);
            break;
          }
        }
        if (edge.data("lmx") !== chosen[0] || edge.data("lmy") !== chosen[1]) edge.data({ lmx: chosen[0], lmy: chosen[1] });
      });
    }

    edgeMiddle(edge) {
      const m = edge.midpoint();
      if (m && Number.isFinite(m.x) && Number.isFinite(m.y)) return m;
      const s = edge.source().position();
      const t = edge.target().position();
      return { x: (s.x + t.x) / 2, y: (s.y + t.y) / 2 };
    }

    // Where an arrow's label is drawn, in model coordinates (tests: labels must not cover boxes).
    labelBox(id) {
      const edge = this.cy.getElementById(id);
      if (edge.empty() || !edge.isEdge() || !edge.data("label")) return null;
      const b = edge.boundingBox({ includeNodes: false, includeEdges: false, includeLabels: true });
      return { x1: b.x1, x2: b.x2, y1: b.y1, y2: b.y2 };
    }

    geometry() {
      const rect = (b) => ({ x1: b.x1, x2: b.x2, y1: b.y1, y2: b.y2 });
      const boxes = {};
      this.cy.nodes("[role]").forEach((n) => {
        boxes[n.id()] = Object.assign(rect(n.boundingBox({ includeLabels: false })), { x: n.position("x"), y: n.position("y") });
      });
      const labels = {};
      this.edges().forEach((e) => {
        const box = this.labelBox(e.id());
        if (box) labels[e.id()] = box;
      });
      return { boxes, labels };
    }

    // ---- export ----

    download(blob, name) {
      const url = URL.createObjectURL(blob);
      const link = el("a", { href: url, download: name, hidden: true });
      document.body.appendChild(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10000);
    }

    exportPng() {
      // The picture shows the design, not what is selected: unselect quietly, draw, select again.
      const selected = this.cy.$(":selected");
      this.syncing = true;
      selected.unselect();
      const blob = this.cy.png({ output: "blob", full: true, scale: 2, bg: "#ffffff" });
      selected.select();
      this.syncing = false;
      this.download(blob, "design.png");
      this.announce("Exported design.png.");
    }

    exportSvg() {
      this.download(new Blob([this.toSvg()], { type: "image/svg+xml" }), "design.svg");
      this.announce("Exported design.svg.");
    }

    // The design as SVG, drawn from the model with the lines the canvas shows (cytoscape has no SVG output;
    // the one extension that adds it is GPL-3).
    toSvg() {
      const NS = "http://www.w3.org/2000/svg";
      const all = this.cy.nodes("[role]");
      const bb = all.nonempty() ? this.cy.elements("node[role], edge[lmx]").boundingBox() : { x1: 0, y1: 0, w: 100, h: 60 };
      const margin = 20;
      const svg = document.createElementNS(NS, "svg");
      const attrs = (node, values) => {
        for (const [k, v] of Object.entries(values)) node.setAttribute(k, String(v));
        return node;
      };
      const make = (tag, values, parent) => {
        const node = attrs(document.createElementNS(NS, tag), values);
        (parent || svg).appendChild(node);
        return node;
      };
      attrs(svg, {
        xmlns: NS,
        width: Math.ceil(bb.w + 2 * margin),
        height: Math.ceil(bb.h + 2 * margin),
        viewBox: [bb.x1 - margin, bb.y1 - margin, bb.w + 2 * margin, bb.h + 2 * margin].map((v) => Math.round(v)).join(" "),
        "font-family": FONT,
      });
      make("title", {}).textContent = "Design";
      const defs = make("defs", {});
      const marker = make("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 10, refY: 5, markerWidth: 8, markerHeight: 8, orient: "auto-start-reverse" }, defs);
      make("path", { d: "M 0 0 L 10 5 L 0 10 z", fill: "#7b8796" }, marker);
      make("rect", { x: bb.x1 - margin, y: bb.y1 - margin, width: bb.w + 2 * margin, height: bb.h + 2 * margin, fill: "#ffffff" });
      const text = (lines, x, y, size, anchor, parent, weight) => {
        const t = make("text", { x, y, "font-size": size, "text-anchor": anchor, fill: "#1b2430" }, parent);
        if (weight) t.setAttribute("font-weight", weight);
        lines.forEach((line, i) => {
          make("tspan", { x, dy: i === 0 ? 0 : size * 1.25 }, t).textContent = line;
        });
        return t;
      };
      // Groups first (outermost first), then arrows, then boxes and notes on top.
      this.groups()
        .sort((a, b) => a.ancestors().length - b.ancestors().length)
        .forEach((g) => {
          const b = g.boundingBox({ includeLabels: false });
          const group = make("g", { class: "group", "data-id": g.id() });
          make("rect", { x: b.x1, y: b.y1, width: b.w, height: b.h, rx: 8, fill: "#eef3ff", "fill-opacity": 0.55, stroke: "#6b7fa8", "stroke-dasharray": "6 4" }, group);
          text([g.data("display")], (b.x1 + b.x2) / 2, b.y1 - 6, 12, "middle", group, 600);
        });
      this.edges().forEach((e) => {
        const s = e.sourceEndpoint();
        const t = e.targetEndpoint();
        const arrow = make("g", { class: "arrow", "data-source": e.data("source"), "data-target": e.data("target") });
        make("line", { x1: s.x, y1: s.y, x2: t.x, y2: t.y, stroke: "#7b8796", "stroke-width": 2, "marker-end": "url(#arrow)" }, arrow);
        const box = this.labelBox(e.id());
        if (box) {
          make("rect", { x: box.x1, y: box.y1, width: box.x2 - box.x1, height: box.y2 - box.y1, fill: "#ffffff", "fill-opacity": 0.95 }, arrow);
          text([e.data("label")], (box.x1 + box.x2) / 2, box.y2 - 4, 11, "middle", arrow);
        }
      });
      this.cy.nodes("[role = 'box'], [role = 'note']").forEach((n) => {
        const b = n.boundingBox({ includeLabels: false, includeOverlays: false });
        const note = n.data("role") === "note";
        const box = make("g", { class: note ? "note" : "box", "data-id": n.id() });
        make("rect", {
          x: b.x1, y: b.y1, width: b.w, height: b.h, rx: note ? 0 : 6,
          fill: note ? "#fff7c2" : "#ffffff", stroke: note ? "#c9a400" : "#5b6778", "stroke-width": 1.5,
        }, box);
        const lines = n.data("display").split("\n");
        const left = note || n.hasClass("sbc-detailed");
        const y = (b.y1 + b.y2) / 2 - ((lines.length - 1) * 15) / 2 + 4;
        text(lines, left ? b.x1 + 8 : (b.x1 + b.x2) / 2, y, 12, left ? "start" : "middle", box);
      });
      return '<?xml version="1.0" encoding="UTF-8"?>\n' + new XMLSerializer().serializeToString(svg);
    }

    ensureVisible(nodes) {
      if (!nodes || nodes.empty()) return;
      const ext = this.cy.extent();
      const box = nodes.boundingBox();
      if (box.x1 < ext.x1 || box.x2 > ext.x2 || box.y1 < ext.y1 || box.y2 > ext.y2) this.fitView();
    }

    showResults() {
      const query = this.search.value;
      const matches = searchPalette(this.palette, query);
      this.results.textContent = "";
      matches.forEach(({ item, via }, i) => {
        const option = el("li", {
          id: this.uid + "-opt-" + i,
          role: "option",
          className: "sbc-option",
          "data-kind": item.kind,
          "aria-selected": "false",
        });
        option.appendChild(el("span", { text: item.name }));
        if (via) option.appendChild(el("span", { className: "sbc-option-via", text: " (" + via + ")" }));
        this.results.appendChild(option);
      });
      const free = query.trim();
      const freeOption = el("li", {
        id: this.uid + "-opt-free",
        role: "option",
        className: "sbc-option sbc-option-free",
        "data-kind": "",
        "data-label": free,
        "aria-selected": "false",
        text: free ? "Free label: “" + free + "”" : "Free label",
      });
      this.results.appendChild(freeOption);
      this.results.hidden = false;
      this.search.setAttribute("aria-expanded", "true");
      this.setActiveOption(query.trim() ? 0 : -1);
    }

    hideResults() {
      if (!this.results) return;
      this.results.hidden = true;
      this.search.setAttribute("aria-expanded", "false");
      this.search.removeAttribute("aria-activedescendant");
    }

    options() {
      return Array.from(this.results.querySelectorAll("[role=option]"));
    }

    setActiveOption(index) {
      const options = this.options();
      this.activeOption = index;
      options.forEach((o, i) => o.setAttribute("aria-selected", i === index ? "true" : "false"));
      if (index >= 0 && options[index]) {
        this.search.setAttribute("aria-activedescendant", options[index].id);
        options[index].scrollIntoView({ block: "nearest" });
      } else {
        this.search.removeAttribute("aria-activedescendant");
      }
    }

    onSearchKey(e) {
      const options = this.options();
      if (e.key === "ArrowDown" || e.key === "ArrowUp") {
        e.preventDefault();
        if (this.results.hidden) this.showResults();
        const count = this.options().length;
        const step = e.key === "ArrowDown" ? 1 : -1;
        const start = this.activeOption === undefined || this.activeOption < 0 ? (step > 0 ? -1 : count) : this.activeOption;
        this.setActiveOption((start + step + count) % count);
      } else if (e.key === "Enter") {
        e.preventDefault();
        const option = options[this.activeOption >= 0 ? this.activeOption : 0];
        if (option && !this.results.hidden) this.pickOption(option);
      } else if (e.key === "Escape") {
        if (!this.results.hidden || this.search.value) {
          e.preventDefault();
          e.stopPropagation();
          this.search.value = "";
          this.hideResults();
        }
      }
    }

    pickOption(option) {
      const kind = option.getAttribute("data-kind");
      const label = kind ? undefined : option.getAttribute("data-label") || "Label";
      this.addNode(kind, label);
      this.search.value = "";
      this.hideResults();
    }

    // ---- marks (design-review rounds) ----

    markTargetOf(item) {
      return item.isNode() ? item.id() : edgeKey(item.data("source"), item.data("target"));
    }

    markTargetName(target) {
      const node = this.cy.getElementById(target);
      if (node.nonempty() && node.isNode()) return this.nodeName(target);
      const arrow = target.split("->");
      return arrow.length === 2 ? this.nodeName(arrow[0]) + " → " + this.nodeName(arrow[1]) : target;
    }

    openMarkForm() {
      const item = this.selected();
      if (!this.markable) return;
      if (!item || (item.isNode() && item.data("role") !== "box")) {
        this.announce("Select a box or an arrow to mark.");
        return;
      }
      this.markTarget = this.markTargetOf(item);
      this.markTargetText.textContent = this.markTargetName(this.markTarget);
      this.markWhat.value = "";
      this.markHow.value = "";
      this.markForm.hidden = false;
      this.markFormOpen = true;
      this.marksSection.hidden = false;
      this.reveal();
      this.markWhat.focus();
    }

    closeMarkForm(returnFocus) {
      if (!this.markFormOpen) return;
      this.markForm.hidden = true;
      this.markFormOpen = false;
      if (returnFocus) this.focusSelectedItem();
    }

    saveMark() {
      if (!this.markable || !this.markTarget) return;
      const what = clip(this.markWhat.value.trim(), TEXT_MAX);
      const how = clip(this.markHow.value.trim(), TEXT_MAX);
      if (!what) {
        this.announce("Say what fails before adding the mark.");
        this.markWhat.focus();
        return;
      }
      this.record();
      this.marks.push({ target: this.markTarget, what, how });
      this.closeMarkForm(true);
      this.changed("Marked " + this.markTargetName(this.markTarget) + ".");
    }

    removeMark(index) {
      if (!this.markable || !this.marks[index]) return;
      this.record();
      this.marks.splice(index, 1);
      this.changed("Mark removed.");
    }

    renderMarks() {
      const targets = new Set(this.marks.map((m) => m.target));
      this.cy.elements().forEach((item) => {
        if (item.hasClass("eh-ghost") || item.hasClass("eh-preview")) return;
        item.toggleClass("sbc-marked", targets.has(this.markTargetOf(item)));
      });
      this.markList.textContent = "";
      this.marks.forEach((mark, i) => {
        const li = el("li", { className: "sbc-mark" }, [
          el("strong", { text: this.markTargetName(mark.target) + ": " }),
          el("span", { text: mark.what }),
          mark.how ? el("span", { className: "sbc-item-sub", text: mark.how }) : null,
        ]);
        if (this.markable) {
          li.appendChild(
            el("button", {
              type: "button",
              className: "sbc-button sbc-small",
              "data-mark-index": i,
              "aria-label": "Remove the mark on " + this.markTargetName(mark.target),
              text: "Remove",
            }),
          );
        }
        this.markList.appendChild(li);
      });
      this.marksSection.hidden = !this.markable && !this.marks.length;
    }

    // ---- keyboard ----

    runAction(action, byKeyboard) {
      switch (action) {
        case "connect":
          return this.startConnect(byKeyboard);
        case "rename":
          return this.rename();
        case "delete":
          return this.deleteSelected();
        case "undo":
          return this.undo();
        case "redo":
          return this.redo();
        case "fit":
          return this.fitView();
        case "mark":
          return this.openMarkForm();
        case "note":
          return this.addNote("");
        case "group": {
          const item = this.selected();
          return item && item.isNode() && item.data("role") === "group" ? this.ungroupSelection() : this.groupSelection();
        }
        case "ungroup":
          return this.ungroupSelection();
        case "duplicate":
          return this.duplicate();
        case "layout":
          return this.layout();
        case "zoom-in":
          return this.zoomBy(1.25);
        case "zoom-out":
          return this.zoomBy(0.8);
        case "compact":
          return this.toggleCompact();
        case "snap":
          return this.toggleSnap();
        case "export":
          return this.toggleExportMenu(undefined, byKeyboard);
        case "export-png":
          this.toggleExportMenu(false);
          return this.exportPng();
        case "export-svg":
          this.toggleExportMenu(false);
          return this.exportSvg();
        default:
          return undefined;
      }
    }

    onKeyDown(e) {
      const key = e.key;
      const mod = e.ctrlKey || e.metaKey;
      const typing = isTextField(e.target);
      if (typing) {
        // No shortcut applies in a text field: the keys type. Only Escape leaves it.
        if (key !== "Escape" || mod || e.altKey) return;
        // (The search box handles Escape itself while it has a query or matches open; an empty one lands here.)
        e.preventDefault();
        if (e.target === this.markWhat || e.target === this.markHow) this.closeMarkForm(true);
        else this.focusSelectedItem();
        return;
      }
      if (mod && !e.altKey) {
        const lower = key.toLowerCase();
        const run = (fn) => {
          e.preventDefault();
          fn();
        };
        if (lower === "z" && !e.shiftKey) run(() => this.undo());
        else if ((lower === "z" && e.shiftKey) || lower === "y") run(() => this.redo());
        else if (this.readOnly) return;
        else if (lower === "a") run(() => this.selectAll());
        else if (lower === "c") run(() => this.copySelection());
        else if (lower === "v") run(() => this.paste());
        else if (lower === "d") run(() => this.duplicate());
        return;
      }
      if (e.altKey) return;
      const onItem = Boolean(e.target.closest && e.target.closest(".sbc-list"));
      if (key === "Escape") {
        if (this.connectFrom !== null) {
          e.preventDefault();
          this.cancelConnect("Connecting cancelled.");
          this.focusSelectedItem();
        } else if (this.markFormOpen) {
          e.preventDefault();
          this.closeMarkForm(true);
        } else if (this.selection().length > 1) {
          e.preventDefault();
          const keep = onItem ? e.target.getAttribute("data-id") : this.selection()[0].id();
          this.select(keep);
        }
        return;
      }
      if (key === " " && e.shiftKey && onItem) {
        e.preventDefault();
        const id = e.target.getAttribute("data-id");
        // The first Shift+Space keeps the focused item (focus selected it) and starts a multiple selection:
        // from then on Tab leaves the selection alone, and Shift+Space adds or takes out the focused item.
        if (!this.multiMode && this.cy.getElementById(id).selected()) {
          this.multiMode = true;
          this.renderSelection();
          this.announce("Selecting several: Tab to another item and press Shift+Space.");
        } else {
          this.multiMode = true;
          this.toggleSelected(id);
        }
        return;
      }
      if (this.markable && (key === "m" || key === "M")) {
        e.preventDefault();
        this.openMarkForm();
        return;
      }
      const view = { "+": () => this.zoomBy(1.25), "=": () => this.zoomBy(1.25), "-": () => this.zoomBy(0.8), 0: () => this.fitView() };
      if (view[key]) {
        e.preventDefault();
        view[key]();
        return;
      }
      if (key === "t" || key === "T") {
        e.preventDefault();
        this.toggleCompact();
        return;
      }
      if (this.readOnly) return;
      const lower = key.length === 1 ? key.toLowerCase() : key;
      const act = (fn) => {
        e.preventDefault();
        fn();
      };
      if (lower === "a" && this.search) act(() => this.search.focus());
      else if (lower === "n") act(() => this.addNote(""));
      else if (lower === "c") act(() => this.startConnect(e.target !== this.stageWrap));
      else if (lower === "r" || key === "F2") act(() => this.rename());
      else if (lower === "g") act(() => (e.shiftKey ? this.ungroupSelection() : this.groupSelection()));
      else if (lower === "l") act(() => this.layout());
      else if (lower === "j" || lower === "f") {
        const item = this.selected();
        if (!item || item.data("role") !== "box") return;
        act(() => {
          this.reveal();
          this.fields[lower === "j" ? "job" : "failure"].input.focus();
        });
      } else if (key === "Delete" || key === "Backspace") {
        act(() => {
          const focusedId = onItem && e.target.getAttribute("data-id");
          if (focusedId && this.selection().length <= 1) this.deleteElement(focusedId);
          else this.deleteSelected();
        });
      } else if (key.startsWith("Arrow")) {
        if (this.movable(this.selection()).empty()) return;
        e.preventDefault();
        const step = e.shiftKey ? MOVE_STEP_BIG : MOVE_STEP;
        const dx = key === "ArrowLeft" ? -step : key === "ArrowRight" ? step : 0;
        const dy = key === "ArrowUp" ? -step : key === "ArrowDown" ? step : 0;
        this.moveSelected(dx, dy);
      }
    }

    destroy() {
      clearTimeout(this.changeTimer);
      for (const [target, type, handler, options] of this.listeners) target.removeEventListener(type, handler, options);
      this.listeners = [];
      if (this.resizeObserver) this.resizeObserver.disconnect();
      if (this.toolbarObserver) this.toolbarObserver.disconnect();
      if (this.eh) this.eh.destroy();
      if (this.cy) this.cy.destroy();
      this.cy = null;
      this.root.remove();
      if (this.panelHost) this.panel.remove();
      controllers.delete(this.container);
      this.container.removeAttribute("data-sevenbox-mounted");
    }
  }

  // ---- autoMount: pages pass data with json_script ----

  function readJson(id) {
    if (!id) return null;
    const node = document.getElementById(id);
    if (!node) return null;
    try {
      return JSON.parse(node.textContent || node.value || "null");
    } catch (err) {
      console.error("SevenboxCanvas: element #" + id + " does not hold JSON", err);
      return null;
    }
  }

  function flag(value) {
    return value !== undefined && value !== null && value !== "false" && value !== "0";
  }

  /*
   * Mounts every unmounted [data-sevenbox-canvas] element in root (default: document). Attributes:
   *   data-palette-id     id of a <script type="application/json"> holding the palette (a list, or {components})
   *   data-design-id      id of a json_script element holding the design (else the target input's value is used)
   *   data-readonly       present (and not "false") for a read-only view
   *   data-markable       present (and not "false") to allow failure marks
   *   data-target-input   id of an <input>/<textarea> kept equal to the design JSON; an `input` event
   *                       (bubbling) is dispatched on it after each change
   * Every change also dispatches `sevenbox:change` (detail: {design}) on the element.
   */
  function autoMount(root) {
    const scope = root && root.querySelectorAll ? root : document;
    const found = Array.from(scope.querySelectorAll("[data-sevenbox-canvas]"));
    if (scope.matches && scope.matches("[data-sevenbox-canvas]")) found.unshift(scope);
    const mounted = [];
    for (const element of found) {
      if (controllers.has(element)) continue;
      const target = element.dataset.targetInput ? document.getElementById(element.dataset.targetInput) : null;
      let design = readJson(element.dataset.designId);
      if (!design && target && target.value) {
        try {
          design = JSON.parse(target.value);
        } catch (err) {
          design = null;
        }
      }
      const controller = mount(element, {
        palette: readJson(element.dataset.paletteId) || [],
        design: design || { nodes: [], edges: [] },
        readOnly: flag(element.dataset.readonly),
        panelHost: element.dataset.panelHost ? document.getElementById(element.dataset.panelHost) : null,
        markable: flag(element.dataset.markable),
        onChange: (next) => {
          if (target) {
            target.value = JSON.stringify(next);
            target.dispatchEvent(new Event("input", { bubbles: true }));
          }
          element.dispatchEvent(new CustomEvent("sevenbox:change", { bubbles: true, detail: { design: next } }));
        },
      });
      mounted.push(controller);
    }
    return mounted;
  }

  function get(element) {
    return controllers.get(element) || null;
  }

  window.SevenboxCanvas = { mount, autoMount, get };

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", () => autoMount(document));
  } else {
    autoMount(document);
  }
  document.addEventListener("htmx:afterSettle", () => autoMount(document));
  // htmx removes swapped-out content: free its cytoscape instance.
  document.addEventListener("htmx:beforeCleanupElement", (e) => {
    const element = e.target;
    if (element && controllers.has(element)) controllers.get(element).destroy();
  });
})();
