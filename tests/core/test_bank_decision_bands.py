"""The numeric lines of the bank's follow-up decisions (issue 33): each band holds the figure derived here by
hand from the question's stated values (DOMAIN.md), and leaves out the usual wrong answer (a unit slip, a step
skipped), so the band is neither missing the answer nor wide enough to pass anything."""

import math

import pytest

from tests.core.test_grader_bank import question


def band(slug: str, decision_id: str) -> tuple[float, float]:
    item = next(item for item in question(slug).decisions if item.id == decision_id)
    assert item.number is not None, f"{slug}.{decision_id} has no number line"
    return item.number.band


def check(slug: str, decision_id: str, right: float, wrong: tuple[float, ...] = ()) -> None:
    low, high = band(slug, decision_id)
    assert low <= right <= high, f"{slug}.{decision_id}: {right} outside [{low}, {high}]"
    for value in wrong:
        assert not low <= value <= high, f"{slug}.{decision_id}: the wrong {value} is inside [{low}, {high}]"


# shared-gpu-cluster-scheduling: 60 req/s x (250 x 0.04 = 10 s) = 600 in flight / 64 = 9.375 decode replicas;
# 60 x 2,000 / 28,035 = 4.28 prefill; 13.66 busy / 0.7 = 19.5 -> 20 replicas of 8 GPUs = 160 GPUs.


def test_shared_gpu_a_split_loses_the_night_trough():
    # Trough: ceil(13.66 x 0.35 / 0.7 = 6.83) = 7 replicas = 56 GPUs; 160 - 56 = 104 lent at night.
    check("shared-gpu-cluster-scheduling", "when-to-split", 104, wrong=(160, 56))


def test_shared_gpu_peak_doubles():
    # 120 req/s: 1,200 in flight / 64 = 18.75; 120 x 2,000 / 28,035 = 8.56; 27.31 / 0.7 = 39.0 -> 40 replicas,
    # 320 GPUs; 320 - 160 = 160 move (not 320, the new pool itself).
    check("shared-gpu-cluster-scheduling", "peak-doubles", 160, wrong=(320, 80))


def test_shared_gpu_graceful_night_reclaim():
    # 256 GPUs x (1 min write + 5 min restart) = 25.6 GPU-h; without the checkpoint,
    # 256 x (15 + 5) min = 85.3.
    check("shared-gpu-cluster-scheduling", "night-reclaim", 256 * 6 / 60, wrong=(256 * 20 / 60,))


def test_agent_sessions_fast_tools_duty():
    # 1 s of thinking per 1 + 5 = 6 s step: 16.7%; not 1/5 = 20% (the think time left out) nor 1/61 = 1.6%.
    check("agent-sessions", "fast-tools-pin", 100 / 6, wrong=(20, 100 / 61))


