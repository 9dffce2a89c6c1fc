// Drill progress: accuracy (bars, left axis) and mean seconds per step (line, right axis) for each week, from the
// JSON the page puts in #drill-weeks.
(function () {
  "use strict";

  function draw() {
    var data = document.getElementById("drill-weeks");
    var canvas = document.getElementById("drill-weeks-chart");
    if (!data || !canvas || typeof window.Chart === "undefined") { return; }
    var weeks = JSON.parse(data.textContent);
    new window.Chart(canvas, {
      data: {
        labels: weeks.map(function (week) { return week.week; }),
        datasets: [
          { type: "bar", label: "Right (%)", yAxisID: "accuracy", backgroundColor: "#7a9cf0",
            data: weeks.map(function (week) { return Math.round(week.accuracy * 100); }) },
          { type: "line", label: "Mean time (s)", yAxisID: "seconds", borderColor: "#a35c00",
            data: weeks.map(function (week) { return week.mean_seconds; }) }
        ]
      },
      options: {
        animation: false,
        maintainAspectRatio: false,
        scales: {
          accuracy: { type: "linear", position: "left", min: 0, max: 100 },
          seconds: { type: "linear", position: "right", min: 0, grid: { drawOnChartArea: false } }
        }
      }
    });
  }

  document.addEventListener("DOMContentLoaded", draw);
})();
