"""Replay runs: one failure scenario simulated for one side (the candidate's numbers or the reference's).

A run is queued, claimed by a worker (conditional update on its status, with a fresh claim token), reports
progress and a heartbeat while it runs, and ends done, failed or cancelled. A retry is a new row with the
next `generation`: earlier attempts stay as history; pages show the latest generation per scenario and side.
"""

import json

from django.db import models

from grading.core.failure_modes import runs_view


class ReplayStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"
    CANCELLED = "cancelled", "Cancelled"


class ReplaySide(models.TextChoices):
    CANDIDATE = "candidate", "Your numbers"
    REFERENCE = "reference", "Reference"
    FIX = "fix", "Reference fix"  # a review round's third side: the reference's fix (review.fix)


DESIGN_SIDES = (ReplaySide.CANDIDATE, ReplaySide.REFERENCE)
REVIEW_SIDES = (ReplaySide.CANDIDATE, ReplaySide.REFERENCE, ReplaySide.FIX)


ACTIVE_STATUSES = (ReplayStatus.QUEUED, ReplayStatus.RUNNING)
FINISHED_STATUSES = (ReplayStatus.DONE, ReplayStatus.FAILED, ReplayStatus.CANCELLED)

# Which series each family charts: (title, series keys); a key ending in "*" is a prefix.
CHARTS: dict[str, list[tuple[str, list[str]]]] = {
    "serving": [
        ("Latency: TTFT p95 (s)", ["ttft_p95_s"]),
        ("Queue depth (requests)", ["queue"]),
        ("Replicas", ["replicas_running", "replicas_starting"]),
    ],
    "training": [("Work done (fraction)", ["progress_frac"]), ("Nodes in repair", ["nodes_in_repair"])],
    "pipeline": [("Items done", ["done"]), ("Backlog (items)", ["backlog_*"])],
    "events": [
        ("Ledger: billed and true (USD)", ["billed_usd", "true_usd"]),
        ("Token bucket (tokens)", ["bucket_tokens"]),
        ("Admitted (req/s)", ["admitted_rps"]),
    ],
}


# The series' names in a chart's legend; a prefix key ("backlog_") names each series after its stage.
SERIES_NAMES: dict[str, str] = {
    "ttft_p95_s": "TTFT p95",
    "queue": "Requests queued",
    "replicas_running": "Replicas serving",
    "replicas_starting": "Replicas starting",
    "progress_frac": "Work done",
    "nodes_in_repair": "Nodes in repair",
    "done": "Items done",
    "backlog_": "Backlog",
    "billed_usd": "Billed",
    "true_usd": "True cost",
    "bucket_tokens": "Tokens in the bucket",
    "admitted_rps": "Admitted",
}
# A chart of one of these series draws the scenario's SLO target on it, when the SLO sets one.
SLO_LINES: dict[str, tuple[str, str]] = {"ttft_p95_s": ("SLO: TTFT p95", "s")}


def series_name(key: str) -> str:
    """The words for a series key: "replicas_running" -> "Replicas serving", "backlog_embed" -> "Backlog:
    embed"."""
    if key in SERIES_NAMES:
        return SERIES_NAMES[key]
    for prefix, words in SERIES_NAMES.items():
        if prefix.endswith("_") and key.startswith(prefix):
            return f"{words}: {key.removeprefix(prefix).replace('_', ' ')}"
    words = key.replace("_", " ")
    return words[:1].upper() + words[1:]


