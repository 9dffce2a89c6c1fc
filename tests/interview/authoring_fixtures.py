# ruff: noqa: E501 - the YAML below is typed as an author types it, one quantity a line
"""A question written from scratch, section by section, as an author types it in the editor."""

SLUG = "chat-fleet-sizing"
TITLE = "Size a chat fleet for 200k daily users"

SUMMARY = "From daily users to GPUs, replicas and a monthly bill."
PROMPT = "We launch a chat assistant for 200,000 daily users. How many GPUs do we need at peak?"
OUTLINE = (
    "Peak users, then requests, then tokens per second, then GPUs with headroom, then replicas and cost."
)

PLAN = """\
- {phase: intro, minutes: 1, expect: "Restate the question."}
- {phase: numbers, minutes: 5, expect: "Peak users and request rate."}
- {phase: shape, minutes: 7, expect: "Gateway, router, engine."}
- {phase: arithmetic, minutes: 10, expect: "Tokens per second to GPUs."}
- {phase: depth, minutes: 16, expect: "Headroom and replicas."}
- {phase: failures, minutes: 5, expect: "A replica lost at peak."}
- {phase: close, minutes: 1, expect: "The bill."}
"""

MODEL = """\
headline: gpus_needed
quantities:
  - {name: daily_users, label: Daily users, value: 200000, unit: user, range: [50000, 1000000], source: "The brief"}
  - {name: peak_fraction, label: Share online at peak, value: 0.1, unit: "", range: [0.02, 0.3], source: "Typical consumer chat"}
  - {name: req_per_user, label: Requests per user-second at peak, value: 0.02, unit: req/(user*s), range: [0.005, 0.1], source: "One message every 50 s"}
  - {name: tokens_per_req, label: Output tokens per request, value: 600, unit: tok/req, range: [100, 2000], source: "Chat answers"}
  - {name: gpu_tok_rate, label: Decode tokens per GPU-second, value: 2500, unit: tok/(s*GPU), range: [500, 10000], source: "Batched decode on an H100"}
  - {name: headroom, label: Headroom factor, value: 1.3, unit: "", range: [1, 2], source: "Keep 30% spare"}
  - {name: gpus_per_replica, label: GPUs per replica, value: 4, unit: GPU/replica, range: [1, 8], source: "A 70B model in bf16"}
  - {name: gpu_hour_cost, label: Price of a GPU-hour, value: 2.5, unit: USD/(GPU*h), range: [1, 5], source: "Cloud list price"}
  - {name: hours_per_month, label: Hours in a month, value: 730, unit: h, range: [720, 744], source: "365 * 24 / 12"}
  - {name: peak_users, label: Users online at peak, formula: daily_users * peak_fraction, unit: user}
  - {name: peak_req_rate, label: Peak request rate, formula: peak_users * req_per_user, unit: req/s}
  - {name: peak_tok_rate, label: Peak output tokens per second, formula: peak_req_rate * tokens_per_req, unit: tok/s}
  - {name: gpus_needed, label: GPUs needed, formula: ceil(peak_tok_rate * headroom / gpu_tok_rate), unit: GPU}
  - {name: replicas, label: Replicas, formula: ceil(gpus_needed / gpus_per_replica), unit: replica}
  - {name: monthly_cost, label: Monthly GPU bill, formula: replicas * gpus_per_replica * gpu_hour_cost * hours_per_month, unit: USD}
"""

# The same model with a unit error (tokens per second declared as requests per second), then with a cycle.
MODEL_WITH_UNIT_ERROR = MODEL.replace(
    "formula: peak_req_rate * tokens_per_req, unit: tok/s",
    "formula: peak_req_rate * tokens_per_req, unit: req/s",
)
MODEL_WITH_CYCLE = MODEL.replace(
    "formula: daily_users * peak_fraction", "formula: monthly_cost * 0 + daily_users"
)
# The author's later edit: a newer benchmark gives 2,000 decode tokens per GPU-second, not 2,500.
MODEL_EDITED = MODEL.replace(
    "value: 2500, unit: tok/(s*GPU), range: [500, 10000]",
    "value: 2000, unit: tok/(s*GPU), range: [500, 10000]",
)

ASKED = """\
- {name: peak_users, phase: numbers}
- {name: peak_req_rate, phase: numbers}
- {name: peak_tok_rate, phase: arithmetic}
- {name: gpus_needed, phase: arithmetic, check: count}
- {name: replicas, phase: depth, check: count}
- {name: monthly_cost, phase: close, check: magnitude, tolerance: 3}
"""

RUBRIC = """\
- dimension: numbers
  levels: {1: "No numbers.", 2: "Users only.", 3: "Users to tokens per second.", 4: "And says which input matters most."}
- dimension: arithmetic
  levels: {1: "No arithmetic.", 2: "Slips.", 3: "Right GPUs.", 4: "Right GPUs, replicas and bill."}
"""

SCENARIOS = """\
- name: replica-lost-at-peak
  title: "A replica dies at peak"
  family: serving
  description: "One replica of the fleet fails a minute in."
  params: {arrival_rate: peak_req_rate, replicas: replicas, gpus_per_replica: gpus_per_replica}
  events:
    - {at: 60, type: replica_loss, count: 1}
  slo: {ttft_p95_s: 2.0}
  duration_s: 300
"""

FOLLOW_UPS = '- {phase: depth, text: "What if answers double in length?"}\n'
MISTAKES = '- "Sizing for daily users instead of peak users."\n'
CONCEPTS = "[latency-slos, capacity-and-backpressure]\n"

# A right sheet (the reference values) and a typical mistake (requests taken as tokens).
GOOD_SHEET = {
    "peak_users": "20000 users",
    "peak_req_rate": "400 req/s",
    "peak_tok_rate": "240000 tok/s",
    "gpus_needed": "125 GPUs",
    "replicas": "32",
    "monthly_cost": "233600 USD",
}


def question_dict() -> dict:
    """The whole question as a file-format dict (for tests that skip the editor)."""
    from questions.services.packs import yaml_read_text

    return {
        "slug": SLUG,
        "title": TITLE,
        "track": "inference",
        "difficulty": "medium",
        "kind": "design",
        "summary": SUMMARY,
        "prompt": PROMPT,
        "plan": yaml_read_text(PLAN),
        "model": yaml_read_text(MODEL),
        "asked": yaml_read_text(ASKED),
        "design": {
            "nodes": [
                {"id": "gateway", "kind": "gateway", "label": "API gateway"},
                {"id": "router", "kind": "router"},
                {"id": "engine", "kind": "engine"},
            ],
            "edges": [
                {"source": "client", "target": "gateway"},
                {"source": "gateway", "target": "router"},
                {"source": "router", "target": "engine"},
            ],
            "path": ["gateway", "router", "engine"],
        },
        "rubric": yaml_read_text(RUBRIC),
        "outline": OUTLINE,
        "follow_ups": yaml_read_text(FOLLOW_UPS),
        "mistakes": yaml_read_text(MISTAKES),
        "scenarios": yaml_read_text(SCENARIOS),
        "concepts": yaml_read_text(CONCEPTS),
    }
