// Replay charts: draws every canvas[data-replay-chart] from the JSON in its holder's data-replay-charts, on page
// load and whenever htmx swaps in a finished run. The two sides of one chart (same data-pair) share their y-axis.
(function () {
  "use strict";

  var SIDE_COLOURS = { candidate: ["#2456d3", "#7a9cf0", "#0f2f80"], reference: ["#5b6475", "#a35c00", "#1a7f4b"] };
  var pairs = {};

  function seriesMax(chart) {
    var max = 0;
    chart.data.datasets.forEach(function (dataset) {
      dataset.data.forEach(function (value) {
        if (typeof value === "number" && value > max) { max = value; }
      });
    });
    return max;
  }

  function shareScale(pairKey) {
    var charts = (pairs[pairKey] || []).filter(function (chart) { return chart.canvas.isConnected; });
    pairs[pairKey] = charts;
    var max = 0;
    charts.forEach(function (chart) { max = Math.max(max, seriesMax(chart)); });
    charts.forEach(function (chart) {
      chart.options.scales.y.suggestedMax = max;
      chart.update("none");
    });
  }

  function draw(canvas) {
    if (canvas.dataset.drawn || typeof window.Chart === "undefined") { return; }
    var holder = canvas.closest("[data-replay-charts]");
    if (!holder) { return; }
    var data = JSON.parse(holder.dataset.replayCharts);
    var spec = data.charts[Number(canvas.dataset.index)];
    if (!spec) { return; }
    var colours = SIDE_COLOURS[data.side] || SIDE_COLOURS.candidate;
    var names = spec.names || {};
    var datasets = Object.keys(spec.series).map(function (key, index) {
      return {
        label: names[key] || key,
        data: spec.series[key],
        borderColor: colours[index % colours.length],
        backgroundColor: colours[index % colours.length],
        borderWidth: 1.5,
        pointRadius: 0,
        spanGaps: true
      };
    });
    if (spec.slo) {
      // The SLO's target as a dashed line across the whole run, named in the legend.
      datasets.push({
        label: spec.slo.label,
        data: data.t.map(function () { return spec.slo.value; }),
        borderColor: "#b42318",
        backgroundColor: "#b42318",
        borderDash: [6, 4],
        borderWidth: 1.5,
        pointRadius: 0
      });
    }
    var chart = new window.Chart(canvas, {
      type: "line",
      data: { labels: data.t, datasets: datasets },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        interaction: { mode: "index", intersect: false },
        plugins: { legend: { display: datasets.length > 1, position: "bottom" } },
        scales: {
          x: {
            type: "linear",
            title: { display: true, text: "time (s)" },
            ticks: { maxTicksLimit: 6 }
          },
          y: { beginAtZero: true, ticks: { maxTicksLimit: 5 } }
        }
      }
    });
    canvas.dataset.drawn = "1";
    var pairKey = canvas.dataset.pair;
    (pairs[pairKey] = pairs[pairKey] || []).push(chart);
    shareScale(pairKey);
  }

  function drawWithin(root) {
    if (!root || !root.querySelectorAll) { return; }
    if (root.matches && root.matches("canvas[data-replay-chart]")) { draw(root); }
    root.querySelectorAll("canvas[data-replay-chart]").forEach(draw);
  }

  document.addEventListener("DOMContentLoaded", function () { drawWithin(document); });
  document.addEventListener("htmx:load", function (event) { drawWithin(event.detail.elt); });
})();
