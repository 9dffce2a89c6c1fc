// Timeline replay: a slider over a finished round's time; the canvas, sheet and scratch show the work as it
// was at that moment, and notes written later are dimmed. Each event carries the full new value of one field
// (design, scratch or numbers.NAME), as rounds/timeline.py documents; this is the same fold, client-side.
(function () {
  "use strict";

  const slider = document.getElementById("timeline-t");
  if (!slider) return;
  const events = JSON.parse(document.getElementById("timeline-events").textContent)
    .map((event, index) => Object.assign({ index }, event))
    .sort((a, b) => a.t - b.t || a.index - b.index);
  const output = document.getElementById("timeline-at");
  const scratch = document.getElementById("tl-scratch");
  const canvasEl = document.getElementById("timeline-canvas");
  let shownDesign = document.getElementById("timeline-design").textContent;

  function duration(seconds) {
    const total = Math.max(0, Math.round(seconds));
    const hours = Math.floor(total / 3600);
    const minutes = Math.floor((total % 3600) / 60);
    const secs = String(total % 60).padStart(2, "0");
    return hours ? `${hours}:${String(minutes).padStart(2, "0")}:${secs}` : `${minutes}:${secs}`;
  }

  // The work the round opened with (the client box; a review round's design and numbers): the replay starts here.
  const opening = document.getElementById("timeline-opening").textContent;

  function stateAt(t) {
    const state = JSON.parse(opening);
    for (const event of events) {
      if (event.t > t) break;
      if (event.field === "design") state.design = event.value || { nodes: [], edges: [] };
      else if (event.field === "scratch") state.scratch = event.value || "";
      else if (event.field.startsWith("numbers.")) {
        const name = event.field.slice("numbers.".length);
        if (event.value) state.numbers[name] = event.value;
        else delete state.numbers[name];
      }
    }
    return state;
  }

  function show(t) {
    const state = stateAt(t);
    output.textContent = duration(t);
    const designText = JSON.stringify(state.design);
    const canvas = window.SevenboxCanvas ? window.SevenboxCanvas.get(canvasEl) : null;
    if (canvas && designText !== shownDesign) {
      canvas.setDesign(state.design);
      shownDesign = designText;
    }
    for (const cell of document.querySelectorAll("[data-number]")) {
      cell.textContent = state.numbers[cell.dataset.number] || "";
    }
    scratch.textContent = state.scratch;
    for (const note of document.querySelectorAll("#timeline-notes [data-t]")) {
      note.classList.toggle("later", Number(note.dataset.t) > t);
    }
    const url = new URL(window.location.href);
    url.searchParams.set("t", String(t));
    window.history.replaceState(null, "", url);
  }

  // The canvas keeps the server's JSON key order; compare against the same serialisation from now on.
  shownDesign = JSON.stringify(JSON.parse(shownDesign));
  slider.addEventListener("input", () => show(Number(slider.value)));
  document.getElementById("timeline-form").addEventListener("submit", (event) => {
    event.preventDefault();
    show(Number(slider.value));
  });
})();
