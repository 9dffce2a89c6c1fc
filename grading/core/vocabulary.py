"""The words of the question format (docs/question-format.md), defined once: the reader checks files against
them and the Django models take their choices from them."""

PHASES = ("intro", "numbers", "shape", "arithmetic", "depth", "failures", "close")
TRACKS = ("inference", "training", "data", "platform")
DIFFICULTIES = ("easy", "medium", "hard")
KINDS = ("design", "review")
CHECKS = ("relative", "count", "magnitude")
RUBRIC_DIMENSIONS = ("numbers", "shape", "arithmetic", "depth", "failures", "communication")
RUBRIC_LEVELS = (1, 2, 3, 4)
SCENARIO_FAMILIES = ("serving", "training", "pipeline", "events")
CONCEPTS = (
    "latency-slos",
    "capacity-and-backpressure",
    "gpu-job-scheduling",
    "structured-outputs",
    "kv-cache-memory",
    "littles-law",
    "continuous-batching",
    "roofline-and-decode",
    "queueing-theory",
    "checkpointing",
    "cluster-networking",
    "failure-domains",
    "idempotency-and-ledgers",
    "rate-limiting",
    "caching",
    "autoscaling-and-cold-starts",
    "multi-tenancy",
    "data-pipelines",
    "evaluation",
    "observability",
    "moe-and-expert-parallelism",
    "speculative-decoding",
    "power-and-cooling",
    "artifact-distribution",
)

FIX_CATEGORIES = ("correctness", "admission", "placement", "infrastructure")
