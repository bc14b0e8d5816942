"""The one paired bootstrap of courtbench: resamples, percentile interval and verdict.

Used by the paired-bootstrap metric module (its comparison of two systems' error), by the
leaderboard's record schema (``results_schema.paired_bootstrap``: the Space's pairwise
comparison and the paired tests of submitted records) and, through that metric module, by
the evaluation reports, so that the three never disagree.

- :func:`resample_indices` / :func:`bootstrap_replicates`: full-size resamples drawn from
  ``numpy.random.default_rng(seed)`` (replicate ``b`` uses the ``b``-th draw of
  ``rng.integers(0, n, size=n)``), in bounded-memory chunks;
- :func:`percentile_interval`: the ``alpha/2`` and ``1 − alpha/2`` percentiles (linear);
- :func:`interval_side`: which side of 0 an interval lies strictly on (a tie, an interval
  touching or containing 0, is "not significant": identical systems are never "better");
- :func:`compare_paired`: all of it for two systems' per-item values.

One source (``metrics/_shared/paired_bootstrap.py``) linked into that metric module's folder and
``courtbench/leaderboard/`` (and from there into the leaderboard Space); the wheel,
``courtbench metrics export``, ``courtbench publish`` and ``courtbench leaderboard space``
copy the file itself. It imports only numpy.
"""

import numpy as np

#: Most resamples :func:`compare_paired` accepts (a work parameter's cap: the replicates
#: take 8 bytes each; the paired-bootstrap metric module applies its own, documented caps).
MAX_RESAMPLES = 1_000_000
#: At most this many index-matrix elements are drawn at once: the index chunk (int64) and
#: the gathered values (float64) take 16 bytes per element, i.e. at most 64 MiB per chunk.
MAX_CHUNK_ELEMENTS = 1 << 22


