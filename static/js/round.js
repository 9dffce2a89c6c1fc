// The timed round page: the server's clock, autosave with revisions, and the lock at the deadline.
// Every save says which revision it was based on; a stale tab is refused by the server and told so here.
(function () {
  "use strict";

  const AUTOSAVE_EVERY_MS = 5000;
  const root = document.getElementById("round");
  if (!root) return;

  const clock = JSON.parse(document.getElementById("round-clock").textContent);
  const saveUrl = root.dataset.saveUrl;
  const reportUrl = root.dataset.reportUrl;
  const statusEl = document.getElementById("save-status");
  const sheet = document.getElementById("sheet");
  const designInput = document.getElementById("design-input");
  const scratch = document.getElementById("scratch");
  const fixesInput = document.getElementById("fixes-input"); // review rounds only

  let revision = Number(root.dataset.revision);
  let pending = { design: null, numbers: {}, scratch: null, fixes: null };
  let dirty = false;
  let saving = false;
  let stopped = false; // stale or locked: no more saves from this tab
  const serverOffsetMs = Date.parse(clock.server_now) - Date.now();

  function csrfToken() {
    try {
      return JSON.parse(document.body.getAttribute("hx-headers") || "{}")["X-CSRFToken"] || "";
    } catch (error) {
      return "";
    }
  }

  function setStatus(text) {
    statusEl.textContent = text;
  }

  function markDirty() {
    dirty = true;
    if (!stopped) setStatus("Unsaved changes…");
  }

  function showBanner(id, messageId, message) {
    document.getElementById(messageId).textContent = message;
    document.getElementById(id).hidden = false;
  }

  function lockInputs() {
    for (const field of sheet.querySelectorAll("input, textarea")) field.readOnly = true;
    const canvasEl = document.getElementById("canvas");
    if (canvasEl) canvasEl.classList.add("locked");
    for (const field of document.querySelectorAll("#review-panel input, #review-panel select, #review-panel button")) {
      field.disabled = true;
    }
  }

  function takePending() {
    const body = { revision: revision };
    if (pending.design !== null) body.design = pending.design;
    if (Object.keys(pending.numbers).length) body.numbers = pending.numbers;
    if (pending.scratch !== null) body.scratch = pending.scratch;
    if (pending.fixes !== null) body.fixes = pending.fixes;
    const taken = pending;
    pending = { design: null, numbers: {}, scratch: null, fixes: null };
    dirty = false;
    return { body, taken };
  }

  function restorePending(taken) {
    // A failed save keeps its changes; newer edits made meanwhile win over the older ones.
    if (pending.design === null) pending.design = taken.design;
    pending.numbers = Object.assign({}, taken.numbers, pending.numbers);
    if (pending.scratch === null) pending.scratch = taken.scratch;
    if (pending.fixes === null) pending.fixes = taken.fixes;
    dirty = true;
  }

  async function save(options) {
    if (stopped || saving || !dirty) return;
    saving = true;
    const { body, taken } = takePending();
    setStatus("Saving…");
    try {
      const response = await fetch(saveUrl, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken() },
        body: JSON.stringify(body),
        credentials: "same-origin",
        keepalive: Boolean(options && options.keepalive),
      });
      const answer = await response.json().catch(() => ({}));
      if (response.ok) {
        revision = answer.revision;
        root.dataset.revision = String(revision);
        const when = new Date(answer.saved_at).toLocaleTimeString();
        setStatus(dirty ? "Unsaved changes…" : `All changes saved at ${when} (revision ${revision})`);
      } else if (response.status === 409) {
        stopped = true;
        restorePending(taken);
        setStatus("Not saved: this tab is out of date.");
        showBanner("stale-banner", "stale-message", answer.error || "This page is out of date.");
      } else if (response.status === 423) {
        stopped = true;
        restorePending(taken);
        lockInputs();
        setStatus("Not saved: the round is locked.");
        showBanner("locked-banner", "locked-message", answer.error || "The round is locked.");
      } else {
        restorePending(taken);
        setStatus(`Not saved: ${answer.error || "the server refused the save"}.`);
      }
    } catch (error) {
      restorePending(taken);
      setStatus("Not saved yet: no connection. Retrying…");
    } finally {
      saving = false;
    }
  }

  sheet.addEventListener("input", (event) => {
    const field = event.target;
    if (field.dataset && field.dataset.number) {
      pending.numbers[field.dataset.number] = field.value;
      markDirty();
    } else if (field === scratch) {
      pending.scratch = scratch.value;
      markDirty();
    }
  });
  sheet.addEventListener("submit", (event) => event.preventDefault());
  sheet.addEventListener("focusout", () => save());

  designInput.addEventListener("input", () => {
    try {
      pending.design = JSON.parse(designInput.value);
      markDirty();
    } catch (error) {
      setStatus("The drawing could not be read; it was not saved.");
    }
  });

  if (fixesInput) {
    fixesInput.addEventListener("input", () => {
      try {
        pending.fixes = JSON.parse(fixesInput.value);
        markDirty();
      } catch (error) {
        setStatus("The fixes could not be read; they were not saved.");
      }
    });
  }

  document.getElementById("submit-form").addEventListener("submit", async (event) => {
    if (event.defaultPrevented || !dirty || stopped) return;
    // Save the last edits before the server grades what is saved.
    event.preventDefault();
    await save();
    event.target.submit();
  });

  window.setInterval(() => save(), AUTOSAVE_EVERY_MS);
  window.addEventListener("pagehide", () => save({ keepalive: true }));
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden") save({ keepalive: true });
  });

  // ---- the clock: the deadline is the server's; only the ticking happens here ----
  const clockEl = document.getElementById("clock");
  const phaseEl = document.getElementById("phase");
  const expectEl = document.getElementById("phase-expect");
  const startedMs = Date.parse(clock.started_at);
  const deadlineMs = clock.deadline ? Date.parse(clock.deadline) : null;

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

  let lockedByClock = false;
  function tick() {
    const nowMs = Date.now() + serverOffsetMs;
    const elapsedS = (nowMs - startedMs) / 1000;
    const phase = phaseAt(elapsedS);
    if (phase) {
      phaseEl.textContent = phase.phase.charAt(0).toUpperCase() + phase.phase.slice(1);
      expectEl.textContent = phase.expect;
    }
    if (deadlineMs === null) {
      clockEl.textContent = `Practice · ${format(elapsedS)} elapsed`;
      return;
    }
    const leftS = (deadlineMs - nowMs) / 1000;
    clockEl.textContent = leftS > 0 ? `${format(leftS)} left` : "Time is up";
    clockEl.classList.toggle("urgent", leftS < 300);
    if (leftS > 0 && leftS < 3 && dirty) save();
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
})();
