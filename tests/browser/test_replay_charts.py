"""The replay page in Chromium: charts drawn under the CSP, and a run's poller updating until it is done."""

from playwright.sync_api import expect

from rounds.models import ReplayRun
from rounds.services import replays
from rounds.services.replays import replay_execute, replays_enqueue_for_round
from tests.browser.conftest import log_in
from tests.rounds.replay_fixtures import load_question, submitted_round


def test_finished_runs_draw_their_charts_and_a_queued_run_polls_until_it_is_done(
    page, alice, tmp_path, monkeypatch
):
    monkeypatch.setattr(replays, "_publish", lambda run_id: None)  # the test runs them itself
    round_ = submitted_round(alice, load_question(tmp_path))
    runs = replays_enqueue_for_round(round_=round_)
    *finished, waiting = runs
    for run in finished:
        replay_execute(run_id=run.pk)
    log_in(page, "alice")
    page.goto(f"/rounds/{round_.pk}/replays/")
    expect(page.locator(f"#replay-run-{waiting.pk} progress")).to_be_visible()
    expect(page.locator("canvas[data-replay-chart][data-drawn]")).to_have_count(3 * len(finished))
    assert replay_execute(run_id=waiting.pk) == "done"
    expect(page.locator(f"#replay-run-{waiting.pk} .replay-tag-done")).to_be_visible(timeout=5000)
    expect(page.locator(f"#replay-run-{waiting.pk}")).not_to_have_attribute("hx-trigger", "every 1s")
    expect(page.locator("canvas[data-replay-chart][data-drawn]")).to_have_count(3 * len(runs))
    assert ReplayRun.objects.get(pk=waiting.pk).result is not None
    # Each chart's legend names its series in words, and a latency chart draws the SLO's target.
    legends = page.evaluate(
        """() => [...document.querySelectorAll("figure.replay-chart")].map(f => ({
            title: f.querySelector("figcaption").textContent,
            labels: Chart.getChart(f.querySelector("canvas")).data.datasets.map(d => d.label),
        }))"""
    )
    assert legends and all("_" not in label for legend in legends for label in legend["labels"]), legends
    latency = [legend for legend in legends if legend["title"].startswith("Latency")]
    assert latency, legends
    for legend in latency:
        name, slo = legend["labels"]
        assert name == "TTFT p95" and slo.startswith("SLO: TTFT p95 ≤ ") and slo.endswith(" s"), legend
    assert any("Replicas serving" in legend["labels"] for legend in legends), legends
