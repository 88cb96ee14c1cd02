"""Coverage of graphbench.stats.intervals.median_interval in simulation.

Prints, for every model, series length and level: the fraction of series
whose interval misses the true median below and above, the fraction that
are invalid, and the median width relative to the order-statistic interval
(the exact order-statistic interval, exact only for independent rounds).

    python tests/calibration.py [replications]
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's graphbench

LENGTHS = (10, 20, 30, 45, 60, 100, 150)
LEVELS = (0.95, 0.99)


def _ar1(rng, rows, n, rho, innovations=None):
    """Stationary AR(1) with unit marginal variance (Gaussian); t innovations burn in."""
    noise = innovations if innovations is not None else rng.standard_normal((rows, n))
    scale = np.sqrt(1 - rho * rho)
    out = np.empty((rows, n))
    state = rng.standard_normal(rows) if innovations is None else np.zeros(rows)
    if innovations is not None:
        for _ in range(int(50 / (1 - rho))):
            state = rho * state + scale * rng.standard_t(3, rows)
    for i in range(n):
        state = rho * state + scale * noise[:, i] if i or innovations is not None else state
        out[:, i] = state
    return out


def _markov(rng, rows, n, slow):
    """Two states, 30% of the time slow, mean slow phase 10 rounds; 1% noise in each."""
    leave_slow = 0.1
    enter_slow = 0.3 * leave_slow / 0.7
    state = rng.random(rows) < 0.3
    out = np.empty((rows, n))
    for i in range(n):
        if i:
            u = rng.random(rows)
            state = np.where(state, u >= leave_slow, u < enter_slow)
        level = np.where(state, 10 * slow, 10.0)
        out[:, i] = level * (1 + 0.01 * rng.standard_normal(rows))
    return out


def _ab(rng, rows, n, rho):
    """Candidate / base per round: a shared AR(1) drift (rho 0.9, sd 5%), and an
    unshared AR(1) part each (rho `rho`, sd 1%); the candidate is 2% slower."""
    drift = 0.05 * _ar1(rng, rows, n, 0.9)
    base = 10 * (1 + drift + 0.01 * _ar1(rng, rows, n, rho))
    cand = 10.2 * (1 + drift + 0.01 * _ar1(rng, rows, n, rho))
    return cand / base


def _outliers(rng, rows, n):
    x = 10 + 0.3 * rng.standard_normal((rows, n))
    hit = rng.random((rows, n)) < 0.02
    return np.where(hit, 3 * x, x)


def _outlier_median():
    from scipy import optimize, stats
    f = lambda m: 0.98 * stats.norm.cdf(m, 10, 0.3) + 0.02 * stats.norm.cdf(m, 30, 0.9) - 0.5
    return optimize.brentq(f, 9, 11)


def _markov_median(slow):
    from scipy import optimize, stats
    f = lambda m: (0.7 * stats.norm.cdf(m, 10, 0.1)
                   + 0.3 * stats.norm.cdf(m, 10 * slow, 0.1 * slow) - 0.5)
    return optimize.brentq(f, 9, 10 * slow + 1)


def models():
    """name -> (simulate(rng, rows, n), true median). Medians are analytic: every
    AR(1) marginal is symmetric about its mean, and the A/B ratio's median is 1.02
    because swapping the two unshared parts turns the ratio into 1.02^2 / ratio."""
    out = {
        "iid normal": (lambda g, r, n: 10 + 0.3 * g.standard_normal((r, n)), 10.0),
        "iid t3": (lambda g, r, n: 10 + 0.2 * g.standard_t(3, (r, n)), 10.0),
        "iid lognormal": (lambda g, r, n: 10 * np.exp(0.5 * g.standard_normal((r, n))), 10.0),
        "iid 2% outliers 3x": (_outliers, _outlier_median()),
    }
    for rho in (0.0, 0.25, 0.5, 0.7, 0.9):
        out[f"AR(1) rho {rho}"] = (lambda g, r, n, rho=rho: 10 + 0.3 * _ar1(g, r, n, rho), 10.0)
    out["AR(1) rho 0.7 t3"] = (
        lambda g, r, n: 10 + 0.2 * _ar1(g, r, n, 0.7, g.standard_t(3, (r, n))), 10.0)
    for slow in (2.0, 1.2):
        out[f"slow phase {slow}x"] = (lambda g, r, n, s=slow: _markov(g, r, n, s),
                                      _markov_median(slow))
    for rho in (0.5, 0.9):
        out[f"A/B unshared rho {rho}"] = (lambda g, r, n, rho=rho: _ab(g, r, n, rho), 1.02)
    return out


def median_ci_rank(n: int, confidence: float) -> int:
    """The 0-based rank j of the exact order-statistic interval [x(j), x(n-1-j)]
    of the median for independent rounds (the reference width)."""
    from scipy import stats

    j = int(stats.binom.ppf((1 - confidence) / 2, n, 0.5))
    while j > 0 and 2 * stats.binom.cdf(j - 1, n, 0.5) > 1 - confidence:
        j -= 1
    return max(0, j - 1) if 2 * stats.binom.cdf(j, n, 0.5) > 1 - confidence else j


def order_statistic_widths(matrix, confidence):
    ordered = np.sort(matrix, axis=1)
    j = median_ci_rank(matrix.shape[1], confidence)
    return ordered[:, -1 - j] - ordered[:, j]


def shares_phases(name: str) -> bool:
    """A/B ratios: both sides of a pair are timed in the same host phase."""
    return name.startswith("A/B")


def evaluate(simulate, truth, rows, seed, lengths=LENGTHS, levels=LEVELS, shared_phases=False):
    """{(n, level): (miss below, miss above, invalid, width ratio)} on prefixes of one set of series."""
    from graphbench.stats.intervals import _median_intervals
    series = simulate(np.random.default_rng(seed), rows, max(lengths))
    result = {}
    for n in lengths:
        part = series[:, :n]
        for level in levels:
            _, low, high, _, _, valid = _median_intervals(part, level, shared_phases)
            width = (high - low)[valid] / order_statistic_widths(part[valid], level)
            ratio = float(np.median(width[np.isfinite(width)])) if valid.any() else np.inf
            result[n, level] = (float(np.mean(valid & (truth < low))),
                                float(np.mean(valid & (truth > high))), float(np.mean(~valid)), ratio)
    return result


def main(rows=4000):
    print(f"{'model':24} {'n':>4} {'level':>5} {'cover':>6} {'below':>6} {'above':>6} "
          f"{'c|val':>6} {'invalid':>7} {'width':>6}")
    for seed, (name, (simulate, truth)) in enumerate(models().items()):
        found = evaluate(simulate, truth, rows, seed, shared_phases=shares_phases(name))
        for (n, level), (below, above, invalid, ratio) in found.items():
            cover = 1 - below - above
            given_valid = 1 - (below + above) / (1 - invalid) if invalid < 1 else float("nan")
            print(f"{name:24} {n:4d} {level:5.2f} {cover:6.3f} {below:6.3f} {above:6.3f} "
                  f"{given_valid:6.3f} {invalid:7.3f} {ratio:6.2f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 4000)
