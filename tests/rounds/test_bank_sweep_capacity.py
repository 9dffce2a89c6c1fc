"""`manage.py bank_sweep --capacity` writes the audit's table rows (docs/bank-audit.md)."""

from io import StringIO

from django.core.management import call_command


def test_it_writes_a_table_row_with_the_rate_the_band_and_the_verdict():
    out = StringIO()
    call_command(
        "bank_sweep", "two-region-failover", "ttft-200ms-p99", "--capacity", "--seeds", "2", stdout=out
    )
    rows = [line for line in out.getvalue().splitlines() if line.startswith("| ")]
    assert rows[0].startswith("| question | scenario")
    # two-region-failover: 1 / (2,000 / 28,035 + 10 s / 64) = 4.39 req/s a replica, asked within 20% (x40).
    measured = next(row for row in rows if row.startswith("| two-region-failover |"))
    assert "| 4.39 req/s |" in measured and "`region_capacity` within 20%" in measured
    assert measured.endswith("| within band |")
    assert any(row.startswith("| ttft-200ms-p99 |") and "not measured" in row for row in rows)
    assert out.getvalue().rstrip().endswith("0 rate(s) outside the band")
