"""Derived model inputs that follow their (possibly drawn) sources, as resolve derives them at the point values.

:func:`follow_inputs` recomputes, where the :class:`~costmodel.cost.inputs.Follow` mode says so:

- ``t_epoch = w*S/thr`` s (or ``T*3600/E`` when only both of those are stated);
- ``cache.warmup_lost_s``: derived ``L = max(0, W*8/bw - t_epoch)``; stated or measured (``BOUNDED``): raised to
  that bound where it is more than 10 % below it;
- ``replica.copy_hours``: derived ``Tc = D*8/bw/3600``; stated: raised to it where more than 10 % below;
- ``training.run_hours``: derived ``T = E*t_epoch/3600 + min(n, max(R, E*R))/R * L/3600``;
- ``training.epochs_per_run``: derived ``E = max(0, (T - n/R*L/3600) * 3600 / t_epoch)``.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .bytes_model import cold_starts
from .inputs import Follow, ModelInputs, is_nan, known

BOUND_TOLERANCE = 0.10  # a stated value more than 10 % below a link bound is raised to it (resolve.TOLERANCE)


def copy_rate(bw: Any, mech: Any) -> Any:
    """Gbit/s of the initial copy: the link's, or the replication mechanism's when that is slower."""
    if is_nan(mech):
        return bw
    return np.minimum(bw, mech)


def _stated(stated_before: Any, value: Any) -> Any:
    """The value stated before resolve raised it to a bound (``value`` when it was not raised)."""
    return value if is_nan(stated_before) else stated_before


def follow_inputs(i: ModelInputs) -> ModelInputs:
    """``i`` with its derived values recomputed from their sources (see the module docstring); ``i`` itself
    when nothing follows."""
    fw, fc, ft, fe = i.follow_warmup, i.follow_copy_hours, i.follow_run_hours, i.follow_epochs
    if not (fw or fc or ft or fe):
        return i
    D = i.dataset_size_gb
    w = i.dataset_working_set_fraction
    S, thr, bw = i.samples, i.samples_per_s, i.bw_gbps
    has_thr = known(S) and known(thr)
    has_bw = known(bw)
    ep = None
    if has_thr:
        ep = w * S / thr
    elif i.epoch_from_run:
        # an epoch as long as run_hours / epochs_per_run; no epoch (E = 0 on a break-even grid): unbounded
        E0 = np.asarray(i.training_epochs_per_run, dtype=float)
        ep = np.where(E0 > 0, i.training_run_hours * 3600.0 / np.where(E0 > 0, E0, 1.0), np.inf)
    changes: dict[str, Any] = {}
    L = i.cache_warmup_lost_s
    if fw and has_bw and ep is not None:
        bound = np.maximum(0.0, w * D * 8.0 / bw - ep)
        Ls = _stated(i.warmup_stated, L)
        L = bound if fw is Follow.DERIVED else np.where(Ls < bound * (1 - BOUND_TOLERANCE), bound, Ls)
        changes["cache_warmup_lost_s"] = L
    if fc and has_bw:
        bound = D * 8.0 / copy_rate(bw, i.copy_gbps) / 3600.0
        Tc = _stated(i.copy_hours_stated, i.replica_copy_hours)
        changes["replica_copy_hours"] = bound if fc is Follow.DERIVED else \
            np.where(Tc < bound * (1 - BOUND_TOLERANCE), bound, Tc)
    R = i.training_runs_per_month
    safe_R = np.where(R > 0, R, 1.0)
    if ft and has_thr and ep is not None:  # has_thr: ep = w*S/thr is set
        E = i.training_epochs_per_run
        fills = np.minimum(cold_starts(i), np.maximum(R, E * R))
        changes["training_run_hours"] = E * ep / 3600.0 + np.where(R > 0, fills / safe_R * L / 3600.0, 0.0)
    elif fe and has_thr and ep is not None:
        T = i.training_run_hours
        warm = np.where(R > 0, cold_starts(i) / safe_R * L / 3600.0, 0.0)
        changes["training_epochs_per_run"] = np.maximum(0.0, (T - warm) * 3600.0 / ep)
    return i.with_(**changes)
