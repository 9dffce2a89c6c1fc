// The interviewer's console: keep the read-only canvas in step with the polled #live block, and clear the
// note box after a note is saved. The server renders everything else; this file holds no inline state.
(function () {
  "use strict";

  let lastDesign = null;

  function readLiveDesign() {
    const node = document.getElementById("live-design");
    return node ? node.textContent : null;
  }

  function syncCanvas() {
    const text = readLiveDesign();
    if (text === null || text === lastDesign) return;
    const element = document.getElementById("live-canvas");
    const canvas = element && window.SevenboxCanvas ? window.SevenboxCanvas.get(element) : null;
    if (!canvas) return; // not mounted yet: autoMount reads #live-design itself
    try {
      canvas.setDesign(JSON.parse(text));
      lastDesign = text;
    } catch (error) {
      console.warn("interviewer: could not show the design", error);
    }
  }

  document.addEventListener("DOMContentLoaded", () => {
    lastDesign = readLiveDesign();
  });

  document.addEventListener("htmx:afterSettle", (event) => {
    const target = event.detail && event.detail.elt;
    if (target && target.id === "live") syncCanvas();
  });

  document.addEventListener("htmx:afterRequest", (event) => {
    const form = event.detail && event.detail.elt;
    if (form && form.id === "note-form" && event.detail.successful) form.reset();
  });
})();
