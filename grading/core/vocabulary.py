"""The words of the question format (docs/question-format.md), defined once: the reader checks question
files against them, and the Django side takes its model choices, form options and page titles from here."""

PHASES = ("intro", "numbers", "shape", "arithmetic", "depth", "failures", "close")
TRACK_TITLES = {
    "inference": "Inference and serving",
    "training": "Training and clusters",
    "data": "Data and evals",
    "platform": "Platform and governance",
}
TRACKS = tuple(TRACK_TITLES)
DIFFICULTY_TITLES = {"easy": "Easy", "medium": "Medium", "hard": "Hard"}
DIFFICULTIES = tuple(DIFFICULTY_TITLES)  # easiest first
KINDS = ("design", "review")
CHECKS = ("relative", "count", "magnitude")
RUBRIC_DIMENSIONS = ("numbers", "shape", "arithmetic", "depth", "failures", "communication")
RUBRIC_LEVELS = (1, 2, 3, 4)
SCENARIO_FAMILIES = ("serving", "training", "pipeline", "events")
CONCEPT_TITLES = {
    "latency-slos": "Designing for latency SLOs",
    "capacity-and-backpressure": "Capacity and backpressure",
    "gpu-job-scheduling": "GPU job scheduling",
    "structured-outputs": "Structured outputs and constrained decoding",
    "kv-cache-memory": "KV-cache memory",
    "littles-law": "Little's law",
    "continuous-batching": "Continuous batching",
    "roofline-and-decode": "The roofline and decode",
    "queueing-theory": "Queueing theory",
    "checkpointing": "Checkpointing",
    "cluster-networking": "Cluster networking",
    "failure-domains": "Failure domains",
    "idempotency-and-ledgers": "Idempotency and ledgers",
    "rate-limiting": "Rate limiting",
    "caching": "Caching",
    "autoscaling-and-cold-starts": "Autoscaling and cold starts",
    "multi-tenancy": "Multi-tenancy",
    "data-pipelines": "Data pipelines",
    "evaluation": "Evaluation",
    "observability": "Observability",
    "moe-and-expert-parallelism": "MoE and expert parallelism",
    "speculative-decoding": "Speculative decoding",
    "power-and-cooling": "Power and cooling",
    "artifact-distribution": "Artifact distribution",
}
CONCEPTS = tuple(CONCEPT_TITLES)

FIX_CATEGORIES = ("correctness", "admission", "placement", "infrastructure")
