/*
 * Sevenbox design canvas: boxes from the component palette, arrows between them, a job and a way to
 * fail for each box. Plain ES2020, no build step, safe under CSP `script-src 'self'`.
 *
 * Load order on a page:
 *   static/vendor/cytoscape/cytoscape.min.js
 *   static/vendor/lodash/lodash.min.js                          (edgehandles takes window._)
 *   static/vendor/cytoscape-edgehandles/cytoscape-edgehandles.js
 *   static/js/design-canvas.js
 *
 * API:
 *   const canvas = SevenboxCanvas.mount(containerEl, {palette, design, readOnly, markable, onChange});
 *   canvas.getDesign() / setDesign(design) / undo() / redo() / destroy()
 *   canvas.boxRect(id)               where box `id` is drawn, in client pixels (tests, popovers)
 *   SevenboxCanvas.autoMount(root?)  mounts every [data-sevenbox-canvas] inside root (see autoMount below)
 *   SevenboxCanvas.get(containerEl)  the controller mounted on that element, or null
 *
 * Design JSON: {nodes: [{id, kind, label, job, failure, x, y}], edges: [{source, target, label}],
 *               marks: [{target: id | "a->b", what, how}]}   (marks only when markable or present)
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
  const GRID_DX = 210;
  const GRID_DY = 110;

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

  function normaliseDesign(design) {
    const source = design && typeof design === "object" ? design : {};
    const extra = {};
    for (const [key, value] of Object.entries(source)) {
      if (!["nodes", "edges", "marks"].includes(key)) extra[key] = value;
    }
    const nodes = [];
    const seen = new Set();
    for (const raw of Array.isArray(source.nodes) ? source.nodes : []) {
      if (!raw || raw.id === undefined || raw.id === null || raw.id === "") continue;
      const id = String(raw.id);
      if (seen.has(id)) continue;
      seen.add(id);
      const node = {
        id,
        kind: raw.kind ? String(raw.kind) : "",
        label: raw.label === undefined || raw.label === null ? "" : String(raw.label),
        job: raw.job ? String(raw.job) : "",
        failure: raw.failure ? String(raw.failure) : "",
      };
      if (Number.isFinite(Number(raw.x)) && Number.isFinite(Number(raw.y)) && raw.x !== null && raw.y !== null) {
        node.x = Number(raw.x);
        node.y = Number(raw.y);
      }
      nodes.push(node);
    }
    const edges = [];
    const seenEdges = new Set();
    for (const raw of Array.isArray(source.edges) ? source.edges : []) {
      if (!raw) continue;
      const s = String(raw.source);
      const t = String(raw.target);
      if (!seen.has(s) || !seen.has(t) || s === t || seenEdges.has(edgeKey(s, t))) continue;
      seenEdges.add(edgeKey(s, t));
      edges.push({ source: s, target: t, label: raw.label ? String(raw.label) : "" });
    }
    const marks = (Array.isArray(source.marks) ? source.marks : [])
      .filter((m) => m && m.target !== undefined)
      .map((m) => ({ target: String(m.target), what: m.what ? String(m.what) : "", how: m.how ? String(m.how) : "" }));
    return { nodes, edges, marks, extra, hadMarks: Array.isArray(source.marks) };
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
    return Math.abs(a.x - b.x) < 150 && Math.abs(a.y - b.y) < 70;
  }

  // ---- cytoscape style ----

  const GRAPH_STYLE = [
    {
      selector: "node",
      style: {
        shape: "round-rectangle",
        width: 150,
        height: 52,
        "background-color": "#ffffff",
        "border-width": 1.5,
        "border-color": "#5b6778",
        "text-wrap": "wrap",
        "text-max-width": 138,
        "text-valign": "center",
        "text-halign": "center",
        "font-family": 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
        "font-size": 12,
        color: "#1b2430",
      },
    },
    // [display]: edgehandles' ghost node has none.
    { selector: "node[display]", style: { label: "data(display)" } },
    { selector: "node[kind = 'client']", style: { shape: "ellipse", "background-color": "#eef2f7" } },
    {
      selector: "node[kind = '']",
      style: { "border-style": "dashed", "background-color": "#fbfaf4", "font-style": "italic" },
    },
    { selector: "node.sbc-complete", style: { "border-color": "#2f7d4f" } },
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
      // [label]: edgehandles' ghost edges have no label data.
      selector: "edge[label]",
      style: {
        label: "data(label)",
        "font-size": 11,
        "font-family": 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
        color: "#334155",
        "text-background-color": "#ffffff",
        "text-background-opacity": 0.9,
        "text-background-padding": 2,
        "text-rotation": "autorotate",
        "text-margin-y": -9,
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

      this.buildDom();
      this.cy = window.cytoscape({
        container: this.stage,
        elements: [],
        style: GRAPH_STYLE,
        layout: { name: "preset" },
        minZoom: 0.25,
        maxZoom: 2.5,
        boxSelectionEnabled: false,
        selectionType: "single",
        autoungrabify: this.readOnly,
      });
      this.bindGraph();
      this.bindDom();
      this.loadDesign(opts.design, true);
      this.renderAll();
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
          el("label", { for: id("search"), className: "sbc-add-label", text: "Add a box" }),
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
          text,
        });
        this.buttons[action] = b;
        return b;
      };
      const actions = el("div", { className: "sbc-actions" });
      if (!this.readOnly) {
        actions.appendChild(button("connect", "Connect", "Connect the selected box to another box", "C"));
        actions.appendChild(button("rename", "Rename", "Rename the selected box or arrow", "R"));
        actions.appendChild(button("delete", "Delete", "Delete the selected box or arrow", "Delete"));
      }
      if (this.undoable) {
        actions.appendChild(button("undo", "Undo", "Undo", "Control+Z"));
        actions.appendChild(button("redo", "Redo", "Redo", "Control+Shift+Z"));
      }
      if (this.markable) {
        actions.appendChild(button("mark", "Mark failure path", "Mark the selected box or arrow as a failure path", "M"));
      }
      actions.appendChild(button("fit", "Fit", "Fit the whole design in view"));
      this.toolbar.appendChild(actions);

      // Stage: the cytoscape canvas and the drag handle for drawing arrows.
      this.stage = el("div", { className: "sbc-cy" });
      this.stageWrap = el("div", {
        className: "sbc-stage",
        tabindex: "0",
        "data-sbc": "stage",
        "aria-label": this.readOnly
          ? "Canvas (read only). The box and arrow lists describe the same design."
          : "Canvas. Select boxes with the box list; arrow keys move the selected box.",
      });
      this.stageWrap.appendChild(this.stage);
      this.handle = el("div", { className: "sbc-handle", "aria-hidden": "true", title: "Drag to another box to connect", hidden: true });
      this.stageWrap.appendChild(this.handle);

      // Side panel: status, box list, arrow list, details of the selection, marks.
      this.status = el("p", { className: "sbc-status", role: "status", "aria-live": "polite", "data-sbc": "status" });
      this.boxList = el("ul", { className: "sbc-list", "aria-label": "Boxes", "data-sbc": "boxes" });
      this.arrowList = el("ul", { className: "sbc-list", "aria-label": "Arrows", "data-sbc": "arrows" });
      this.boxesEmpty = el("p", { className: "sbc-empty", text: "No boxes yet." });
      this.arrowsEmpty = el("p", { className: "sbc-empty", text: "No arrows yet." });
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
      const form = el("form", { className: "sbc-details", "data-sbc": "details", hidden: true, "aria-label": "Selected item" }, [
        this.detailsTitle,
        this.nodeDetails,
        this.edgeDetails,
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

    buildHelp() {
      const keys = [
        ["A or /", "search the palette and add a box"],
        ["Tab", "move between boxes in the list"],
        ["Arrow keys", "move the focused box (Shift: further)"],
        ["C", "connect the selected box, then pick the target and press Enter"],
        ["R or F2", "rename"],
        ["J / F", "edit the job / the way to fail"],
        ["Delete", "delete the selected box or arrow"],
        ["Ctrl+Z / Ctrl+Shift+Z", "undo / redo"],
        ["Escape", "cancel"],
      ];
      const list = el("dl", { className: "sbc-keys" });
      for (const [key, what] of keys) {
        list.appendChild(el("dt", { text: key }));
        list.appendChild(el("dd", { text: what }));
      }
      return el("details", { className: "sbc-help" }, [el("summary", { text: "Keyboard" }), list]);
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
      this.listen(this.toolbar, "click", (e) => {
        const b = e.target.closest("button[data-action]");
        // detail 0: activated by keyboard, so focus may move to where the action continues.
        if (b) this.runAction(b.getAttribute("data-action"), e.detail === 0);
      });
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
      for (const list of [this.boxList, this.arrowList]) {
        this.listen(list, "click", (e) => {
          const item = e.target.closest("button[data-id]");
          if (item) this.onItemActivate(item);
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
      cy.on("tap", (e) => {
        this.stageWrap.focus({ preventScroll: true });
        if (this.connectFrom !== null) {
          if (e.target !== cy && e.target.isNode && e.target.isNode() && !e.target.hasClass("eh-ghost")) {
            this.connectTo(e.target.id());
          } else if (e.target === cy) {
            this.cancelConnect("Connecting cancelled.");
          }
          return;
        }
        if (e.target === cy) this.hideHandle();
        else this.reveal();
      });
      cy.on("dbltap", "node", (e) => {
        if (this.readOnly) return;
        this.select(e.target.id());
        this.rename();
      });
      // mousemove too: after an arrow is dropped on a box the pointer is already over it, so no mouseover
      // follows, and the handle must still move to that box rather than stay on the arrow's source.
      cy.on("mouseover mousemove", "node", (e) => {
        if (this.edgeDrawing || e.target.hasClass("eh-ghost")) return;
        if (!this.handleNode || !this.handleNode.same(e.target)) this.showHandle(e.target);
      });
      cy.on("select", "node", (e) => {
        if (!this.edgeDrawing) this.showHandle(e.target);
      });
      cy.on("pan zoom", () => this.placeHandle());
      cy.on("position", "node", (e) => {
        if (this.handleNode && e.target.same(this.handleNode)) this.placeHandle();
      });
      cy.on("grab", "node", () => {
        this.dragBefore = this.snapshot();
      });
      cy.on("dragfree", "node", () => {
        if (!this.dragBefore) return;
        this.pushHistory(this.dragBefore);
        this.dragBefore = null;
        this.changed();
      });
      if (!this.readOnly && typeof cy.edgehandles === "function") {
        this.eh = cy.edgehandles({
          canConnect: (source, target) => this.canConnect(source.id(), target.id()),
          edgeParams: () => ({ data: { label: "" } }),
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

    nodes() {
      return this.cy.nodes().not(".eh-ghost");
    }

    edges() {
      return this.cy.edges().not(".eh-ghost, .eh-preview");
    }

    getDesign() {
      const design = Object.assign({}, this.extra);
      design.nodes = this.nodes().map((n) => {
        const p = n.position();
        return {
          id: n.id(),
          kind: n.data("kind"),
          label: n.data("label"),
          job: n.data("job"),
          failure: n.data("failure"),
          x: Math.round(p.x),
          y: Math.round(p.y),
        };
      });
      design.edges = this.edges().map((e) => ({ source: e.data("source"), target: e.data("target"), label: e.data("label") }));
      if (this.markable || this.keepMarks || this.marks.length) design.marks = this.marks.map((m) => Object.assign({}, m));
      return design;
    }

    snapshot() {
      const selected = this.selected();
      return { design: this.getDesign(), selected: selected ? selected.id() : null };
    }

    loadDesign(design, fit) {
      const d = normaliseDesign(design);
      placeMissing(d);
      this.extra = d.extra;
      this.keepMarks = d.hadMarks;
      this.marks = d.marks;
      const before = new Set(this.nodes().map((n) => n.id()));
      this.syncing = true;
      this.cy.batch(() => {
        this.cy.elements().remove();
        this.cy.add(d.nodes.map((n) => ({ group: "nodes", data: this.nodeData(n), position: { x: n.x, y: n.y } })));
        this.cy.add(
          d.edges.map((e) => ({
            group: "edges",
            data: { id: edgeKey(e.source, e.target), source: e.source, target: e.target, label: e.label },
          })),
        );
      });
      this.syncing = false;
      this.nodes().forEach((n) => this.refreshNode(n));
      const after = this.nodes().map((n) => n.id());
      if (fit || after.length !== before.size || after.some((id) => !before.has(id))) this.fitView();
    }

    nodeData(n) {
      return { id: n.id, kind: n.kind, label: n.label, job: n.job, failure: n.failure, display: "" };
    }

    refreshNode(node) {
      const label = node.data("label");
      node.data("display", label.trim() ? label : "(no label)");
      node.toggleClass("sbc-complete", Boolean(node.data("job").trim() && node.data("failure").trim()));
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

    nextPosition() {
      const taken = this.nodes().map((n) => n.position());
      for (let i = 0; ; i++) {
        const pos = gridSlot(i);
        if (!taken.some((p) => overlaps(p, pos))) return pos;
      }
    }

    canConnect(source, target) {
      if (this.readOnly || source === target) return false;
      const s = this.cy.getElementById(source);
      const t = this.cy.getElementById(target);
      if (s.empty() || t.empty() || s.hasClass("eh-ghost") || t.hasClass("eh-ghost")) return false;
      return this.cy.getElementById(edgeKey(source, target)).empty();
    }

    selected() {
      const sel = this.cy.$(":selected").not(".eh-ghost, .eh-preview");
      return sel.nonempty() ? sel[0] : null;
    }

    // ---- history ----

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
      if (state.selected) this.cy.getElementById(state.selected).select();
      this.syncing = false;
    }

    undo() {
      if (!this.undoable || !this.past.length) return false;
      this.cancelConnect();
      this.future.push(JSON.stringify(this.snapshot()));
      this.restore(this.past.pop());
      this.editKey = null;
      this.changed("Undone.");
      return true;
    }

    redo() {
      if (!this.undoable || !this.future.length) return false;
      this.cancelConnect();
      this.past.push(JSON.stringify(this.snapshot()));
      this.restore(this.future.pop());
      this.editKey = null;
      this.changed("Redone.");
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
      const selected = this.selected();
      const selectedId = selected ? selected.id() : null;
      this.cancelConnect();
      this.closeMarkForm(false);
      this.loadDesign(design, false);
      this.announce("");
      this.past = [];
      this.future = [];
      this.editKey = null;
      if (selectedId) {
        this.syncing = true;
        this.cy.getElementById(selectedId).select();
        this.syncing = false;
      }
      this.renderAll();
    }

    // ---- edits ----

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

    connect(source, target) {
      if (!this.canConnect(source, target)) {
        this.announce("Those boxes are already connected.");
        return false;
      }
      this.record();
      const label = "";
      this.cy.add({ group: "edges", data: { id: edgeKey(source, target), source, target, label } });
      this.changed("Connected " + this.nodeName(source) + " to " + this.nodeName(target) + ".");
      return true;
    }

    nodeName(id) {
      const n = this.cy.getElementById(id);
      return n.nonempty() ? n.data("label") || this.kindName(n.data("kind")) : id;
    }

    deleteSelected() {
      const item = this.selected();
      if (this.readOnly || !item) return;
      this.deleteElement(item.id());
    }

    deleteElement(id) {
      const item = this.cy.getElementById(id);
      if (this.readOnly || item.empty()) return;
      this.cancelConnect();
      const isNode = item.isNode();
      const name = isNode ? this.nodeName(id) : this.edgeName(item);
      // Focus moves to the neighbour in the list, so keyboard users stay in place.
      const list = isNode ? this.boxList : this.arrowList;
      const buttons = Array.from(list.querySelectorAll("button[data-id]"));
      const index = buttons.findIndex((b) => b.getAttribute("data-id") === id);
      const hadFocus = this.owns(document.activeElement);
      this.record();
      const gone = new Set([isNode ? id : edgeKey(item.data("source"), item.data("target"))]);
      if (isNode) item.connectedEdges().forEach((e) => gone.add(edgeKey(e.data("source"), e.data("target"))));
      this.marks = this.marks.filter((m) => !gone.has(m.target));
      if (this.handleNode && isNode && this.handleNode.same(item)) this.hideHandle();
      item.remove();
      const next = buttons[index + 1] || buttons[index - 1];
      const nextId = next ? next.getAttribute("data-id") : null;
      if (nextId) this.select(nextId);
      this.changed((isNode ? "Deleted box " : "Deleted arrow ") + name + ".");
      if (hadFocus) {
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
      } else {
        item.data(name, clip(value, name === "label" ? LABEL_MAX : TEXT_MAX));
        this.refreshNode(item);
      }
      this.changed();
    }

    moveSelected(dx, dy) {
      const item = this.selected();
      if (this.readOnly || !item || !item.isNode()) return;
      this.record("move:" + item.id());
      const p = item.position();
      item.position({ x: p.x + dx, y: p.y + dy });
      this.ensureVisible(item);
      this.changed();
    }

    // ---- connecting by keyboard, button or tap ----

    startConnect(moveFocus) {
      if (this.readOnly) return;
      if (this.connectFrom !== null) {
        this.cancelConnect("Connecting cancelled.");
        return;
      }
      const item = this.selected();
      if (!item || !item.isNode()) {
        this.announce("Select a box first, then press Connect.");
        return;
      }
      this.connectFrom = item.id();
      item.addClass("sbc-connect-source");
      this.root.classList.add("sbc-connecting");
      this.renderButtons();
      this.announce(
        "Connecting from " + this.nodeName(item.id()) + ": tap or click the target box, or Tab to it in the list and press Enter. Escape cancels.",
      );
      // Put the keyboard user on the first other box, ready to Tab on and press Enter.
      if (moveFocus) {
        const first = Array.from(this.boxList.querySelectorAll("button[data-id]")).find(
          (b) => b.getAttribute("data-id") !== this.connectFrom,
        );
        if (first) first.focus();
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
      this.renderButtons();
      if (message) this.announce(message);
    }

    // ---- selection and panel ----

    select(id) {
      const item = this.cy.getElementById(id);
      if (item.empty()) return;
      this.cy.elements().not(item).unselect();
      item.select();
      this.renderSelection();
    }

    itemFor(id) {
      for (const list of [this.boxList, this.arrowList]) {
        for (const b of list.querySelectorAll("button[data-id]")) if (b.getAttribute("data-id") === id) return b;
      }
      return null;
    }

    focusSelectedItem() {
      const item = this.selected();
      const button = item ? this.itemFor(item.id()) : null;
      if (button) button.focus();
    }

    rename() {
      const item = this.selected();
      if (!item) {
        this.announce("Select a box or an arrow to rename.");
        return;
      }
      const input = item.isNode() ? this.fields.label.input : this.fields.edgeLabel.input;
      this.reveal();
      input.focus();
      input.select();
    }

    onItemFocus(button) {
      const id = button.getAttribute("data-id");
      if (this.connectFrom !== null) {
        this.cy.nodes().removeClass("sbc-candidate");
        if (id !== this.connectFrom) this.cy.getElementById(id).addClass("sbc-candidate");
        return;
      }
      const current = this.selected();
      if (!current || current.id() !== id) this.select(id);
    }

    onItemActivate(button) {
      const id = button.getAttribute("data-id");
      if (this.connectFrom !== null && button.closest("ul") === this.boxList) {
        this.connectTo(id);
        return;
      }
      this.cancelConnect();
      this.select(id);
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
      const selected = this.selected();
      const selId = selected ? selected.id() : null;
      const marked = new Set(this.marks.map((m) => m.target));
      this.renderList(
        this.boxList,
        this.nodes().map((n) => {
          const missing = [];
          if (!n.data("job").trim()) missing.push("no job");
          if (!n.data("failure").trim()) missing.push("no way to fail");
          const main = n.data("label") || "(no label)";
          const kind = this.kindName(n.data("kind"));
          const sub = (kind !== main ? [kind] : []).concat(missing).join(" · ");
          return { id: n.id(), main, sub, aria: "Box " + main + ", " + sub, current: n.id() === selId, marked: marked.has(n.id()) };
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
            current: e.id() === selId,
            marked: marked.has(edgeKey(e.data("source"), e.data("target"))),
          };
        }),
      );
      this.boxesEmpty.hidden = this.nodes().nonempty();
      this.arrowsEmpty.hidden = this.edges().nonempty();
    }

    renderSelection() {
      const item = this.selected();
      for (const b of this.panel.querySelectorAll(".sbc-list button[data-id]")) {
        b.setAttribute("aria-current", item && b.getAttribute("data-id") === item.id() ? "true" : "false");
      }
      this.details.hidden = !item;
      if (item) {
        const isNode = item.isNode();
        this.nodeDetails.hidden = !isNode;
        this.edgeDetails.hidden = isNode;
        if (isNode) {
          this.detailsTitle.textContent = "Selected box";
          this.kindText.textContent = this.kindName(item.data("kind"));
          this.fillField(this.fields.label, item.data("label"));
          this.fillField(this.fields.job, item.data("job"));
          this.fillField(this.fields.failure, item.data("failure"));
        } else {
          this.detailsTitle.textContent = "Selected arrow";
          this.edgeText.textContent = this.edgeName(item);
          this.fillField(this.fields.edgeLabel, item.data("label"));
        }
      } else {
        this.hideHandle();
      }
      if (this.markFormOpen && (!item || this.markTarget !== this.markTargetOf(item))) this.closeMarkForm(false);
      this.renderButtons();
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

    renderButtons() {
      const item = this.selected();
      const b = this.buttons;
      if (b.connect) {
        b.connect.disabled = !(item && item.isNode()) && this.connectFrom === null;
        b.connect.setAttribute("aria-pressed", this.connectFrom !== null ? "true" : "false");
        b.connect.textContent = this.connectFrom !== null ? "Cancel connect" : "Connect";
      }
      if (b.rename) b.rename.disabled = !item;
      if (b.delete) b.delete.disabled = !item;
      if (b.undo) b.undo.disabled = !this.past.length;
      if (b.redo) b.redo.disabled = !this.future.length;
      if (b.mark) b.mark.disabled = !item;
      if (this.readOnly && !this.markable) {
        for (const name of ["connect", "rename", "delete", "mark"]) if (b[name]) b[name].disabled = true;
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
      const nodes = this.nodes();
      if (nodes.empty()) {
        cy.zoom(1);
        cy.pan({ x: 0, y: 0 });
        return;
      }
      cy.fit(nodes, 30);
      if (cy.zoom() > 1.1) {
        cy.zoom(1.1);
        cy.center(nodes);
      }
    }

    ensureVisible(node) {
      const ext = this.cy.extent();
      const box = node.boundingBox();
      if (box.x1 < ext.x1 || box.x2 > ext.x2 || box.y1 < ext.y1 || box.y2 > ext.y2) this.fitView();
    }

    // ---- palette search ----

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
      if (!item) {
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
        default:
          return undefined;
      }
    }

    onKeyDown(e) {
      const key = e.key;
      const mod = e.ctrlKey || e.metaKey;
      const typing = isTextField(e.target);
      if (mod && !e.altKey && !typing) {
        const lower = key.toLowerCase();
        if (lower === "z" && !e.shiftKey) {
          e.preventDefault();
          this.undo();
        } else if ((lower === "z" && e.shiftKey) || lower === "y") {
          e.preventDefault();
          this.redo();
        }
        return;
      }
      if (mod || e.altKey) return;
      if (typing) {
        if (e.target === this.fields.label.input || e.target === this.fields.edgeLabel.input) {
          if (key === "Escape") {
            e.preventDefault();
            this.focusSelectedItem();
          }
        } else if ((e.target === this.markWhat || e.target === this.markHow) && key === "Escape") {
          e.preventDefault();
          this.closeMarkForm(true);
        } else if (key === "Escape" && e.target.closest(".sbc-details")) {
          e.preventDefault();
          this.focusSelectedItem();
        }
        return;
      }
      if (key === "Escape") {
        if (this.connectFrom !== null) {
          e.preventDefault();
          this.cancelConnect("Connecting cancelled.");
          this.focusSelectedItem();
        } else if (this.markFormOpen) {
          e.preventDefault();
          this.closeMarkForm(true);
        }
        return;
      }
      const onItemOrStage = e.target === this.stageWrap || Boolean(e.target.closest && e.target.closest(".sbc-list"));
      if (this.markable && (key === "m" || key === "M") && onItemOrStage) {
        e.preventDefault();
        this.openMarkForm();
        return;
      }
      if (this.readOnly) return;
      if ((key === "a" || key === "A" || key === "/") && this.search) {
        e.preventDefault();
        this.search.focus();
        return;
      }
      if (!onItemOrStage) return;
      if (key === "c" || key === "C") {
        e.preventDefault();
        this.startConnect(e.target !== this.stageWrap);
      } else if (key === "r" || key === "R" || key === "F2") {
        e.preventDefault();
        this.rename();
      } else if (key === "j" || key === "J" || key === "f" || key === "F") {
        const item = this.selected();
        if (!item || !item.isNode()) return;
        e.preventDefault();
        this.reveal();
        this.fields[key.toLowerCase() === "j" ? "job" : "failure"].input.focus();
      } else if (key === "Delete" || key === "Backspace") {
        e.preventDefault();
        const focusedId = e.target.getAttribute && e.target.getAttribute("data-id");
        if (focusedId) this.deleteElement(focusedId);
        else this.deleteSelected();
      } else if (key.startsWith("Arrow")) {
        const item = this.selected();
        if (!item || !item.isNode()) return;
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
