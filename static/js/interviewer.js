// The interviewer's console: keep the read-only canvas in step with the polled #live block, and clear the
// note box after a note is saved. The server renders everything else; this file holds no inline state.
(function () {
  "use strict";

  let lastDesign = null;

  // The polled #live block carries the design in data-design (htmx drops <script> from swapped content).
  function readLiveDesign() {
    const node = document.getElementById("live");
    return node ? node.dataset.design || null : null;
  }

  function syncCanvas() {
    const text = readLiveDesign();
    if (text === null || text === lastDesign) return;
    const element = document.getElementById("live-canvas");
    const canvas = element && window.SevenboxCanvas ? window.SevenboxCanvas.get(element) : null;
    if (!canvas) return; // not mounted yet: autoMount reads the page's #live-design itself
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

  // After any swap: cheap, since an unchanged design (same JSON text) is left alone.
  document.addEventListener("htmx:afterSettle", syncCanvas);

  // Access revoked mid-round: say so, and stop polling (htmx stops polling an element no longer in the page).
  document.addEventListener("htmx:responseError", (event) => {
    const live = event.detail && event.detail.elt;
    if (!live || live.id !== "live" || event.detail.xhr.status !== 404) return;
    const quiet = live.cloneNode(true);
    quiet.removeAttribute("hx-get");
    quiet.removeAttribute("hx-trigger");
    live.replaceWith(quiet);
    document.getElementById("console-lost").hidden = false;
  });

  document.addEventListener("htmx:afterRequest", (event) => {
    const form = event.detail && event.detail.elt;
    if (form && form.id === "note-form" && event.detail.successful) form.reset();
  });
})();
