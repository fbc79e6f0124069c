"""Seeded block-access traces: which samples a job reads in which order, expanded to cache blocks.

The dataset's samples are packed in order into ``files`` files, each file starting on a block
boundary, so a sample covers ``ceil``-many contiguous blocks and neighbouring samples may share one.
Access patterns (per run; every run gets its own seed):

- ``sequential``: samples 0..S-1 in order, every epoch;
- ``shuffled``: a fresh uniform permutation every epoch;
- ``shard_shuffle``: files in a fresh random order every epoch, samples shuffled inside each file;
- ``single_pass``: each sample once, in random order;
- ``zipf``: samples drawn independently with popularity ∝ 1/rank^s (ranks randomly assigned);
  an "epoch" is S draws.

Costs: O(K) memory and time for K samples read (O(K log K) for ``shard_shuffle``), plus O(S) for
``zipf`` and for datasets with varying sample sizes (the sizes are materialised).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..foundation.errors import SimulateError
from ..foundation.util import is_seed
from .workload import Workload

#: Largest dataset (samples) for which per-sample arrays are materialised (zipf, varying sizes).
MAX_MATERIALISED_SAMPLES = 20_000_000


def check_seed(seed: object) -> int:
    """``seed`` as a non-negative int (what ``numpy.random.default_rng`` accepts); SimulateError otherwise."""
    if not is_seed(seed):
        raise SimulateError(f"seed: expected a whole number >= 0, got {seed!r}", key="seed")
    return int(seed)


@dataclass
class Layout:
    """Where each sample lives, in blocks. Sample ``i`` covers blocks ``[start(i), start(i)+count(i))``."""

    samples: int
    files: int
    block_bytes: int
    total_blocks: int
    _sizes: np.ndarray | None  # per-sample bytes when they vary
    _starts: np.ndarray | None  # per-sample first block when materialised
    _counts: np.ndarray | None
    _const_bytes: int
    _file_block_start: np.ndarray | None  # first block of each file (constant sizes)

    def blocks_of(self, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """First block and block count of each sample in ``ids`` (int64 arrays)."""
        if self._starts is not None:
            return self._starts[ids], self._counts[ids]  # type: ignore[index]
        S, F, B, sz = self.samples, self.files, self.block_bytes, self._const_bytes
        ids = ids.astype(np.int64, copy=False)
        f = (ids * F) // S
        first = (f * S + F - 1) // F
        k = ids - first
        base = self._file_block_start[f]  # type: ignore[index]
        start = base + (k * sz) // B
        end = base + ((k + 1) * sz + B - 1) // B
        return start, end - start

    def bytes_of(self, ids: np.ndarray) -> np.ndarray:
        """Bytes of each sample in ``ids``."""
        if self._sizes is not None:
            return self._sizes[ids].astype(np.float64)
        return np.full(len(ids), float(self._const_bytes))


def build_layout(w: Workload, seed: int = 0) -> Layout:
    """Lay the dataset out in blocks (deterministic in ``seed`` when sample sizes vary).

    Raises SimulateError for a seed that is not a whole number >= 0."""
    seed = check_seed(seed)
    d = w.dataset
    S, F, B = int(d.samples), int(d.files), int(d.block_bytes)
    if d.sample_bytes_sigma > 0:
        if S > MAX_MATERIALISED_SAMPLES:
            raise SimulateError(
                f"workload.dataset.sample_bytes_sigma: varying sample sizes need at most "
                f"{MAX_MATERIALISED_SAMPLES:,} samples, got {S:,}; use sample_bytes_sigma: 0 (equal sizes)",
                key="workload.dataset.sample_bytes_sigma")
        rng = np.random.default_rng([seed, 7])
        sig = d.sample_bytes_sigma
        sizes = np.maximum(1, np.rint(d.sample_bytes * np.exp(sig * rng.standard_normal(S) - sig * sig / 2)))
        sizes = sizes.astype(np.int64)
        file_of = (np.arange(S, dtype=np.int64) * F) // S
        cum = np.cumsum(sizes)
        file_first = np.searchsorted(file_of, np.arange(F), side="left")
        file_base_bytes = np.where(file_first > 0, cum[np.maximum(file_first - 1, 0)], 0)
        off = cum - sizes - file_base_bytes[file_of]
        ends_in_file = off + sizes
        file_bytes = np.zeros(F, dtype=np.int64)
        np.maximum.at(file_bytes, file_of, ends_in_file)
        file_blocks = (file_bytes + B - 1) // B
        fstart = np.concatenate([[0], np.cumsum(file_blocks)[:-1]])
        starts = fstart[file_of] + off // B
        counts = fstart[file_of] + (ends_in_file + B - 1) // B - starts
        return Layout(S, F, B, int(file_blocks.sum()), sizes, starts, counts, 0, None)
    sz = int(round(d.sample_bytes))
    if F > MAX_MATERIALISED_SAMPLES and F != S:
        raise SimulateError(f"workload.dataset.files: at most {MAX_MATERIALISED_SAMPLES:,} files "
                            f"(or one file per sample), got {F:,}", key="workload.dataset.files")
    if F == S:
        per = (sz + B - 1) // B
        return Layout(S, F, B, S * per, None, None, None, sz, _Affine(per))  # type: ignore[arg-type]
    f = np.arange(F + 1, dtype=np.int64)
    first = (f * S + F - 1) // F
    n_in_file = np.diff(first)
    file_blocks = (n_in_file * sz + B - 1) // B
    fstart = np.concatenate([[0], np.cumsum(file_blocks)[:-1]]).astype(np.int64)
    return Layout(S, F, B, int(file_blocks.sum()), None, None, None, sz, fstart)


class _Affine:
    """``a[f] = f * per`` without materialising ``a`` (one sample per file)."""

    def __init__(self, per: int) -> None:
        self.per = per

    def __getitem__(self, idx: np.ndarray) -> np.ndarray:
        return np.asarray(idx, dtype=np.int64) * self.per


def _prefix_permutation(rng: np.random.Generator, n: int, k: int) -> np.ndarray:
    """The first ``k`` elements of a uniform random permutation of ``range(n)``."""
    if k >= n or n <= 4 * k:
        return rng.permutation(n)[:k].astype(np.int64)
    return rng.choice(n, size=k, replace=False, shuffle=True).astype(np.int64)


def _shard_epoch(rng: np.random.Generator, S: int, F: int, k: int) -> np.ndarray:
    """First ``k`` samples of an epoch that visits files in random order, shuffled inside each file."""
    order = rng.permutation(F).astype(np.int64)
    f = np.arange(F + 1, dtype=np.int64)
    first = (f * S + F - 1) // F
    n_in = np.diff(first)[order]
    need = int(np.searchsorted(np.cumsum(n_in), k, side="left")) + 1
    chosen = order[:need]
    counts = n_in[:need]
    starts = first[chosen]
    total = int(counts.sum())
    rep_start = np.repeat(starts, counts)
    within = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)
    ids = rep_start + within
    group = np.repeat(np.arange(need), counts)
    perm = np.lexsort((rng.random(total), group))
    return ids[perm][:k]


def sample_order(w: Workload, k: int, seed: int, run: int = 0) -> np.ndarray:
    """The first ``k`` sample ids read by run ``run`` (int64). Deterministic in ``(seed, run)``.
    Raises SimulateError for a seed that is not a whole number >= 0."""
    seed = check_seed(seed)
    S = int(w.dataset.samples)
    F = int(w.dataset.files)
    rng = np.random.default_rng([seed, run, 11])
    pat = w.access.pattern
    if pat == "zipf":
        if S > MAX_MATERIALISED_SAMPLES:
            raise SimulateError(f"workload.dataset.samples: pattern zipf needs at most "
                                f"{MAX_MATERIALISED_SAMPLES:,} samples, got {S:,}", key="workload.dataset.samples")
        weights = np.arange(1, S + 1, dtype=np.float64) ** (-w.access.zipf_exponent)
        cdf = np.cumsum(weights)
        cdf /= cdf[-1]
        ranks = np.searchsorted(cdf, rng.random(k), side="right")
        ranks = np.minimum(ranks, S - 1)
        rank_to_sample = np.random.default_rng([seed, 13]).permutation(S)  # popularity fixed across runs
        return rank_to_sample[ranks].astype(np.int64)
    parts: list[np.ndarray] = []
    left = k
    while left > 0:
        take = min(left, S)
        if pat == "sequential":
            parts.append(np.arange(take, dtype=np.int64))
        elif pat in ("shuffled", "single_pass"):
            parts.append(_prefix_permutation(rng, S, take))
        elif pat == "shard_shuffle":
            parts.append(_shard_epoch(rng, S, F, take))
        else:  # pragma: no cover - validated in workload.py
            raise SimulateError(f"workload.access.pattern: unknown {pat!r}", key="workload.access.pattern")
        left -= take
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


@dataclass
class RunTrace:
    """One run's demand trace: the samples in read order and their blocks.

    ``sample_ids[j]`` is the j-th sample read, covering ``block_counts[j]`` consecutive entries of
    ``blocks`` (the block accesses in order). ``steps_simulated`` whole steps; ``truncated`` when the run
    has more steps than were simulated.
    """

    sample_ids: np.ndarray
    sample_bytes: np.ndarray
    blocks: np.ndarray
    block_counts: np.ndarray
    samples_per_step: int
    steps_simulated: int
    truncated: bool

    @property
    def sample_first_access(self) -> np.ndarray:
        """Index in ``blocks`` of each sample's first block access."""
        return np.concatenate([[0], np.cumsum(self.block_counts)[:-1]]).astype(np.int64)

    @property
    def step_start(self) -> np.ndarray:
        """Index in ``blocks`` where each step starts, plus the end (length ``steps_simulated + 1``)."""
        edges = np.concatenate([[0], np.cumsum(self.block_counts)]).astype(np.int64)
        idx = np.minimum(np.arange(self.steps_simulated + 1) * self.samples_per_step, len(self.block_counts))
        return edges[idx]

    @property
    def access_sample(self) -> np.ndarray:
        """The sample index j of each block access (materialised on demand)."""
        return np.repeat(np.arange(len(self.block_counts), dtype=np.int64), self.block_counts)

    @property
    def access_step(self) -> np.ndarray:
        return self.access_sample // self.samples_per_step