class ReplayRun(models.Model):
    round = models.ForeignKey("rounds.Round", on_delete=models.CASCADE, related_name="replay_runs")
    scenario = models.CharField(max_length=80, help_text="The scenario's name in the question version")
    position = models.PositiveSmallIntegerField(default=0, help_text="The scenario's place in the question")
    side = models.CharField(max_length=10, choices=ReplaySide.choices)
    generation = models.PositiveIntegerField(default=1, help_text="1 for the first run; each retry adds one")
    status = models.CharField(max_length=10, choices=ReplayStatus.choices, default=ReplayStatus.QUEUED)
    progress = models.FloatField(default=0.0, help_text="Simulated fraction, 0 to 1")
    seed = models.BigIntegerField(help_text="From the round and the scenario: both sides share it")
    simulator_version = models.CharField(max_length=40)
    inputs = models.JSONField(default=dict, help_text="family, params (base units), events, slo, duration_s")
    result = models.JSONField(null=True, blank=True, help_text="ScenarioResult.to_dict()")
    error = models.TextField(blank=True)
    note = models.CharField(max_length=300, blank=True, help_text="Shown beside the status")
    attempts = models.PositiveIntegerField(default=0, help_text="Times a worker claimed it")
    seeds_taken = models.PositiveSmallIntegerField(
        default=0, help_text="Seeds handed out under the current claim, to its worker or a helper"
    )
    seeds_helped = models.PositiveSmallIntegerField(
        default=0, help_text="Seeds of the result that a helper simulated (another worker process)"
    )
    claim = models.UUIDField(null=True, blank=True, help_text="The token of the claim that may write")
    sent_at = models.DateTimeField(null=True, blank=True, help_text="Last time a message reached the broker")
    claimed_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "grading_replayrun"  # the table it had before the app moved (issue 29)
        ordering = ["round", "position", "scenario", "side", "-generation"]
        constraints = [
            models.UniqueConstraint(
                fields=["round", "scenario", "side", "generation"], name="unique_replay_run_generation"
            ),
        ]
        indexes = [models.Index(fields=["status", "heartbeat_at"])]

    def __str__(self) -> str:
        return f"Replay {self.scenario} ({self.side}) of round {self.round_id}"

    @property
    def is_active(self) -> bool:
        return self.status in ACTIVE_STATUSES

    @property
    def can_retry(self) -> bool:
        return self.status in (ReplayStatus.FAILED, ReplayStatus.CANCELLED)

    @property
    def title(self) -> str:
        return self.inputs.get("title") or self.scenario

    @property
    def seed_runs(self) -> dict:
        """The runs over the seeds as the page shows them (`grading.core.failure_modes.runs_view`)."""
        return runs_view(self.result)

    @property
    def passed(self) -> bool | None:
        """Whether every run met the SLO; None before a result."""
        return None if self.result is None else self.seed_runs["passed"]

    @property
    def percent(self) -> int:
        return round(100 * min(1.0, max(0.0, self.progress)))

    @property
    def charts(self) -> dict:
        """The series to draw, sent as JSON: {t, side, charts: [{title, series: {key: values}}]}."""
        series = (self.seed_runs["first"] or {}).get("series") or {}
        charts = []
        for title, keys in CHARTS.get(self.inputs.get("family", ""), []):
            picked = {}
            for key in keys:
                names = [name for name in series if name.startswith(key[:-1])] if key.endswith("*") else [key]
                picked.update({name: series[name] for name in sorted(names) if name in series})
            if picked:
                chart = {"title": title, "series": picked, "names": {key: series_name(key) for key in picked}}
                slo = self.inputs.get("slo") or {}
                for key, (words, unit) in SLO_LINES.items():
                    if key in picked and key in slo:
                        chart["slo"] = {"label": f"{words} ≤ {slo[key]:g} {unit}", "value": slo[key]}
                charts.append(chart)
        return {"t": series.get("t", []), "side": self.side, "charts": charts}

    @property
    def charts_json(self) -> str:
        return json.dumps(self.charts, separators=(",", ":"))


class ReplaySeedResult(models.Model):
    """One seed of a running run, simulated by the worker that claimed the run or by a helper (another worker
    process that took the run's next seed: `rounds.services.replays`). Under the claim that handed the seed
    out; gathered into the run's result, in seed order, and deleted when the run finishes."""

    run = models.ForeignKey(ReplayRun, on_delete=models.CASCADE, related_name="seed_results")
    claim = models.UUIDField(help_text="The run's claim when the seed was handed out")
    index = models.PositiveSmallIntegerField(help_text="The seed's place in the run's seeds")
    helped = models.BooleanField(default=False, help_text="Simulated by a helper, not the claiming worker")
    result = models.JSONField(help_text="ScenarioResult.to_dict() of the seed's run")

    class Meta:
        db_table = "rounds_replayseedresult"
        constraints = [
            models.UniqueConstraint(fields=["run", "claim", "index"], name="unique_replay_seed_result"),
        ]

    def __str__(self) -> str:
        return f"Seed {self.index} of replay run {self.run_id}"


class ReplayResult(models.Model):
    """A replay's result kept by what it depends on (`grading.core.replay_inputs.replay_result_key`: the
    simulator inputs, the seeds, the simulator's version), for the sides that do not depend on the candidate
    (the reference, a review's reference fix): computed when the round starts, while the candidate works, so
    that at submit only the candidate's side is left to simulate. Read only by the replay job
    (rounds.services.replay_results), never by a page: before submit nothing of it reaches the candidate."""

    key = models.CharField(max_length=64, unique=True)
    result = models.JSONField(help_text="SeedRuns.to_dict(), as ReplayRun.result")
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        db_table = "rounds_replayresult"

    def __str__(self) -> str:
        return f"Replay result {self.key[:12]}"