def test_agent_sessions_dram_at_64k():
    # 64,000 x 327,680 B = 20.97 GB a session; 2,000 GB / 20.97 = 95.4 -> 95 (65,536 tokens: 93). At 30k: 203.
    check("agent-sessions", "contexts-64k-dram", 2000e9 // (64_000 * 327_680), wrong=(203, 190))
    check("agent-sessions", "contexts-64k-dram", 2000e9 // (65_536 * 327_680))


def test_agent_sessions_reboot_recompute():
    # One 30k recompute: 30,000 / 28,035 = 1.070 s of prefill + 1.31072e6 x 30,000^2 / 3.956e15 = 0.298 s of
    # attention = 1.368 s; x 120 = 164.2 s. Leaving attention out gives 128.4 s.
    one = 30_000 / 28_035 + 1.31072e6 * 30_000**2 / 3.956e15
    check("agent-sessions", "host-reboot", 120 * one, wrong=(120 * 30_000 / 28_035,))


def test_autoscaling_registry_cold_start():
    # 141.107 GB / 40 MB/s = 3,527.7 s, + 5 + 15 + 3 = 3,550.7 s (about an hour); the cached start is 70 s.
    check("autoscaling-cold-start", "registry-cold-start", 141.107e9 / 40e6 + 23, wrong=(70, 141.107 / 40))


def test_autoscaling_larger_burst_pool_cost():
    # +150 req/s: 1,500 in flight / 64 = 23.44; 150 x 2,000 / 28,035 = 10.70; 34.14 -> 35 replicas x 8 GPUs x
    # $2 = $560/h x 730 h = $408,800 a month. The old pool of 12: $192/h, $140,160.
    check(
        "autoscaling-cold-start", "burst-150-pool", 35 * 8 * 2 * 730, wrong=(12 * 8 * 2 * 730, 560 * 24 * 7)
    )


def test_autoscaling_thirty_replicas_pull():
    # 30 x 141.1 GB = 4.23 TB (one replica's 0.14 TB; in terabits, 33.9).
    check("autoscaling-cold-start", "thirty-at-once", 30 * 0.1411, wrong=(0.1411, 30 * 0.1411 * 8))


def test_checkpoint_vendor_headroom():
    # The burst: 1 TB / 60 s = 16.67 GB/s = 133.3 Gb/s; 150 / 133.3 = 1.125: 12.5% headroom. Read as bytes,
    # 150 GB/s would be 800% headroom.
    check("checkpoint-storage", "vendor-quote", 100 * (150 / (1e12 * 8 / 60 / 1e9) - 1), wrong=(800, 0))


def test_checkpoint_four_tb_drain():
    # 4 TB over the 30 min - 1 min left to drain: 4e12 / 1,740 s = 2.30 GB/s (1 TB: 0.57 GB/s).
    check(
        "checkpoint-storage", "four-tb-write-tier", 4e12 / 1740 / 1e9, wrong=(1e12 / 1740 / 1e9, 4e12 / 60e9)
    )


def test_checkpoint_half_speed_drain_backlog():
    # 2 TB written an hour; half the drain, 574.7 / 2 = 287.4 MB/s, clears 1.034 TB an hour: 0.966 TB a hour
    # of backlog (halving the 555.6 MB/s average instead gives 1.0 TB).
    check("checkpoint-storage", "slow-drain", 2 - 287.356e6 * 3600 / 1e12, wrong=(2.0, 0.5))
    check("checkpoint-storage", "slow-drain", 2 - 277.78e6 * 3600 / 1e12)


def test_disaggregated_link_at_8000_tokens():
    # 20 req/s x 8,000 tok x 327,680 B = 52.4 GB/s = 419.4 Gb/s (2,000 tokens: 104.9 Gb/s).
    check("disaggregated-prefill-decode", "prompts-8000", 20 * 8000 * 327_680 * 8 / 1e9, wrong=(104.9, 52.4))


def test_disaggregated_fp8_decode_step():
    # KV per sequence at fp8: 2,125 tok x 163,840 B = 348.2 MB; x 128 = 44.56 GB; (141.1 + 44.56) GB /
    # (8 x 3.35 TB/s x 0.7 = 18.76 TB/s) = 9.90 ms. Unchanged (bf16) 12.27 ms; halving the whole step,
    # 6.14 ms.
    step = (141.1e9 + 128 * 2125 * 163_840) / (8 * 3.35e12 * 0.7) * 1e3
    assert step == pytest.approx(9.897, abs=0.01)
    check("disaggregated-prefill-decode", "fp8-kv-split", step, wrong=(12.27, 6.14))


def test_disaggregated_rebuild_after_a_decode_node_dies():
    # 128 sequences x 2,125 tokens (prompt + half the answer) / 28,035 tok/s = 9.70 s; the prompts alone
    # 9.13 s.
    check(
        "disaggregated-prefill-decode", "decode-node-dies", 128 * 2125 / 28_035, wrong=(128 * 2125 / 10_430,)
    )
    check("disaggregated-prefill-decode", "decode-node-dies", 128 * 2000 / 28_035)


def test_eval_pipeline_long_context_half():
    # Mean prompt 0.5 x 1,000 + 0.5 x 30,000 = 15,500 tokens: 15,500 / 28,035 + 250 / 10,400 = 0.5769 s a
    # prompt on a replica; 9e6 prompts / 14,400 s = 625 prompt/s over (0.8 / 0.5769 = 1.387 each) = 450.7 ->
    # 451 replicas. Counting the 30k prompts' attention (2 x 80 x 30,000^2 x 8,192 = 1.18e15 FLOP at 3.956e15
    # FLOP/s = 0.298 s, half the prompts) adds 0.149 s: 0.726 s, 567 replicas. Unchanged: 47.
    short = 15_500 / 28_035 + 250 / 10_400
    long_ = short + 0.5 * 2 * 80 * 30_000**2 * 8192 / (8 * 989e12 * 0.5)
    for per_prompt in (short, long_):
        check(
            "eval-pipeline-10m-prompts", "long-context-half", 625 / (0.8 / per_prompt), wrong=(47, 47 * 15.5)
        )


def test_eval_pipeline_fast_run_costs_the_same():
    # 9e6 prompts x (1,000 / 28,035 + 250 / 10,400 = 0.05971 s) x 8 GPUs / 0.8 = 1,492.7 GPU-h x $2 = $2,985.
    # In whole replicas: 47 x 8 x 4 h x $2 = $3,008 (fast), 4 x 8 x 48 h x $2 = $3,072 (slow). Twelve times:
    # $35,800.
    cost = 9e6 * (1000 / 28_035 + 250 / 10_400) * 8 / 0.8 / 3600 * 2
    for value in (cost, 47 * 8 * 4 * 2, 4 * 8 * 48 * 2):
        check("eval-pipeline-10m-prompts", "fast-costs-the-same", value, wrong=(12 * cost, cost / 12))


def test_eval_pipeline_half_preempted():
    # The fleet finishes in 9e6 / (47 x 16.748 x 0.8 = 629.7 prompt/s) = 3.97 h. At 2 h, 1.97 h of full-fleet
    # work is left; on half the fleet it takes 3.94 h: done at 5.94 h. Restarting from zero on half: 9.94 h.
    full = 9e6 / (47 * (1 / (1000 / 28_035 + 250 / 10_400)) * 0.8) / 3600
    check("eval-pipeline-10m-prompts", "half-preempted", 2 + 2 * (full - 2), wrong=(4, 2 + 2 * full))


def test_feature_store_five_hundred_candidates():
    # 10,000 req/s x (500 candidates + 1 user) keys x 100 features x 8 B = 4.008 GB/s (101 keys: 0.808 GB/s).
    check("feature-store-no-leakage", "five-hundred-candidates", 10_000 * 501 * 800 / 1e9, wrong=(0.808, 8.0))


def test_feature_store_shard_tail_at_fifty():
    # Each of 50 shards must meet the target with probability 0.99^(1/50) = 0.999799: 0.0201% may miss
    # (about 1% / 50). Twenty shards: 0.0502%; the request's own 1%.
    check("feature-store-no-leakage", "shard-tail-fifty", 100 * (1 - 0.99 ** (1 / 50)), wrong=(0.0502, 1.0))


def test_feature_store_batch_fails_twice():
    # The last good run's features are 24 h old at the next refresh, and two failures add two more periods:
    # 3 x 24 h + the 3 h job = 75 h at the third run's landing. One period: 27 h; the TTL: 51 h.
    check("feature-store-no-leakage", "batch-fails-twice", 3 * 24 + 3, wrong=(27, 51))


def test_kv_tiering_fp8_conversations_in_hbm():
    # fp8 KV: 2 x 80 x 8 x 128 x 1 B = 163,840 B/tok x 30,000 = 4.915 GB a conversation; HBM after weights:
    # 8 x 80 GB x 0.9 - 141.1 GB = 434.9 GB / 4.915 = 88.5 -> 88 (bf16: 44).
    check("kv-cache-tiering", "fp8-cache-ship", (576e9 - 141.107e9) // (30_000 * 163_840), wrong=(44, 176))


def test_kv_tiering_break_even_at_128k():
    # KV: 128,000 x 327,680 B = 41.94 GB. Recompute: 2 x 70.55e9 x 128,000 = 1.806e16 FLOP for the weights
    # + 2 x 80 x 8,192 x 128,000^2 = 2.147e16 for attention = 3.954e16 at 8 x 989e12 x 0.5 = 3.956e15 FLOP/s:
    # 9.99 s. Break-even 41.94 GB / 9.99 s = 4.20 GB/s (30k: 7.18; the linear term alone: 9.19).
    recompute = (2 * 70.5537e9 * 128_000 + 2 * 80 * 8192 * 128_000**2) / (8 * 989e12 * 0.5)
    check("kv-cache-tiering", "contexts-128k", 128_000 * 327_680 / recompute / 1e9, wrong=(7.18, 9.19))


def test_kv_tiering_dram_tier_empty():
    # 0.2 returning conversations a second x 1.368 s of recompute = 27.4% of the replica's time (less the
    # 25 ms reload they no longer make: 26.9%). Reloading from DRAM took 0.2 x 24.6 ms = 0.5%.
    check("kv-cache-tiering", "dram-tier-empty", 100 * 0.2 * 1.368, wrong=(100 * 0.2 * 0.024576, 100.0))
    check("kv-cache-tiering", "dram-tier-empty", 100 * 0.2 * (1.368 - 0.024576))


def test_llm_batching_h200_kv_cap():
    # (8 x 141 GB x 0.9 - 141.1 GB) = 874.1 GB / (8,192 tok x 327,680 B = 2.684 GB) = 325.6 -> 325
    # (H100: 162).
    check(
        "llm-batching-system", "move-to-h200", (8 * 141e9 * 0.9 - 141.107e9) // (8192 * 327_680), wrong=(162,)
    )


def test_llm_batching_32k_batch():
    # KV room 1,327,187 tokens / 32,768 = 40.5 -> 40 (or / 32,000 = 41.5 -> 41); at 8,192 it was 162.
    room = (8 * 80e9 * 0.9 - 141.107e9) / 327_680
    check("llm-batching-system", "contexts-32k", room // 32_768, wrong=(162, 629))
    check("llm-batching-system", "contexts-32k", room // 32_000)


def test_llm_batching_slow_reader_buffer():
    # The engine emits the 250 tokens in 250 x 13.53 ms = 3.38 s while the phone reads 2 tok/s x 3.38 s = 6.8:
    # 243 wait. At the 40 ms TPOT target: 10 s, 20 read, 230 wait. All 250 would mean the client read none.
    for step in (0.013535, 0.040):
        check("llm-batching-system", "slow-reader", 250 - 2 * 250 * step, wrong=(250, 2))


def test_speculative_h200_break_even():
    # Ridge 989e12 / 4.8e12 = 206.0 FLOP/B = 206 tokens per weight read (bf16, 2 FLOP per parameter); with
    # 4 drafts each sequence verifies 5 positions: 206 / 5 = 41.2 (H100: 295 / 5 = 59; scaling 59 up by the
    # bandwidth ratio gives 84.6).
    check("speculative-decoding", "h200-break-even", 989e12 / 4.8e12 / 5, wrong=(59, 59 * 4.8 / 3.35))


def test_speculative_eight_drafts():
    # E = (1 - 0.9^9) / (1 - 0.9) = 6.126 tokens per verify; cost 8 x 0.05 + 1 = 1.4 target steps: 4.38x.
    # Ignoring the draft's cost: 6.13x; at 0.8 with 4 drafts: 2.80x.
    tokens = (1 - 0.9**9) / 0.1
    check("speculative-decoding", "eight-drafts", tokens / 1.4, wrong=(tokens, 2.80))


def test_speculative_tpot_drift():
    # 0.8: (1 - 0.8^5) / 0.2 = 3.3616 / 1.2 = 2.801x; 0.6: (1 - 0.6^5) / 0.4 = 2.3056 / 1.2 = 1.921x. TPOT
    # is the base step over the speedup: 2.801 / 1.921 - 1 = 45.8% worse (the inverse, 31.4%, is the speed).
    ratio = ((1 - 0.8**5) / 0.2) / ((1 - 0.6**5) / 0.4)
    check("speculative-decoding", "tpot-drift", 100 * (ratio - 1), wrong=(100 * (1 - 1 / ratio), 25.0))


def test_ttft_far_users():
    # The 100 ms of fixed terms + 100 ms of prefill, plus 150 ms more network: 350 ms; if the 150 ms replaces
    # the 30 ms network term: 320 ms. Either way far past 200 ms.
    check("ttft-200ms-p99", "far-users", 350, wrong=(200, 150, 500))
    check("ttft-200ms-p99", "far-users", 320)


def test_ttft_fp8_longest_prompt():
    # fp8: 8 x 1,979e12 x 0.5 / (2 x 70.55e9) = 56,105 tok/s x the 100 ms prefill budget = 5,610 tokens
    # (bf16: 2,804).
    check("ttft-200ms-p99", "fp8-longest-prompt", 0.1 * 8 * 1979e12 * 0.5 / (2 * 70.5537e9), wrong=(2804,))


def test_token_limits_bucket_depth():
    # 10 req/s x 10 s = 100 requests in flight x 32,768 reserved = 3,276,800 tokens (32,000: 3,200,000). Their
    # actual 250-token answers: 25,000; the 4,096 reservation: 409,600.
    check("token-rate-limits", "bucket-depth-32k", 100 * 32_768, wrong=(100 * 250, 100 * 4096, 32_768))
    check("token-rate-limits", "bucket-depth-32k", 100 * 32_000)


def test_token_limits_duplicate_settlement():
    # Reserved 1,000 + 8,192 = 9,192, used 1,000 + 250 = 1,250: a settlement returns 7,942; a duplicate
    # returns it again. (Output only: 8,192 - 250 = 7,942 too.) The label's max_tokens is its own premise, not
    # the 4,096 the numbers phase asks the candidate to assume.
    check("token-rate-limits", "settled-twice", 9192 - 1250, wrong=(9192, 1250, 2 * 7942, 4096 - 250))


def test_rag_forty_percent_hits():
    # 10,000 q/s x (1 - 0.4) = 6,000 misses / 50 per node = 120 nodes (70%: 60; no cache: 200).
    check("rag-at-10k-qps", "measure-hit-rate", 10_000 * 0.6 / 50, wrong=(60, 200))


def test_rag_rerank_hundred_of_512():
    # 10,000 x 100 pairs x 512 tok = 5.12e8 tok/s x 2 x 335e6 FLOP = 3.43e17 FLOP/s / (989e12 x 0.4) = 867.1
    # -> 868 GPUs, four times the 217 for 50 pairs of 256 tokens.
    gpus = math.ceil(10_000 * 100 * 512 * 2 * 335e6 / (989e12 * 0.4))
    check("rag-at-10k-qps", "rerank-100", gpus, wrong=(217, 434))


def test_rag_cache_flushed():
    # 60 nodes x 50 q/s = 3,000 of the 10,000 q/s that now all miss: 30%.
    check("rag-at-10k-qps", "cache-flushed", 100 * 60 * 50 / 10_000, wrong=(70, 100))


def test_two_regions_third_region():
    # Busy replicas: 2 x 0.6 x 175.76 req/s = 210.9 req/s x 0.2276 s = 48.0. With three regions, the two left
    # after a loss carry 24 each at <= 0.8: 30 a region, 90 in all (two regions: 60 a region, 120).
    busy = 2 * 0.6 * 40
    check("two-region-failover", "third-region", 3 * math.ceil(busy / 2 / 0.8), wrong=(120, 80))


def test_two_regions_at_seventy():
    # Survivor load 2 x 0.7 = 1.4: 0.4 over x 175.76 req/s x 30 s = 2,109 requests (at 60%: 1,055).
    capacity = 40 / (2000 / 28_035 + 10 / 64)
    check(
        "two-region-failover",
        "regions-at-70",
        0.4 * capacity * 30,
        wrong=(0.2 * capacity * 30, 0.7 * capacity * 30),
    )


def test_two_regions_false_failover():
    # All traffic on one region at 1.2 x its capacity: 0.2 / 1.2 = 16.7% shed (not 20%).
    check("two-region-failover", "false-failover", 100 * 0.2 / 1.2, wrong=(20, 0))


def test_serverless_seventy_b_cold_start():
    # 2 s schedule + 8 s image + 141.1 GB / 4 GB/s = 35.3 s + 6 s init = 51.3 s (8B: 20 s).
    check("serverless-gpu-warm-pool", "seventy-b-cold-start", 2 + 8 + 141.1 / 4 + 6, wrong=(20, 35.3))


def test_serverless_pool_at_two_per_second():
    # Mean 2/s x 80 s = 160 in cold start; p99 160 + 2.326 x sqrt(160) = 189.4 -> 190 (the mean alone: 160).
    check(
        "serverless-gpu-warm-pool",
        "pool-at-two-per-second",
        math.ceil(160 + 2.326 * 160**0.5),
        wrong=(160, 18),
    )


def test_gpu_credits_faster_gpus():
    # 2,048 GPUs at 1 credit an hour + 2,048 at 2 = 6,144 old GPU-hours an hour (before: 4,096; all fast:
    # 8,192).
    check("gpu-credit-system", "faster-gpus-credit", 2048 * 1 + 2048 * 2, wrong=(4096, 8192))


def test_gpu_credits_per_second_events():
    # 2,000 running jobs / 1 s = 2,000 debits a second x 2,592,000 s in 30 days = 5.18e9 (per minute: 8.64e7).
    check("gpu-credit-system", "per-second-billing", 2000 * 2_592_000, wrong=(8.64e7, 2000 * 86_400))


def test_gpu_credits_hour_replayed():
    # An hour of debits is what the busy GPUs spent in it: 4,096 x 0.9 = 3,686.4 GPU-h x $2 = $7,372.80 (33.3
    # debits a second x 3,600 x $0.06144 gives the same). All 4,096 GPUs: $8,192.
    check("gpu-credit-system", "hour-replayed", 4096 * 0.9 * 2, wrong=(4096 * 2, 120_000))


def test_job_scheduler_fifty_microseconds():
    # 100,000 pending x 50 us = 5 s a scan (10 us: 1 s; the index: 64 x 50 us = 3.2 ms).
    check("job-scheduler-100k-jobs", "fifty-microsecond-check", 100_000 * 50e-6, wrong=(1, 0.0032))


def test_job_scheduler_ten_thousand_with_the_index():
    # 10,000 decisions x (64 candidates x 10 us = 0.64 ms) = 6.4 s; by scan, 10,000 x 1 s = 10,000 s.
    check("job-scheduler-100k-jobs", "ten-thousand-at-once", 10_000 * 64 * 10e-6, wrong=(10_000, 0.64))


def test_artifacts_slower_nics():
    # One copy: 141.1 GB x 8 / 25 Gb/s = 45.2 s, now slower than the 28.2 s disk write: the fan-out takes
    # 3 x 45.2 = 135.5 s (at 100 Gb/s the disk bound it: 3 x 28.2 = 84.7 s).
    check("model-artifact-distribution", "slower-nics", 3 * 141.107e9 * 8 / 25e9, wrong=(84.7, 45.2))


def test_artifacts_bigger_origin():
    # 1,000 nodes x 141.1 GB = 141.1 TB x 8 / 400 Gb/s = 2,822 s = 47.0 min (40 Gb/s: 470 min).
    check("model-artifact-distribution", "bigger-origin-only", 141.107e12 * 8 / 400e9 / 60, wrong=(470, 1.4))


def test_playground_socket_per_tab():
    # 500,000 daily users x 64 KiB (65,536 B) = 32.8 GB; the 2,170 streams actually in flight: 0.142 GB.
    check(
        "public-playground", "socket-per-tab", 500_000 * 65_536 / 1e9, wrong=(0.142, 500_000 * 64e3 * 8 / 1e9)
    )


def test_playground_front_page():
    # Triple the users: 3 x 173.6 = 520.8 req/s; decode 520.8 x 12 s / 64 = 97.66, prefill 520.8 x 500 /
    # 28,035 = 9.29; 106.95 / 0.7 = 152.8 -> 153 replicas wanted, 32 allowed: 1 - 32/153 = 79.1% shed
    # (today: 37.3%).
    wanted = math.ceil((3 * 173.611 * 12 / 64 + 3 * 173.611 * 500 / 28_035) / 0.7)
    check("public-playground", "front-page", 100 * (1 - 32 / wanted), wrong=(37.3, 66.7))


def test_fair_share_longer_half_life():
    # A week at a 14-day half-life: 2^(-7/14) = 70.7% still counted (7-day half-life: 50%).
    check("research-cluster-fair-share", "longer-half-life", 100 * 2 ** (-7 / 14), wrong=(50, 100))


def test_fair_share_burst_yesterday():
    # Decayed total 2,048 x 7 / ln 2 = 20,682 GPU-days; the 512 x 5 = 2,560 GPU-day burst a day old keeps
    # 2^(-1/7) = 0.9057: 2,318.6. u_B = 0.25 + 2,318.6 / 20,682 = 0.3621; f_B = 2^(-0.3621 / 0.25) = 0.3665
    # (a week old: 0.4212).
    decayed = 2560 * 2 ** (-1 / 7)
    usage = 0.25 + decayed / (2048 * 7 / math.log(2))
    check("research-cluster-fair-share", "burst-yesterday", 2 ** (-usage / 0.25), wrong=(0.4212, 0.5))


def test_fair_share_ignored_preemption():
    # 512 GPUs x (half the 30-minute interval + a 5-minute restart) = 512 x 20 min = 170.7 GPU-h (with a
    # checkpoint on the signal: 512 x 6 min = 51.2).
    check("research-cluster-fair-share", "ignores-preemption", 512 * 20 / 60, wrong=(51.2, 512 * 35 / 60))


def test_billing_cancelled_streams():
    # 1,000 req/s x 2,592,000 s x $0.0075 = $19.44M a month; 5% cancelled: $972,000.
    check(
        "usage-billing-pipeline", "count-at-engine", 1000 * 2_592_000 * 0.0075 * 0.05, wrong=(19.44e6, 19_440)
    )


def test_billing_six_hour_replay():
    # Of six hours replayed, the one-hour window catches the last: 5 h x 3,600 s x 1,000 events x $0.0075 =
    # $135,000 billed twice (all six hours: $162,000).
    check("usage-billing-pipeline", "six-hour-replay", 5 * 3600 * 1000 * 0.0075, wrong=(162_000, 27_000))


def test_moe_rack_total_or_active():
    # 1.04e12 total / 3.26e10 active = 31.9 times the compute per token.
    check("moe-serving-on-a-rack", "which-trillion", 1.04e12 / 3.26e10, wrong=(1, 8, 72))


def test_moe_rack_kv_at_16k():
    # 64 sequences a GPU x 16,384 tokens x (1,152 B x 61 layers = 70,272 B) = 73.7 GB / 8 TB/s = 9.21 ms
    # (16,000 tokens: 9.00 ms; at 4,096: 2.30 ms).
    check("moe-serving-on-a-rack", "context-16k-step", 64 * 16_384 * 70_272 / 8e12 * 1e3, wrong=(2.30, 7.16))
    check("moe-serving-on-a-rack", "context-16k-step", 64 * 16_000 * 70_272 / 8e12 * 1e3)


def test_moe_dense_trillion_training_days():
    # 6 x 1.04e12 x 1.55e13 tokens = 9.67e25 FLOP / (2,048 x 989e12 x 0.3 = 6.08e17 FLOP/s) = 1.59e8 s =
    # 1,842 days (MoE: 57.7 days).
    days = 6 * 1.04e12 * 1.55e13 / (2048 * 989e12 * 0.3) / 86_400
    check("moe-total-or-active", "dense-trillion", days, wrong=(57.7, 57.7 * 8))


def test_moe_state_on_nvl72():
    # 1.04e12 x 16 B = 16.64 TB / 186 GB = 89.5 -> 90 GPUs (on 80 GB H100s: 208).
    check("moe-total-or-active", "nvl72-state", math.ceil(16.64e12 / 186e9), wrong=(208, 72))


def test_lora_rank_64_everywhere():
    # Per layer, rank x (in + out) over q (8,192 + 8,192), k and v (8,192 + 1,024 each), o (8,192 + 8,192),
    # gate and up (8,192 + 28,672 each) and down (28,672 + 8,192): 161,792 x 64 x 80 layers = 828.4M params
    # x 2 B = 1.657 GB. Scaling the rank-8 attention-only 32.8 MB by 8 gives 0.262 GB.
    per_layer = (8192 + 8192) * 2 + (8192 + 1024) * 2 + (8192 + 28_672) * 3
    check("multi-lora-serving", "rank-64-everywhere", per_layer * 64 * 80 * 2 / 1e9, wrong=(0.262, 0.0328))


def test_lora_heavy_variant():
    # 25 req/s / (4.39 req/s x 0.7) = 8.1 -> 9 merged replicas; still paying the LoRA efficiency 0.8: 25 /
    # 2.458 = 10.2 -> 11. One replica, or the whole shared pool of 41, would be wrong.
    check("multi-lora-serving", "heavy-variant", math.ceil(25 / (4.39 * 0.7)), wrong=(1, 41))
    check("multi-lora-serving", "heavy-variant", math.ceil(25 / (4.39 * 0.8 * 0.7)))


def test_lora_cold_adapter_fetch():
    # Rank 8 on q, k, v, o: 8 x (2 x 8,192 + 8,192 + 1,024) x 80 = 16.4M params x 2 B = 32.8 MB / 500 MB/s =
    # 65.5 ms (the PCIe copy at 25 GB/s: 1.3 ms).
    check(
        "multi-lora-serving", "cold-adapter", 8 * (3 * 8192 + 1024) * 80 * 2 / 500e6 * 1e3, wrong=(1.31, 655)
    )


def test_observability_labels_fixed_per_gpu():
    # 10,000 GPUs x 30 fields = 300,000 series; a GPU has one region and serves one version at a time, so the
    # two labels do not multiply them (multiplying would give 300,000 x 20 x 5 = 3e7).
    check("inference-observability", "more-labels", 10_000 * 30, wrong=(10_000 * 30 * 100, 3e8))


def test_multi_provider_primary_at_eighty():
    # 50 req/s x 0.8 = 40 req/s x 2,000 tok x 60 s = 4.8M tok/min (at 60%: 3.6M; the limit today: 2M).
    check("multi-provider-gateway", "primary-eighty", 50 * 0.8 * 2000 * 60, wrong=(3.6e6, 2e6))


def test_pretraining_vocab_128k():
    # 15e12 tokens x 4 B = 60 TB (2-byte ids: 30 TB; 3-byte packing: 45 TB).
    check("pretraining-data-pipeline", "vocab-128k", 15e12 * 4 / 1e12, wrong=(30, 45))


def test_pretraining_crawl_100x():
    # 60 TB clean x 100 = 6 PB / two weeks (1,209,600 s) = 4.96 GB/s / (50 MB/s x 0.75) = 132.3 -> 133
    # (50x: 67).
    check("pretraining-data-pipeline", "crawl-100x", math.ceil(6e15 / 1_209_600 / 37.5e6), wrong=(67, 265))


def test_pretraining_spot_fleet_lost():
    # The 3 PB now in ten days: 3e15 / 864,000 s = 3.47 GB/s / 37.5 MB/s = 92.6 -> 93 (fourteen days: 67).
    check("pretraining-data-pipeline", "spot-fleet-lost", math.ceil(3e15 / 864_000 / 37.5e6), wrong=(67, 70))


def test_ten_thousand_radix_128():
    # 10,240 GPUs: leaves 10,240 / (128 / 2) = 160, spines 160, core 10,240 / 128 / 2 = 40: 360 (DOMAIN.md
    # counts 160 + 160 + 80 = 400 with a fuller core). Radix 64: 720.
    check("ten-thousand-gpu-cluster", "radix-128", 2 * 160 + 40, wrong=(720, 160))
    check("ten-thousand-gpu-cluster", "radix-128", 160 + 160 + 80)


def test_ten_thousand_trillion_checkpoint():
    # 1e12 x 12 B = 12 TB / 60 s = 200 GB/s (405B: 81 GB/s).
    check(
        "ten-thousand-gpu-cluster", "trillion-dense-bill", 1e12 * 12 / 60 / 1e9, wrong=(81, 12_000 / 60 * 8)
    )


def test_ten_thousand_firmware_spares():
    # 2 x 4.74e-4 per GPU-day x 10,000 GPUs x 3 repair days x 2 nodes a failure = 56.9 -> 57 (usual rate: 29).
    check(
        "ten-thousand-gpu-cluster",
        "firmware-failures",
        math.ceil(2 * 4.74e-4 * 10_000 * 3 * 2),
        wrong=(29, 114),
    )


def test_disaster_recovery_four_hour_rto():
    # 8,000 GPUs x $2 x 4 h = $64,000 (one hour: $16,000).
    check("training-disaster-recovery", "cost-of-rto", 8000 * 2 * 4, wrong=(16_000, 8000 * 4))


def test_disaster_recovery_link_25g():
    # 5 TB x 8 / 25 Gb/s = 1,600 s = 26.7 min; RPO 30 + 26.7 = 56.7 min (at 100 Gb/s: 36.7 min).
    check("training-disaster-recovery", "link-25g", 30 + 5e12 * 8 / 25e9 / 60, wrong=(36.7, 30))


def test_disaster_recovery_stale_offsite():
    # Nine hours of 8,000 GPUs = 72,000 GPU-h redone (the planned RPO, 36.7 min: 4,889).
    check("training-disaster-recovery", "stale-offsite", 9 * 8000, wrong=(4889, 9 * 1000))


def test_cluster_review_first_week():
    # 1,024 GPUs x 4.74e-4 per GPU-day x 7 days = 3.4 failures.
    check("training-cluster-review", "measure-failure-rate", 1024 * 4.74e-4 * 7, wrong=(0.49, 7))


def test_cluster_review_best_interval():
    # MTBF 1 / (1,024 x 4.74e-4) days = 49.45 h; stall 1.12 TB / 2 GB/s = 560 s; sqrt(2 x 560 s x 49.45 h x
    # 3,600) = 14,120 s = 3.92 h (the daily checkpoint: 24 h).
    mtbf_s = 86_400 / (1024 * 4.74e-4)
    check("training-cluster-review", "best-interval", math.sqrt(2 * 560 * mtbf_s) / 3600, wrong=(24, 0.5))


def test_eight_gpu_review_allreduce_share():
    # TP8 over two servers at batch 201: each of 160 all-reduces takes 30 us + 201 x 32,768 B / 12.5 GB/s =
    # 556.9 us: 89.1 ms. The memory term: (141.1 GB + 201 x 2.064 GB) / (8 x 2.345 TB/s) = 29.6 ms. 89.1 /
    # 118.7 = 75.0% (the weight read alone, 141.1 GB / 18.76 TB/s = 7.5 ms, is 6%).
    comm = 160 * (30e-6 + 201 * 32_768 / 12.5e9)
    memory = (141.1e9 + 201 * (6000 + 300) * 327_680) / (8 * 2.345e12)
    check("eight-gpu-design-review", "fp8-instead", 100 * comm / (comm + memory), wrong=(6.3, 25, 50))


def test_eight_gpu_review_server_fails():
    # Six servers for 5 req/s at 0.695 s of replica time each: with one lost, 5 x 0.695 / 5 = 69.5% (before:
    # 57.9%).
    replica_s = 6000 / (4 * 3504) + 600 * (141.1e9 + 67 * 6300 * 327_680) / (4 * 2.345e12) / 67
    check("eight-gpu-design-review", "server-fails-after-fixes", 100 * 5 * replica_s / 5, wrong=(57.9, 100))


def test_gateway_review_kv_batch():
    # (80 GB x 0.9 - 16 GB) = 56 GB / 131,072 B = 427,246 tokens / (2,000 + 300) = 185.8 -> 185 (the
    # configured 256 does not fit).
    check("gateway-fallback-review", "best-batch", (80e9 * 0.9 - 16e9) / 131_072 // 2300, wrong=(256, 96))


def test_gateway_review_both_down():
    # With the fallback down too, all 40 req/s fail (with it up, 40 - 6 = 34 are rejected).
    check("gateway-fallback-review", "both-down", 40, wrong=(34, 6))


def test_gpu_cloud_three_strikes_stall():
    # 3 x 60 s to detect + 60 s drain + 300 s replace = 540 s x 512 GPUs = 76.8 GPU-h (one strike: 59.7).
    check(
        "gpu-cloud-provisioning",
        "three-strikes",
        512 * (3 * 60 + 60 + 300) / 3600,
        wrong=(59.7, 512 * 180 / 3600),
    )


def test_gpu_cloud_failures_triple():
    # 32,000 GPUs x 4.74e-4 x 3 = 45.5 failures a day x 3 repair days = 136.5 nodes in repair (usual: 45.5;
    # the pool: 92).
    check("gpu-cloud-provisioning", "failures-triple", 32_000 * 4.74e-4 * 3 * 3, wrong=(45.5, 92))


def test_plan_agent_mode_prefill():
    # 3,000 users / (20 + 10.5 s) = 98.36 req/s x (0.5 x 2,000 + 0.5 x 16,000 = 9,000 tok) = 885,246 tok/s /
    # 28,035 = 31.6 replicas of prefill (all at 2,000: 7.0).
    rate = 3000 / (20 + 0.5 + 250 * 0.04)
    check(
        "forty-five-minute-plan",
        "agent-mode-prompts",
        rate * 9000 / 28_035,
        wrong=(7.0, rate * 16_000 / 28_035),
    )


def test_one_fleet_flatter_trough():
    # Mean demand 1,024 x (1 + 0.6) / 2 = 819.2 GPUs; the ramp 1,024 x 0.4 / 6 h = 68.3 GPU/h x 130 s = 2.5
    # GPUs; lendable 1,228.8 - 819.2 x 1.2 - 2.5 = 243.3 (at a 35% trough: 395.4).
    ramp = 1024 * 0.4 / 6 * 130 / 3600
    check(
        "training-and-inference-one-fleet",
        "flatter-trough",
        1228.8 - 819.2 * 1.2 - ramp,
        wrong=(395.4, 537.6),
    )


def test_one_fleet_ten_second_cold_start():
    # 15 s detect + 45 s checkpoint + 10 s load = 70 s, above the 43.2 s the SLO allows per burst (70 s start:
    # 130 s).
    check("training-and-inference-one-fleet", "ten-second-cold-start", 15 + 45 + 10, wrong=(130, 10, 43.2))


def test_one_fleet_burst_while_lent():
    # 300 GPUs x (45 s checkpoint + 5 min restart) = 300 x 345 s = 28.75 GPU-h (killed without a checkpoint:
    # 300 x (15 + 5) min = 100).
    check(
        "training-and-inference-one-fleet", "burst-while-lent", 300 * 345 / 3600, wrong=(100, 300 * 45 / 3600)
    )


def test_video_720p():
    # Tokens 21 x 45 x 80 = 75,600 (480p: 21 x 30 x 52 = 32,760). A pass: 2 x 14e9 x tokens + 819,200 x
    # tokens^2: 6.80e15 against 1.796e15 FLOP, 3.78x; the pixels alone grow 921,600 / 399,360 = 2.31x.
    def pass_flops(tokens):
        return 2 * 14e9 * tokens + 819_200 * tokens**2

    check(
        "video-generation-serving", "seven-twenty-p", pass_flops(75_600) / pass_flops(32_760), wrong=(2.31,)
    )


def test_video_distilled_eight_steps():
    # Denoising 45.41 s x 8 / 40 / 2 (no guidance pass) = 4.54 s + 10 s post = 14.54 s x 8 GPUs x $2/h =
    # $0.0646 (40 steps with guidance: $0.246).
    check(
        "video-generation-serving", "eight-steps-distilled", (45.411 / 10 + 10) * 8 * 2 / 3600, wrong=(0.246,)
    )


def test_video_node_dies_at_step_35():
    # 35 of 40 steps done: 45.41 s x 35 / 40 = 39.7 s x 8 GPUs x $2/h = $0.177 (the whole video: $0.246).
    check(
        "video-generation-serving", "node-dies-step-35", 45.411 * 35 / 40 * 8 * 2 / 3600, wrong=(0.246, 0.03)
    )


def test_a_band_that_follows_a_quantity_holds_that_quantity_at_the_defaults():
    from grading.core.model import ReferenceModel
    from grading.core.question_export import spec_to_dict
    from grading.core.units import from_base
    from tests.core.test_grader_bank import BANK

    followed = 0
    for slug in sorted(path.stem for path in BANK.glob("*.yaml")):
        spec = question(slug)
        values = ReferenceModel.from_dict(spec_to_dict(spec)["model"]).evaluate()
        for item in spec.decisions:
            if item.number is not None and item.number.follows:
                followed += 1
                low, high = item.number.band
                shown = float(from_base(values[item.number.follows], item.number.unit))
                assert low <= shown <= high, (slug, item.id, shown)
    assert followed >= 20


def test_kv_cache_tiering_recompute_share_follows_the_variants_return_rate():
    # At 0.25 returns a second (default 0.2) the share is 0.25 x (1.368 s - 24.6 ms) = 33.6%: the band
    # 25-30% at the defaults, times 0.25 / 0.2, is 31.25-37.5%, and holds it.
    from grading.core.grader import grade

    spec = question("kv-cache-tiering")
    answers = {"follow_ups": {"dram-tier-empty": {"order": [], "number": "33.6%"}}}
    report = grade(
        spec, {"numbers": {}, "design": {"nodes": []}, "depth": answers}, overrides={"return_rate": 0.25}
    )
    number = next(item for item in report["depth"]["follow_ups"] if item["id"] == "dram-tier-empty")["number"]
    assert number["band"] == pytest.approx([31.25, 37.5])
    assert number["credit"] == 1.0


def test_usage_billing_revenue_at_stake_reads_per_month():
    # The label says "a month": $970k and $970k/month are both 970,000 USD, inside 950k-1M.
    from grading.core.depth import decision_report

    item = next(i for i in question("usage-billing-pipeline").decisions if i.id == "count-at-engine")
    for typed in ("$970k", "$970k/month", "970,000 USD"):
        assert decision_report(item, [], typed)["number"]["credit"] == 1.0, typed
