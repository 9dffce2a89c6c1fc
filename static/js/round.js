// The timed round page (templates/rounds/_workspace.html): the side panel's tabs, the server's clock on the phase
// timeline, autosave with revisions, and the lock at the deadline.
//
// Saving. Every save says which revision it was based on; the server refuses a stale one (409). Nothing typed is
// lost without the candidate being told:
//  - every unsaved edit is also kept in sessionStorage (this tab's), so a reload shows it and saves it again;
//  - on pagehide / visibilitychange the pending edits go out at once in a keepalive request;
//  - a refused save whose values the server already holds (the keepalive of the page before a reload landed
//    after this page was rendered) is not a conflict: the tab takes the newest revision and goes on;
//  - a tab with nothing unsaved takes newer revisions from the server as they come (another device);
//  - a real conflict turns the tab read-only at once and shows the unsaved edits, with copy, apply onto the
//    latest, and a reload that first says what it would drop.
(function () {
  "use strict";

  const AUTOSAVE_EVERY_MS = 5000;
  const LATEST_EVERY_MS = 30000;
  const KEEPALIVE_MAX_BYTES = 60000; // browsers cap keepalive bodies at 64 KiB

  // ---- the side panel's tabs (arrow keys move between tabs, as the ARIA tabs pattern has it) ----
  const tabs = Array.from(document.querySelectorAll(".ws-tabs [role=tab]"));

  function showTab(tab, focus) {
    for (const other of tabs) {
      const selected = other === tab;
      other.setAttribute("aria-selected", selected ? "true" : "false");
      other.tabIndex = selected ? 0 : -1;
      document.getElementById(other.getAttribute("aria-controls")).hidden = !selected;
    }
    if (focus) tab.focus();
  }

  // Where the panel sits below the canvas (a phone), a tapped tab brings the panel up under the sticky header.
  const stacked = window.matchMedia("(max-width: 899px), (max-height: 559px)");
  function bringPanelIntoView() {
    const side = document.querySelector(".ws-side");
    const header = document.querySelector(".ws-header");
    if (!stacked.matches || !side) return;
    const top = side.getBoundingClientRect().top + window.scrollY - (header ? header.offsetHeight : 0);
    window.scrollTo({ top: Math.max(0, top), behavior: "instant" });
  }

  for (const tab of tabs) {
    tab.addEventListener("click", () => {
      showTab(tab, false);
      bringPanelIntoView();
    });
    tab.addEventListener("keydown", (event) => {
      const index = tabs.indexOf(tab);
      let next = null;
      if (event.key === "ArrowRight") next = tabs[(index + 1) % tabs.length];
      else if (event.key === "ArrowLeft") next = tabs[(index - 1 + tabs.length) % tabs.length];
      else if (event.key === "Home") next = tabs[0];
      else if (event.key === "End") next = tabs[tabs.length - 1];
      if (next) {
        event.preventDefault();
        showTab(next, true);
      }
    });
  }
  // The canvas asks for its panel to be shown before it moves focus into it (rename, job, way to fail, mark).
  document.addEventListener("sevenbox:reveal", (event) => {
    const panel = event.target.closest && event.target.closest("[role=tabpanel]");
    const tab = panel && tabs.find((t) => t.getAttribute("aria-controls") === panel.id);
    if (tab) showTab(tab, false);
  });

  const root = document.getElementById("round");
  if (!root || !root.dataset.saveUrl) return; // a preview of the page: nothing to save

  const clock = JSON.parse(document.getElementById("round-clock").textContent);
  const saveUrl = root.dataset.saveUrl;
  const latestUrl = root.dataset.latestUrl;
  const reportUrl = root.dataset.reportUrl;
  const stashKey = "sevenbox:unsaved:" + root.dataset.roundId;
  const statusEl = document.getElementById("save-status");
  const sheet = document.getElementById("sheet");
  const designInput = document.getElementById("design-input");
  const scratch = document.getElementById("scratch");
  const fixesInput = document.getElementById("fixes-input"); // review rounds only
  const canvasEl = document.getElementById("canvas");

  let revision = Number(root.dataset.revision);
  let pending = emptyEdits();
  let inflight = null; // the edits of the save under way
  let saving = false;
  let stopped = false; // stale or locked: no more saves from this tab
  const serverOffsetMs = Date.parse(clock.server_now) - Date.now();

  function emptyEdits() {
    return { design: null, numbers: {}, scratch: null, fixes: null };
  }

  function hasEdits(edits) {
    return Boolean(
      edits &&
        (edits.design !== null || Object.keys(edits.numbers).length || edits.scratch !== null || edits.fixes !== null),
    );
  }

  // Newer edits win over older ones, field by field.
  function mergeEdits(older, newer) {
    const merged = emptyEdits();
    for (const edits of [older, newer]) {
      if (!edits) continue;
      if (edits.design !== null) merged.design = edits.design;
      Object.assign(merged.numbers, edits.numbers);
      if (edits.scratch !== null) merged.scratch = edits.scratch;
      if (edits.fixes !== null) merged.fixes = edits.fixes;
    }
    return merged;
  }

  function unsavedEdits() {
    return mergeEdits(inflight, pending);
  }

  function canonical(value) {
    if (Array.isArray(value)) return "[" + value.map(canonical).join(",") + "]";
    if (value && typeof value === "object") {
      return "{" + Object.keys(value).sort().map((k) => JSON.stringify(k) + ":" + canonical(value[k])).join(",") + "}";
    }
    return JSON.stringify(value === undefined ? null : value);
  }

  // The fields of `edits` whose values `work` (the server's, or the page as rendered) does not already hold.
  function editsNotIn(edits, work) {
    const left = emptyEdits();
    if (edits.design !== null && canonical(edits.design) !== canonical(work.design)) left.design = edits.design;
    for (const [name, text] of Object.entries(edits.numbers)) {
      if ((work.numbers[name] || "") !== text) left.numbers[name] = text;
    }
    if (edits.scratch !== null && edits.scratch !== (work.scratch || "")) left.scratch = edits.scratch;
    if (edits.fixes !== null && canonical(edits.fixes) !== canonical(work.fixes || [])) left.fixes = edits.fixes;
    return left;
  }

  function saveBody(edits, baseRevision) {
    const body = { revision: baseRevision };
    if (edits.design !== null) body.design = edits.design;
    if (Object.keys(edits.numbers).length) body.numbers = edits.numbers;
    if (edits.scratch !== null) body.scratch = edits.scratch;
    if (edits.fixes !== null) body.fixes = edits.fixes;
    return JSON.stringify(body);
  }

  // ---- the stash: this tab's unsaved edits survive a reload ----

  function writeStash() {
    try {
      const edits = unsavedEdits();
      if (hasEdits(edits)) window.sessionStorage.setItem(stashKey, JSON.stringify({ revision, edits }));
      else window.sessionStorage.removeItem(stashKey);
    } catch (error) {
      // Storage full or refused: the autosave and the keepalive still run.
    }
  }

  function readStash() {
    try {
      const stash = JSON.parse(window.sessionStorage.getItem(stashKey) || "null");
      if (stash && stash.edits && typeof stash.revision === "number") {
        return { revision: stash.revision, edits: mergeEdits(null, stash.edits) };
      }
    } catch (error) {
      // Unreadable: nothing to restore.
    }
    return null;
  }

  function dropStash() {
    try {
      window.sessionStorage.removeItem(stashKey);
    } catch (error) {
      // Nothing to drop.
    }
  }

  // ---- the page's fields ----

  function csrfToken() {
    try {
      return JSON.parse(document.body.getAttribute("hx-headers") || "{}")["X-CSRFToken"] || "";
    } catch (error) {
      return "";
    }
  }

  function setStatus(text, bad) {
    statusEl.textContent = text;
    statusEl.classList.toggle("bad", Boolean(bad));
  }

  function canvas() {
    return window.SevenboxCanvas && canvasEl ? window.SevenboxCanvas.get(canvasEl) : null;
  }

  function numberField(name) {
    return sheet.querySelector(`[data-number="${CSS.escape(name)}"]`);
  }

  function pageWork() {
    const numbers = {};
    for (const field of sheet.querySelectorAll("[data-number]")) numbers[field.dataset.number] = field.value;
    const c = canvas();
    let fixes = [];
    try {
      fixes = fixesInput && fixesInput.value ? JSON.parse(fixesInput.value) : [];
    } catch (error) {
      fixes = [];
    }
    return { design: c ? c.getDesign() : null, numbers, scratch: scratch.value, fixes };
  }

  // Show values on the page without making them edits (they are the server's, or restored ones already pending).
  let applying = false;
  function showOnPage(edits) {
    applying = true;
    try {
      if (edits.design !== null && canvas()) canvas().setDesign(edits.design);
      for (const [name, text] of Object.entries(edits.numbers)) {
        const field = numberField(name);
        if (field && field.value !== text) {
          field.value = text;
          if (window.htmx) window.htmx.trigger(field, "input"); // refresh how the sheet reads it
        }
      }
      if (edits.scratch !== null) scratch.value = edits.scratch;
    } finally {
      applying = false;
    }
  }

  function markDirty() {
    if (stopped) return;
    writeStash();
    setStatus("Unsaved changes…");
  }

  function lockInputs() {
    for (const field of document.querySelectorAll("#sheet input, #scratch, #ws-panel-design input, #ws-panel-design textarea")) {
      field.readOnly = true;
    }
    if (canvasEl) canvasEl.classList.add("locked");
    const c = canvas();
    if (c && c.lock) c.lock();
    for (const field of document.querySelectorAll("#review-panel input, #review-panel select, #review-panel button")) {
      field.disabled = true;
    }
  }

  // ---- talking to the server ----

  async function post(body) {
    const response = await fetch(saveUrl, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken() },
      body,
      credentials: "same-origin",
      keepalive: body.length < KEEPALIVE_MAX_BYTES, // a save under way when the page goes still lands
    });
    const answer = await response.json().catch(() => ({}));
    return { response, answer };
  }

  async function fetchLatest() {
    const response = await fetch(latestUrl, { credentials: "same-origin", headers: { Accept: "application/json" } });
    if (!response.ok) throw new Error("latest: " + response.status);
    const work = await response.json();
    work.numbers = work.numbers || {};
    return work;
  }

  function saved(answer) {
    revision = answer.revision;
    root.dataset.revision = String(revision);
    const when = new Date(answer.saved_at || Date.now()).toLocaleTimeString();
    setStatus(hasEdits(pending) ? "Unsaved changes…" : `All changes saved at ${when} (revision ${revision})`);
  }

  async function save() {
    if (stopped || saving || !hasEdits(pending)) return;
    saving = true;
    inflight = pending;
    pending = emptyEdits();
    setStatus("Saving…");
    try {
      const { response, answer } = await post(saveBody(inflight, revision));
      if (response.ok) {
        inflight = null;
        saved(answer);
      } else if (response.status === 409) {
        await onRefused(answer);
      } else if (response.status === 423) {
        stopped = true;
        lockInputs();
        setStatus("Not saved: the round is locked.", true);
        showBanner("locked-banner", "locked-message", answer.error || "The round is locked.");
      } else {
        pending = mergeEdits(inflight, pending);
        inflight = null;
        setStatus(`Not saved: ${answer.error || "the server refused the save"}.`, true);
      }
    } catch (error) {
      if (inflight) pending = mergeEdits(inflight, pending);
      inflight = null;
      setStatus("Not saved yet: no connection. Retrying…", true);
    } finally {
      saving = false;
      writeStash();
    }
  }

  // A 409: is it only our own earlier save landing late? If the server already holds every refused value, take
  // its revision (and whatever else it holds) and go on; otherwise this tab is stale.
  async function onRefused(answer) {
    let latest = null;
    try {
      latest = await fetchLatest();
    } catch (error) {
      latest = null;
    }
    if (latest && !hasEdits(editsNotIn(inflight, latest))) {
      const others = without(editsNotIn(fromWork(latest), pageWork()), pending);
      inflight = null;
      showOnPage(others);
      saved({ revision: latest.revision });
      return;
    }
    pending = mergeEdits(inflight, pending);
    inflight = null;
    becomeStale(answer.error || "Another tab or device saved this round after this tab loaded it.", latest);
  }

  function fromWork(work) {
    const edits = emptyEdits();
    edits.design = work.design || { nodes: [], edges: [] };
    edits.numbers = Object.assign({}, work.numbers);
    edits.scratch = work.scratch || "";
    edits.fixes = work.fixes || [];
    return edits;
  }

  // `edits` less the fields that `skip` has.
  function without(edits, skip) {
    const left = emptyEdits();
    if (skip.design === null) left.design = edits.design;
    for (const [name, text] of Object.entries(edits.numbers)) if (!(name in skip.numbers)) left.numbers[name] = text;
    if (skip.scratch === null) left.scratch = edits.scratch;
    if (skip.fixes === null) left.fixes = edits.fixes;
    return left;
  }

  // ---- a stale tab ----

  function describeEdits(edits) {
    const lines = [];
    if (edits.design !== null) {
      const nodes = Array.isArray(edits.design.nodes) ? edits.design.nodes : [];
      const edges = Array.isArray(edits.design.edges) ? edits.design.edges : [];
      const names = nodes.map((n) => n.label || n.id).slice(0, 12).join(", ");
      lines.push(`The design: ${nodes.length} boxes, ${edges.length} arrows (${names})`);
    }
    for (const [name, text] of Object.entries(edits.numbers)) {
      const field = numberField(name);
      const label = field && field.labels && field.labels[0] ? field.labels[0].textContent.trim() : name;
      lines.push(`${label}: ${text || "(cleared)"}`);
    }
    if (edits.scratch !== null) lines.push(`Scratch: ${edits.scratch.slice(0, 120)}${edits.scratch.length > 120 ? "…" : ""}`);
    if (edits.fixes !== null) lines.push(`Your fixes: ${edits.fixes.length} in the list`);
    return lines;
  }

  function editsAsText(edits) {
    const parts = [];
    for (const [name, text] of Object.entries(edits.numbers)) parts.push(`${name}: ${text}`);
    if (edits.scratch !== null) parts.push("Scratch:\n" + edits.scratch);
    if (edits.fixes !== null) parts.push("Fixes:\n" + edits.fixes.map((f, i) => `${i + 1}. [${f.category}] ${f.text}`).join("\n"));
    if (edits.design !== null) parts.push("Design (JSON):\n" + JSON.stringify(edits.design));
    return parts.join("\n\n");
  }

  function becomeStale(message, latest) {
    stopped = true;
    lockInputs();
    writeStash();
    const edits = pending;
    const newer = latest ? ` (it is at revision ${latest.revision}; this tab has ${revision})` : "";
    setStatus("Not saved: this tab is out of date and read-only.", true);
    document.getElementById("stale-message").textContent = `${message}${newer} This tab is out of date and read-only now.`;
    const list = document.getElementById("stale-list");
    list.textContent = "";
    for (const line of describeEdits(edits)) list.appendChild(Object.assign(document.createElement("li"), { textContent: line }));
    document.getElementById("stale-text").value = editsAsText(edits);
    document.getElementById("stale-edits").hidden = !hasEdits(edits);
    document.getElementById("stale-drop").textContent = hasEdits(edits)
      ? "Reloading drops these unsaved edits: " + describeEdits(edits).join("; ") + "."
      : "This tab has no unsaved edits: reloading drops nothing.";
    document.getElementById("stale-banner").hidden = false;
  }

  function bindStaleBanner() {
    const text = document.getElementById("stale-text");
    document.getElementById("stale-copy").addEventListener("click", async () => {
      try {
        await navigator.clipboard.writeText(text.value);
      } catch (error) {
        text.select();
        document.execCommand("copy");
      }
      setStatus("Your unsaved edits are copied.", true);
    });
    document.getElementById("stale-apply").addEventListener("click", async () => {
      setStatus("Applying your edits onto the latest…", true);
      try {
        const latest = await fetchLatest();
        const { response, answer } = await post(saveBody(pending, latest.revision));
        if (!response.ok) throw new Error(answer.error || String(response.status));
        pending = emptyEdits();
        dropStash();
        window.location.reload();
      } catch (error) {
        setStatus(`Not applied: ${error.message}. Your edits are still here.`, true);
      }
    });
    document.getElementById("stale-reload").addEventListener("click", () => {
      document.getElementById("stale-confirm").hidden = false;
      document.getElementById("stale-reload-confirm").focus();
    });
    document.getElementById("stale-reload-confirm").addEventListener("click", () => dropStash());
  }
  bindStaleBanner();

  function showBanner(id, messageId, message) {
    document.getElementById(messageId).textContent = message;
    document.getElementById(id).hidden = false;
  }

  // ---- edits from the page ----

  const phaseOfField = (field) => {
    const set = field.closest && field.closest("[data-phase]");
    return set ? set.dataset.phase : null;
  };

  sheet.addEventListener("input", (event) => {
    const field = event.target;
    if (applying || !field.dataset || !field.dataset.number) return;
    pending.numbers[field.dataset.number] = field.value;
    workedIn(phaseOfField(field));
    markDirty();
  });
  scratch.addEventListener("input", () => {
    if (applying) return;
    pending.scratch = scratch.value;
    markDirty();
  });
  sheet.addEventListener("submit", (event) => event.preventDefault());
  sheet.addEventListener("focusout", () => save());
  scratch.addEventListener("blur", () => save());

  designInput.addEventListener("input", () => {
    if (applying) return;
    try {
      pending.design = JSON.parse(designInput.value);
      workedIn(clock.plan.some((p) => p.phase === "shape") ? "shape" : null);
      markDirty();
    } catch (error) {
      setStatus("The drawing could not be read; it was not saved.", true);
    }
  });

  if (fixesInput) {
    fixesInput.addEventListener("input", () => {
      if (applying) return;
      try {
        pending.fixes = JSON.parse(fixesInput.value);
        markDirty();
      } catch (error) {
        setStatus("The fixes could not be read; they were not saved.", true);
      }
    });
  }

  document.getElementById("submit-form").addEventListener("submit", async (event) => {
    const c = canvas();
    if (c && c.flush) c.flush();
    if (event.defaultPrevented || !hasEdits(pending) || stopped) return;
    // Save the last edits before the server grades what is saved.
    event.preventDefault();
    await save();
    event.target.submit();
  });

  // Leaving or hiding the page: what is not saved goes out now, in a request that outlives the page. A save
  // under way is based on `revision`; the rest then follows it, based on the revision that save will make.
  function flushNow() {
    const c = canvas();
    if (c && c.flush) c.flush();
    writeStash();
    if (stopped || !hasEdits(pending)) return;
    const body = saveBody(inflight ? pending : unsavedEdits(), inflight ? revision + 1 : revision);
    if (body.length >= KEEPALIVE_MAX_BYTES) return; // too big to outlive the page; the stash still has it
    post(body).catch(() => {});
  }
  window.addEventListener("pagehide", flushNow);
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden") flushNow();
    else checkLatest();
  });

  // A tab with nothing unsaved shows what another device saved.
  async function checkLatest() {
    if (stopped || saving || hasEdits(pending) || inflight || document.visibilityState === "hidden") return;
    let latest;
    try {
      latest = await fetchLatest();
    } catch (error) {
      return;
    }
    if (stopped || saving || hasEdits(pending) || inflight || latest.revision <= revision) return;
    showOnPage(editsNotIn(fromWork(latest), pageWork()));
    saved({ revision: latest.revision });
  }

  // On load: what this tab typed before a reload and the server does not hold yet is shown and saved again.
  // The newest revision is asked for first: the keepalive of the page before may have landed since this one
  // was rendered.
  async function restoreStash() {
    const stash = readStash();
    if (!stash) return undefined; // the page was rendered from the newest revision
    let latest = null;
    try {
      latest = await fetchLatest();
    } catch (error) {
      latest = null;
    }
    if (latest && latest.revision > revision) {
      showOnPage(editsNotIn(fromWork(latest), pageWork()));
      saved({ revision: latest.revision });
    }
    const left = editsNotIn(stash.edits, latest || pageWork());
    if (!hasEdits(left)) {
      dropStash();
      return undefined;
    }
    showOnPage(left);
    pending = mergeEdits(left, pending);
    if (stash.revision < revision) {
      // The server moved on since these edits were made, and not to them: say so rather than overwrite.
      becomeStale("This round was saved elsewhere after this tab's last edits.", { revision });
      return undefined;
    }
    markDirty();
    return save();
  }

  // ---- the clock and the phase timeline: the deadline is the server's; only the ticking happens here ----
  const clockEl = document.getElementById("clock");
  const phaseEl = document.getElementById("phase");
  const youEl = document.getElementById("phase-you");
  const timeline = document.getElementById("phase-timeline");
  const segments = Array.from(timeline.querySelectorAll(".ws-seg"));
  const totalMinutes = clock.plan.reduce((sum, p) => sum + p.minutes, 0) || 1;
  for (const segment of segments) segment.style.flexGrow = segment.dataset.minutes;
  const nowMark = document.createElement("span");
  nowMark.className = "ws-now";
  nowMark.setAttribute("aria-hidden", "true");
  timeline.appendChild(nowMark);
  const startedMs = Date.parse(clock.started_at);
  const deadlineMs = clock.deadline ? Date.parse(clock.deadline) : null;
  let youPhase = null;

  function workedIn(phase) {
    if (!phase || phase === youPhase) return;
    youPhase = phase;
    tick();
  }

  function format(seconds) {
    const total = Math.max(0, Math.round(seconds));
    const m = Math.floor(total / 60);
    const s = total % 60;
    return `${m}:${String(s).padStart(2, "0")}`;
  }

  function phaseAt(elapsedS) {
    let start = 0;
    for (const phase of clock.plan) {
      const end = start + phase.minutes * 60;
      if (elapsedS < end) return phase;
      start = end;
    }
    return clock.plan[clock.plan.length - 1];
  }

  const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);

  let lockedByClock = false;
  function tick() {
    const nowMs = Date.now() + serverOffsetMs;
    const elapsedS = (nowMs - startedMs) / 1000;
    const phase = phaseAt(elapsedS);
    if (phase) {
      phaseEl.textContent = "Plan: " + capital(phase.phase);
      phaseEl.title = phase.expect;
      let passed = true;
      for (const segment of segments) {
        const isPlan = segment.dataset.phase === phase.phase;
        if (isPlan) passed = false;
        segment.classList.toggle("ws-plan", isPlan);
        segment.classList.toggle("ws-past", passed);
        segment.classList.toggle("ws-you", segment.dataset.phase === youPhase);
        if (isPlan) segment.setAttribute("aria-current", "step");
        else segment.removeAttribute("aria-current");
      }
      youEl.textContent = youPhase ? "· you: " + capital(youPhase) : "";
    }
    nowMark.style.left = Math.min(100, Math.max(0, (elapsedS / 60 / totalMinutes) * 100)) + "%";
    if (deadlineMs === null) {
      clockEl.textContent = `Practice · ${format(elapsedS)} elapsed`;
      return;
    }
    const leftS = (deadlineMs - nowMs) / 1000;
    clockEl.textContent = leftS > 0 ? `${format(leftS)} left` : "Time is up";
    clockEl.classList.toggle("urgent", leftS < 300);
    if (leftS > 0 && leftS < 3 && hasEdits(pending)) save();
    if (leftS <= 0 && !lockedByClock) {
      lockedByClock = true;
      stopped = true;
      lockInputs();
      showBanner("locked-banner", "locked-message",
        "Time is up: the round locked at its deadline and is graded on what was saved.");
      window.setTimeout(() => window.location.assign(reportUrl), 3000);
    }
  }
  tick();
  window.setInterval(tick, 1000);

  restoreStash();
  window.setInterval(() => save(), AUTOSAVE_EVERY_MS);
  window.setInterval(() => checkLatest(), LATEST_EVERY_MS);
})();
