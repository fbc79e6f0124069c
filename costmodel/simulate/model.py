"""From cache outcomes to a per-step Timeline: link, loader and compute.

For each step ``s`` of one run:

- requests: each sample's missing blocks are fetched from the origin in requests of at most
  ``link.request_bytes``; its cached blocks are read locally in requests of the same size;
- ``load_s = max(remote_s + local_s, link_s)`` where
  ``remote_s = ceil(remote_requests / C) * (rtt_s + origin_latency_s)`` with
  ``C = min(loader_workers, parallel_streams)`` requests in flight,
  ``local_s = ceil(local_requests / loader_workers) * local.read_latency_s + hit_bytes / local.read_bytes_per_s``,
  ``link_s = (demand-missed + prefetched bytes crossing the link) / bandwidth_bytes_per_s``;
- the loader prepares batches one after another and may run ``prefetch_depth`` batches ahead of training:
  batch ``s`` starts loading at ``max(L[s-1], S[s-D])`` (``D = prefetch_depth``; ``D = 0``: after step
  ``s-1`` ends) and is ready at ``L[s]``; step ``s`` starts at ``S[s] = max(E[s-1], L[s])`` and ends at
  ``E[s] = S[s] + compute_s`` (``compute_s`` times ``1 + cv * N(0,1)``, seeded).

``step_time_s = E[s] - E[s-1]``, ``data_wait_s = S[s] - E[s-1]``, ``gpu_util = compute / step_time``,
``read_latency_s`` is the mean latency over the step's requests, ``t_s = E[s]``.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .workload import Workload


def prefetch_in_time_fraction(w: Workload) -> float:
    """Share of the prefetcher's predictions that arrive before they are needed (closed form, stated).

    The prefetcher fetches one step's predicted samples (one request per ``link.request_bytes`` of
    each sample) over ``link.parallel_streams`` streams of its own, taking
    ``ceil(requests / streams) * (rtt + origin latency) + bytes_per_step / bandwidth``; it has
    ``lookahead_steps * compute_s`` seconds. The fraction is ``min(1, available / needed)``.
    """
    if w.cache.policy != "predictive":
        return 1.0
    per_sample = math.ceil(w.dataset.sample_bytes / max(w.link.request_bytes, w.dataset.block_bytes))
    reqs = w.step.samples_per_step * per_sample
    need = math.ceil(reqs / w.link.parallel_streams) * (w.link.rtt_s + w.link.origin_latency_s) + \
        w.bytes_per_step / w.link.bandwidth_bytes_per_s
    have = w.cache.prefetch.lookahead_steps * w.step.compute_s
    if need <= 0:
        return 1.0
    return float(min(1.0, have / need))


def step_io(w: Workload, hit: np.ndarray, block_counts: np.ndarray, sample_bytes: np.ndarray,
            prefetch_blocks_by_step: np.ndarray, steps: int) -> dict[str, np.ndarray]:
    """Per-step I/O counts of one run from its demand hits; sample j owns the next ``block_counts[j]``
    entries of ``hit`` (see the module docstring)."""
    B = w.dataset.block_bytes
    per_req = max(1, w.link.request_bytes // B)
    n_samples = len(sample_bytes)
    first = np.concatenate([[0], np.cumsum(block_counts)[:-1]]).astype(np.int64)
    hit_blocks = np.add.reduceat(hit.astype(np.int64), first).astype(np.float64) if n_samples else np.zeros(0)
    total_blocks = np.asarray(block_counts, dtype=np.float64)
    miss_blocks = total_blocks - hit_blocks
    remote_req = np.ceil(miss_blocks / per_req)
    local_req = np.ceil(hit_blocks / per_req)
    # bytes the job reads from each part: split the sample's bytes in proportion to its blocks
    share_hit = np.divide(hit_blocks, total_blocks, out=np.zeros(n_samples), where=total_blocks > 0)
    hit_bytes = sample_bytes * share_hit
    step_of = np.arange(n_samples) // w.step.samples_per_step

    def per_step(x: np.ndarray) -> np.ndarray:
        return np.bincount(step_of, weights=x, minlength=steps)[:steps]

    pf = np.zeros(steps)
    pf[: min(steps, len(prefetch_blocks_by_step))] = prefetch_blocks_by_step[:steps]
    return {
        "samples": per_step(np.ones(n_samples)),
        "bytes_read": per_step(sample_bytes),
        "hit_bytes": per_step(hit_bytes),
        "hit_blocks": per_step(hit_blocks),
        "blocks": per_step(total_blocks),
        "remote_req": per_step(remote_req),
        "local_req": per_step(local_req),
        "link_bytes": (per_step(miss_blocks) + pf) * B,
        "cross_region_bytes": (per_step(miss_blocks) + pf) * B,
    }


def colocated_io(io: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The same steps read next to the data: every block from the origin storage, nothing crosses regions."""
    out = dict(io)
    out["remote_req"] = io["remote_req"] + io["local_req"]
    out["local_req"] = np.zeros_like(io["local_req"])
    out["hit_bytes"] = np.zeros_like(io["hit_bytes"])
    out["hit_blocks"] = np.zeros_like(io["hit_blocks"])
    out["link_bytes"] = io["bytes_read"]
    out["cross_region_bytes"] = np.zeros_like(io["bytes_read"])
    return out


