// Demo page for the design canvas (design-canvas-demo.html): shows the design JSON as the widget
// reports it, and switches to read-only or markable mode from the address (?readonly, ?markable).
(function () {
  "use strict";

  const params = new URLSearchParams(window.location.search);
  const canvas = document.getElementById("canvas");
  const input = document.getElementById("demo-design-input");
  const output = document.getElementById("demo-json");

  // Before DOMContentLoaded, so autoMount (in design-canvas.js) sees the final attributes.
  if (params.has("readonly")) canvas.setAttribute("data-readonly", "");
  if (params.has("markable")) canvas.setAttribute("data-markable", "");
  if (params.has("design")) {
    // ?design=<json>: start from a given design (used by browser tests).
    document.getElementById("demo-design").textContent = params.get("design");
  }

  const main = document.querySelector("main");
  main.style.maxWidth = "1200px";
  main.style.margin = "0 auto";
  main.style.padding = "0 1rem";
  main.style.fontFamily = "system-ui, sans-serif";
  output.style.background = "#f4f6f9";
  output.style.padding = "0.75rem";
  output.style.overflowX = "auto";
  output.style.maxHeight = "24rem";

  function show(design) {
    output.textContent = JSON.stringify(design, null, 2);
  }
  input.addEventListener("input", () => show(JSON.parse(input.value)));
  // Registered after design-canvas.js's own listener, so the widget is mounted by then.
  document.addEventListener("DOMContentLoaded", () => show(window.SevenboxCanvas.get(canvas).getDesign()));
})();