def _expand(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """``starts[i], starts[i] + 1, ..., starts[i] + counts[i] - 1`` for every ``i``, concatenated (int64): each
    sample's consecutive blocks. Vectorised: the start repeated per block plus the block's place in its sample."""
    total = int(counts.sum())
    if total == 0:
        return np.empty(0, dtype=np.int64)
    ends = np.cumsum(counts)
    out = np.arange(total, dtype=np.int64)
    out += np.repeat(starts - (ends - counts), counts)
    return out


def expand_blocks(starts: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Expand per-sample (first block, count) into the block access sequence and its owner index."""
    blocks = _expand(np.ascontiguousarray(starts, dtype=np.int64), np.ascontiguousarray(counts, dtype=np.int64))
    owner = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
    return blocks, owner


def steps_to_simulate(w: Workload, layout: Layout) -> tuple[int, bool]:
    """How many steps of each run to simulate (limits in ``workload.simulation``) and whether that truncates."""
    steps = w.steps_per_run
    limit = steps
    if w.simulation.max_steps is not None:
        limit = min(limit, w.simulation.max_steps)
    mean_blocks = math.ceil(w.dataset.sample_bytes / w.dataset.block_bytes) + 1
    per_step = w.step.samples_per_step * mean_blocks
    cap = max(1, w.simulation.max_block_accesses // (per_step * w.simulation.runs))
    limit = min(limit, cap)
    return limit, limit < steps


def build_run_trace(w: Workload, layout: Layout, seed: int, run: int = 0) -> RunTrace:
    """Generate run ``run``'s demand trace (see :func:`sample_order`), cut to whole simulated steps."""
    steps, truncated = steps_to_simulate(w, layout)
    k = min(w.samples_per_run, steps * w.step.samples_per_step)
    ids = sample_order(w, k, seed, run)
    starts, counts = layout.blocks_of(ids)
    blocks = _expand(np.ascontiguousarray(starts, dtype=np.int64), np.ascontiguousarray(counts, dtype=np.int64))
    return RunTrace(ids, layout.bytes_of(ids), blocks, counts.astype(np.int64), w.step.samples_per_step,
                    math.ceil(k / w.step.samples_per_step), truncated)