def resample_indices(n, *, n_resamples, seed, max_chunk_elements=MAX_CHUNK_ELEMENTS):
    """Yield the bootstrap index matrix in row chunks of shape ``(rows, n)`` (int64).

    Rows are replicates in order. The concatenated rows equal
    ``[rng.integers(0, n, size=n) for _ in range(n_resamples)]`` with
    ``rng = numpy.random.default_rng(seed)``. A chunk holds at most ``max_chunk_elements``
    indices (at least one row).
    """
    rng = np.random.default_rng(seed)
    rows = max(1, min(n_resamples, max_chunk_elements // n))
    for start in range(0, n_resamples, rows):
        yield rng.integers(0, n, size=(min(rows, n_resamples - start), n))


def bootstrap_replicates(values, *, n_resamples, seed, max_chunk_elements=MAX_CHUNK_ELEMENTS):
    """Means of ``values`` (a 1-D float64 array of per-item statistics) over the resamples.

    Replicate ``b`` is ``values[idx_b].mean()`` with ``idx_b`` the ``b``-th row of
    :func:`resample_indices`. Memory beyond the inputs: ``16 · max_chunk_elements`` bytes
    plus ``8 · n_resamples``. Returns a float64 array of length ``n_resamples``.
    """
    replicates = np.empty(n_resamples)
    buffer = None
    done = 0
    for chunk in resample_indices(values.size, n_resamples=n_resamples, seed=seed,
                                  max_chunk_elements=max_chunk_elements):
        if buffer is None or buffer.shape != chunk.shape:
            buffer = np.empty(chunk.shape)
        # indices are always in [0, n): mode="clip" changes nothing but lets numpy write
        # into ``buffer`` directly (mode="raise" with ``out`` allocates a hidden copy)
        np.take(values, chunk, out=buffer, mode="clip")
        np.mean(buffer, axis=1, out=replicates[done:done + len(chunk)])
        done += len(chunk)
        del chunk  # free it before the next chunk is drawn
    return replicates


def percentile_interval(replicates, alpha):
    """``(low, high)``: the ``alpha/2`` and ``1 − alpha/2`` percentiles (linear interpolation)."""
    low, high = np.percentile(replicates, [100 * alpha / 2, 100 * (1 - alpha / 2)])
    return float(low), float(high)


def interval_side(ci_low, ci_high):
    """``"below"`` if the interval lies strictly below 0, ``"above"`` if strictly above, else
    ``None`` (not significant: an interval that touches or contains 0, e.g. ``[0, 0]`` of two
    identical systems)."""
    if ci_high < 0:
        return "below"
    if ci_low > 0:
        return "above"
    return None


def _is_integer_in(value, low, high):
    return not isinstance(value, bool) and isinstance(value, int) and low <= value <= high


def _check_options(n_resamples, seed, alpha):
    """ValueError naming the option: resamples an integer in [2, MAX_RESAMPLES], the seed an
    integer in [0, 2**32 - 1], 0 < alpha < 1."""
    if not _is_integer_in(n_resamples, 2, MAX_RESAMPLES):
        raise ValueError(f"n_resamples = {n_resamples!r}: expected an integer in "
                         f"[2, {MAX_RESAMPLES:,}]")
    if not _is_integer_in(seed, 0, 2**32 - 1):
        raise ValueError(f"seed = {seed!r}: expected an integer seed in [0, 2**32 - 1]")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha = {alpha!r}: expected a number strictly between 0 and 1")


def compare_paired(values_a, values_b, *, lower_is_better, n_resamples=1000, seed=12345,
                   alpha=0.05):
    """Paired bootstrap of the mean of per-item values: is system A better than B?

    Args:
        values_a, values_b: per-item values of the two systems on the same items, same order.
        lower_is_better: direction of the per-item value (absolute error: True).
        n_resamples: full-size resamples (2 to :data:`MAX_RESAMPLES`); seed: of
            ``numpy.random.default_rng``, an integer in [0, 2**32 - 1];
        alpha: two-sided level, 0 < alpha < 1.

    Returns:
        ``{"mean_a", "mean_b", "delta" (mean_a − mean_b), "ci_low", "ci_high" (percentile
        interval of Δ*), "p_a_better" / "p_b_better" (share of resamples where A / B is
        strictly better; ties count for neither), "verdict" ("A better", "B better" or
        "no significant difference": A is better only when the whole interval lies on A's
        side of 0), "n", "n_resamples", "seed", "alpha"}``.

    Raises:
        ValueError: different or zero lengths, non-finite values, or bad options.
    """
    a = np.asarray(values_a, dtype=np.float64)
    b = np.asarray(values_b, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1 or a.size == 0:
        raise ValueError(f"per-item values: lengths {a.size} and {b.size}; expected the same "
                         "non-zero length (systems scored on the same items)")
    for name, array in (("values_a", a), ("values_b", b)):
        if not np.isfinite(array).all():
            index = int(np.flatnonzero(~np.isfinite(array))[0])
            raise ValueError(f"{name}[{index}] = {array[index]!r}: expected a finite number")
    _check_options(n_resamples, seed, alpha)
    difference = a - b
    replicates = bootstrap_replicates(difference, n_resamples=n_resamples, seed=seed)
    low, high = percentile_interval(replicates, alpha)
    a_side, b_side = ("below", "above") if lower_is_better else ("above", "below")
    side = interval_side(low, high)
    verdict = {a_side: "A better", b_side: "B better"}.get(side, "no significant difference")
    a_wins = replicates < 0 if lower_is_better else replicates > 0
    b_wins = replicates > 0 if lower_is_better else replicates < 0
    return {"mean_a": float(a.mean()), "mean_b": float(b.mean()),
            "delta": float(difference.mean()), "ci_low": low, "ci_high": high,
            "p_a_better": float(a_wins.mean()), "p_b_better": float(b_wins.mean()),
            "verdict": verdict, "n": int(a.size), "n_resamples": int(n_resamples),
            "seed": seed, "alpha": alpha}