def step_timeline(w: Workload, io: dict[str, np.ndarray], *, rtt_s: float | None = None,
                  seed: int = 0, run: int = 0) -> pd.DataFrame:
    """Timing of each step (see the module docstring) as Timeline columns (without run_id/role)."""
    steps = len(io["samples"])
    rtt = w.link.rtt_s if rtt_s is None else rtt_s
    conc = min(w.step.loader_workers, w.link.parallel_streams)
    lat_remote = rtt + w.link.origin_latency_s
    remote_s = np.ceil(io["remote_req"] / conc) * lat_remote
    local_s = np.ceil(io["local_req"] / w.step.loader_workers) * w.local.read_latency_s + \
        io["hit_bytes"] / w.local.read_bytes_per_s
    link_s = io["link_bytes"] / w.link.bandwidth_bytes_per_s
    load_s = np.maximum(remote_s + local_s, link_s)
    rng = np.random.default_rng([seed, run, 23])
    comp = np.full(steps, float(w.step.compute_s))
    if w.step.compute_cv > 0:
        comp = np.maximum(0.0, comp * (1.0 + w.step.compute_cv * rng.standard_normal(steps)))
    # a partial last step computes proportionally less
    comp = comp * io["samples"] / w.step.samples_per_step
    D = w.step.prefetch_depth
    L = np.zeros(steps)
    S = np.zeros(steps)
    E = np.zeros(steps)
    load = load_s.tolist()
    c = comp.tolist()
    prev_L = 0.0
    prev_E = 0.0
    for s in range(steps):
        start = max(prev_L, prev_E) if D == 0 else max(prev_L, S[s - D] if s - D >= 0 else 0.0)
        L[s] = prev_L = start + load[s]
        S[s] = max(prev_E, L[s])
        E[s] = prev_E = S[s] + c[s]
    E_prev = np.concatenate([[0.0], E[:-1]])
    step_time = E - E_prev
    wait = S - E_prev
    reqs = io["remote_req"] + io["local_req"]
    lat_sum = io["remote_req"] * lat_remote + io["local_req"] * w.local.read_latency_s
    with np.errstate(invalid="ignore", divide="ignore"):
        latency = np.where(reqs > 0, lat_sum / np.maximum(reqs, 1), np.nan)
        hit_ratio = np.where(io["blocks"] > 0, io["hit_blocks"] / np.maximum(io["blocks"], 1), np.nan)
        pos = step_time > 0
        sps = np.where(pos, io["samples"] / np.where(pos, step_time, 1), np.nan)
        rbps = np.where(pos, io["bytes_read"] / np.where(pos, step_time, 1), np.nan)
        iops = np.where(pos, reqs / np.where(pos, step_time, 1), np.nan)
        util = np.where(pos, np.clip(comp / np.where(pos, step_time, 1), 0, 1), np.nan)
    return pd.DataFrame({
        "step": np.arange(steps, dtype=np.int64),
        "t_s": E,
        "samples_per_s": sps,
        "step_time_s": step_time,
        "read_bytes_per_s": rbps,
        "read_iops": iops,
        "read_latency_s": latency,
        "gpu_util": util,
        "data_wait_s": wait,
        "cache_hit_ratio": hit_ratio,
        "bytes_read": io["bytes_read"],
        "cross_region_bytes": io["cross_region_bytes"],
        "samples": io["samples"],
    })
