"""Erlang C in the formula language (grading/core/erlang.py), checked against values derived by hand and
against the textbook sum formula written out here, never against the function's own output."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grading.core.formula import FormulaError, parse_formula
from grading.core.units import parse_unit


def evaluate(source: str, **env: float | np.ndarray):
    return parse_formula(source).evaluate(env)


def textbook_wait_probability(servers: int, rho: float) -> float:
    """C(c, a) = [a^c/c! · c/(c − a)] / [Σ_{k<c} a^k/k! + a^c/c! · c/(c − a)], in logs so large c fits."""
    a = servers * rho
    log_terms = [k * math.log(a) - math.lgamma(k + 1) for k in range(servers)]
    log_last = servers * math.log(a) - math.lgamma(servers + 1) + math.log(servers / (servers - a))
    top = max(*log_terms, log_last)
    below = sum(math.exp(term - top) for term in log_terms)
    last = math.exp(log_last - top)
    return last / (below + last)


def textbook_wait_tail(servers: int, rho: float, service: float, t: float) -> float:
    """P(Wq > t) = C · exp(−(cμ − λ)·t) with μ = 1/service and λ = c·ρ·μ."""
    return textbook_wait_probability(servers, rho) * math.exp(-servers * (1 - rho) * t / service)


def test_one_server_waits_with_the_probability_of_its_utilisation():
    # M/M/1: an arrival waits exactly when the server is busy, P(wait) = rho.
    assert evaluate("erlang_c(1, rho)", rho=0.5) == pytest.approx(0.5, rel=1e-12)
    assert evaluate("erlang_c(1, rho)", rho=0.3) == pytest.approx(0.3, rel=1e-12)


def test_two_servers_wait_with_two_rho_squared_over_one_plus_rho():
    # M/M/2 by hand: B(2, a) = (a²/2)/(1 + a + a²/2), C = B/(1 − rho(1 − B)) = 2 rho² / (1 + rho).
    # rho 0.5 (a = 1): B = 0.5/2.5 = 0.2, C = 0.2/0.6 = 1/3.
    assert evaluate("erlang_c(2, 0.5)") == pytest.approx(1 / 3, rel=1e-12)
    assert evaluate("erlang_c(2, rho)", rho=0.9) == pytest.approx(2 * 0.81 / 1.9, rel=1e-12)


@pytest.mark.parametrize(("servers", "rho"), [(8, 0.55), (32, 0.84), (100, 0.95), (1000, 0.99)])
def test_the_recursion_agrees_with_the_textbook_sum_even_where_factorials_overflow(servers, rho):
    # 1000! overflows a float; the log-space sum above and the Erlang B recursion must still agree.
    assert evaluate("erlang_c(c, rho)", c=servers, rho=rho) == pytest.approx(
        textbook_wait_probability(servers, rho), rel=1e-9
    )


def test_an_unstable_queue_always_waits_and_an_idle_one_never_does():
    assert evaluate("erlang_c(8, 1)") == 1.0
    assert evaluate("erlang_c(8, 1.5)") == 1.0
    assert evaluate("erlang_c(8, 0)") == 0.0


def test_the_domain_table_s_single_server_p99_wait_gives_back_its_utilisation():
    # DOMAIN.md §3: c = 1, lambda 0.5, mu 1: Wq p99 = ln(C / 0.01) / (mu - lambda) = ln(50) / 0.5 = 7.824 s.
    budget = math.log(50) / 0.5
    result = evaluate("erlang_c_rho_quantile(1, s, t, 0.99)", s=1.0, t=budget)
    assert result == pytest.approx(0.5, abs=1e-9)


def test_the_p99_inverse_at_one_server_solves_rho_times_the_tail_by_hand():
    # rho 0.8, S = 1 s: 0.8 e^(-0.2 t) = 0.01 gives t = ln(80) / 0.2 = 21.91 s.
    assert evaluate(
        "erlang_c_rho_quantile(1, s, t, q)", s=1.0, t=math.log(80) / 0.2, q=0.99
    ) == pytest.approx(0.8, abs=1e-9)


def test_the_mean_wait_inverse_matches_the_closed_forms_for_one_and_two_servers():
    # M/M/1: Wq = rho S / (1 - rho) = t gives rho = t / (S + t): S = 1, t = 3 -> 0.75.
    assert evaluate("erlang_c_rho_mean(1, s, t)", s=1.0, t=3.0) == pytest.approx(0.75, abs=1e-9)
    # M/M/2: Wq = C S / (2 (1 - rho)) = rho² S / (1 - rho²) = t: rho = sqrt(tau / (1 + tau)), tau = t / S.
    assert evaluate("erlang_c_rho_mean(2, s, t)", s=0.08, t=0.08) == pytest.approx(math.sqrt(0.5), abs=1e-9)


@pytest.mark.parametrize(("servers", "budget_ms"), [(8, 30.0), (8, 50.0), (32, 30.0), (32, 50.0)])
def test_the_p99_inverse_sits_where_the_textbook_tail_crosses_one_percent(servers, budget_ms):
    rho = evaluate("erlang_c_rho_quantile(c, s, t, 0.99)", c=servers, s=0.080, t=budget_ms / 1000)
    assert textbook_wait_tail(servers, rho, 80.0, budget_ms) == pytest.approx(0.01, rel=1e-6)
    assert textbook_wait_tail(servers, rho + 1e-4, 80.0, budget_ms) > 0.01


def test_the_ttft_pools_limits_at_50_ms_are_the_ones_the_bank_used_to_quote():
    # The bank's former constants (Erlang C, 80 ms service, 50 ms p99 wait): 0.551 for 8, 0.839 for 32.
    assert evaluate("erlang_c_rho_quantile(8, 0.08, 0.05, 0.99)") == pytest.approx(0.551, abs=5e-4)
    assert evaluate("erlang_c_rho_quantile(32, 0.08, 0.05, 0.99)") == pytest.approx(0.839, abs=5e-4)


def test_arrays_give_what_each_element_gives_alone():
    servers = np.array([1.0, 2.0, 8.0, 8.0])
    budgets = np.array([3.0, 1.0, 0.03, 0.05])
    together = evaluate("erlang_c_rho_mean(c, 1, t)", c=servers, t=budgets)
    alone = [evaluate("erlang_c_rho_mean(c, 1, t)", c=c, t=t) for c, t in zip(servers, budgets, strict=True)]
    assert together == pytest.approx(alone, abs=1e-12)
    assert together[0] == pytest.approx(0.75, abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(
    servers=st.integers(1, 64),
    budget=st.floats(0.001, 10.0),
    more=st.floats(1.01, 3.0),
)
def test_more_servers_or_more_budget_never_lower_the_limit(servers, budget, more):
    limit = evaluate("erlang_c_rho_quantile(c, 1, t, 0.99)", c=servers, t=budget)
    assert 0 <= limit < 1
    assert evaluate("erlang_c_rho_quantile(c, 1, t, 0.99)", c=servers + 1, t=budget) >= limit - 1e-12
    assert evaluate("erlang_c_rho_quantile(c, 1, t, 0.99)", c=servers, t=budget * more) >= limit - 1e-12


@pytest.mark.parametrize(
    "source",
    [
        "erlang_c(2.5, 0.5)",  # servers are whole
        "erlang_c(0, 0.5)",
        "erlang_c(8, -0.1)",
        "erlang_c(20000, 0.5)",  # beyond the 10,000 servers the recursion is allowed to walk
        "erlang_c_rho_quantile(8, 0.08, 0.03, 1)",  # the 100th percentile of an exponential tail is infinite
        "erlang_c_rho_quantile(8, 0, 0.03, 0.99)",
        "erlang_c_rho_mean(8, 0.08, -1)",
    ],
)
def test_an_argument_outside_its_domain_is_refused_as_not_finite(source):
    with pytest.raises(FormulaError, match="not finite"):
        evaluate(source)


def test_a_server_count_read_through_a_unit_factor_is_still_whole():
    assert evaluate("erlang_c(c, 0.5)", c=2 * (1 + 1e-12)) == pytest.approx(1 / 3, rel=1e-9)


def test_times_must_be_times_and_the_result_is_a_plain_number():
    dims = {name: parse_unit(unit).dims for name, unit in {"c": "GPU", "s": "ms", "t": "s", "q": ""}.items()}
    assert parse_formula("erlang_c_rho_quantile(c, s, t, q)").dims(dims).is_dimensionless
    dims["t"] = parse_unit("GB").dims
    with pytest.raises(FormulaError, match="needs a time as argument 3, got B"):
        parse_formula("erlang_c_rho_quantile(c, s, t, q)").dims(dims)
    dims["c"] = parse_unit("s").dims
    with pytest.raises(FormulaError, match="plain number or a count as argument 1"):
        parse_formula("erlang_c(c, q)").dims(dims)


def test_it_takes_exactly_its_arguments():
    with pytest.raises(FormulaError, match="takes 4 arguments, got 3"):
        parse_formula("erlang_c_rho_quantile(8, 0.08, 0.03)")
