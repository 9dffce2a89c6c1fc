"""The sheet's read-back reads issue 30's open phrasings as the grade does (one reader)."""

from rounds.readings import describe_reading


def sheet(*quantities: dict) -> dict:
    """A question version's spec with only the quantities the sheet reads."""
    return {"model": {"quantities": list(quantities)}}


def test_the_sheet_reads_a_qualifier_and_no_limit_however_said_as_the_grader_does():
    # Issue 30: "each GPU" is "per GPU" (said as a per-GPU figure), "there is no limit" is no limit, "12
    # servers" are 12 replicas where a replica is one 8-GPU node, "9.8gb" on a GB line is 9.8 GB.
    spec = sheet(
        {"name": "gpus_per_replica", "label": "GPUs per replica", "unit": "GPU/replica", "value": 8},
        {"name": "bw", "label": "Reload bandwidth", "unit": "GB/s"},
        {"name": "replicas", "label": "Replicas", "unit": "replica"},
        {"name": "kv", "label": "KV cache of one conversation", "unit": "GB"},
        {"name": "queue", "label": "Queue limit", "unit": "req", "value": 1e6, "range": [10, "unbounded"]},
    )
    each = describe_reading(spec, "bw", "1.15 GB/s each GPU")
    assert each["message"].startswith("Read as 1.15 GB/s") and "per-GPU" in each["message"], each
    assert describe_reading(spec, "queue", "there is no limit")["message"] == "Read as no limit (unbounded)"
    servers = describe_reading(spec, "replicas", "12 servers")
    assert servers["message"].startswith("Read as 12 replicas"), servers
    lower = describe_reading(spec, "kv", "9.8gb")
    assert lower["message"].startswith("Read as 9.8 GB") and "this line is in bytes" in lower["message"], (
        lower
    )


def test_the_sheet_converts_a_figure_per_another_count_as_the_grader_does():
    # Issue 30: where the question says a node holds 8 GPUs, "31 GB per node" on a GB-per-GPU line reads as
    # 31 / 8 = 3.875 GB a GPU, and "6.25 qps/GPU" on a per-node line as 6.25 x 8 = 50; "28 nodes" on a GPU
    # count names no "per" and stays unread (the wrong dimension).
    spec = sheet(
        {"name": "gpus_per_node", "label": "GPUs per node", "unit": "GPU/node", "value": 8},
        {"name": "per_gpu", "label": "Checkpoint bytes each new GPU loads", "unit": "GB/GPU"},
        {"name": "per_node", "label": "LLM queries per second per node", "unit": "query/(s*node)"},
        {"name": "gpus", "label": "GPUs the reranker needs", "unit": "GPU"},
    )
    per_gpu = describe_reading(spec, "per_gpu", "31 GB per node")
    assert per_gpu["message"].startswith("Read as 3.88 GB/GPU") and "÷ 8" in per_gpu["message"], per_gpu
    per_node = describe_reading(spec, "per_node", "6.25 qps/GPU")
    assert per_node["state"] == "read" and "× 8" in per_node["message"], per_node
    assert describe_reading(spec, "gpus", "28 nodes")["state"] == "unread"


def test_the_sheet_converts_with_the_rounds_own_count_where_a_variant_moves_it():
    # A variant with 4 GPUs a node (base units: a count per count is its own number): "31 GB per node" on a
    # GB-per-GPU line is 31 / 4 = 7.75 GB a GPU, as the grade reads it at the round's values, not 31 / 8.
    spec = sheet(
        {"name": "gpus_per_node", "label": "GPUs per node", "unit": "GPU/node", "value": 8},
        {"name": "per_gpu", "label": "Checkpoint bytes each new GPU loads", "unit": "GB/GPU"},
    )
    at_defaults = describe_reading(spec, "per_gpu", "31 GB per node")
    in_variant = describe_reading(spec, "per_gpu", "31 GB per node", {"gpus_per_node": 4.0})
    assert at_defaults["message"].startswith("Read as 3.88 GB/GPU"), at_defaults
    assert in_variant["message"].startswith("Read as 7.75 GB/GPU") and "÷ 4" in in_variant["message"], (
        in_variant
    )
