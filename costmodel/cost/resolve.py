"""Derive what the scenario leaves out, check what it states against the measurements, and decide what
can be priced.

:func:`finalize` runs after loading and again after measurements are applied (from the scenario as stated,
``Scenario.base``). It

- derives ``training.run_hours`` from ``training.epochs_per_run`` (or the reverse) with the dataset's
  sample count and the steady throughput: ``T = E * w*S / thr / 3600 + n'/R * L / 3600`` (epochs x samples
  an epoch reads / samples per second, plus the warm-up lost per run), and checks them against each
  other when both are stated;
- derives ``cache.cold_starts_per_month`` from ``cache.persistence`` (``per_run``: one per run;
  ``per_cluster``: one per new cluster, ``training.cluster_launches_per_month``, else one per run;
  ``persistent``: one over the horizon, ``1/M``);
- bounds the warm-up by the link: a cold epoch cannot take less than ``W*8/bw`` seconds, so at least
  ``max(0, W*8/bw - w*S/thr)`` cluster-seconds are lost per cold start; the copy time of the replica is at
  least ``D*8/bw/3600`` hours; a stated value below a bound is raised to it (with a warning);
- checks cache capacity against the working set (re-reads are hits when ``C >= W``; else the warm hit ratio
  is at most ``C/W``) and refuses a cache smaller than one batch;
- looks up the optional prices (path processing, inter-zone, requests) and marks an option
  ``not_priced`` with the reason when a term that applies has no price, or when ``wait`` has no inputs.

Each check is one entry of ``consistency``: ``{check, keys, stated, implied, severity, message}`` with
severity ``ok`` (within 10 %), ``derived`` (one side omitted and computed), ``info`` or ``warning``.
Raises :class:`~costmodel.foundation.errors.ScenarioError` (exit 2) for contradictions that cannot be resolved.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from .resolve_ctx import Ctx
from .resolve_data import (
    bytes_basis,
    capacity,
    checkpoints,
    dataset_size,
    filesystem,
    mechanism,
    objects,
    persistent_nvme,
    retention,
)
from .resolve_prices import inter_az, path, requests, wait
from .resolve_time import cold_starts, link_bounds, run_hours
from .spec import PARAM_BY_KEY

#: Cost inputs that default to 0 when omitted, each a term of the bill: a warning names the ones left out.
ZERO_DEFAULTS = {
    "cache.usd_per_month": "cache_usd: the cache's nodes, file system or licence",
    "replica.ops_usd_per_month": "ops_usd: replication tooling and monitoring",
    "wait.cluster_premium_usd_per_hour": "gpu_premium_usd: a dearer cluster in the data region",
}


def finalize(sc: Any) -> Any:
    """The scenario with derived values, consistency checks, optional prices and priced flags (see the
    module docstring). ``sc`` is the scenario as stated (``base``); raises ScenarioError."""
    base = sc
    c = Ctx(sc)
    dataset_size(c)
    objects(c)
    cold_starts(c)
    run_hours(c)
    mechanism(c)
    L_before = c.values.get("cache.warmup_lost_s")
    link_bounds(c)
    if c.values.get("cache.warmup_lost_s") != L_before and \
            str(c.prov.get("training.run_hours", {}).get("source", "")).startswith("derived"):
        del c.values["training.run_hours"]
        c.consistency = [x for x in c.consistency if x["check"] != "run_hours"]
        run_hours(c)
    for name, key in (("_samples", "dataset.samples"), ("_samples_per_s", "training.samples_per_s"),
                      ("_bw_gbps", "link.bandwidth_gbps")):
        v = c.settings.get(key)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            c.internal[name] = float(v)
    capacity(c)
    checkpoints(c)
    persistent_nvme(c)
    filesystem(c)
    bytes_basis(c)
    retention(c)
    path(c)
    inter_az(c)
    requests(c)
    wait(c)
    for param in PARAM_BY_KEY.values():
        if param.model and param.key not in c.values and param.default is not None and param.key not in c.missing:
            c.values[param.key] = float(param.default)
            c.prov[param.key] = {"value": float(param.default), "source": "default"}
    zero = [k for k, what in ZERO_DEFAULTS.items()
            if str(c.prov.get(k, {}).get("source", "")) == "default" and c.values.get(k) == 0
            and not (k.startswith("wait.") and "wait" in c.not_priced)]
    if zero:
        c.warnings.append(
            "not given, priced at 0: " + "; ".join(f"{k} ({ZERO_DEFAULTS[k]})" for k in zero)
            + ". State them (0 is a valid statement) if they are not free")
    not_priced = {o: "; ".join(r) for o, r in c.not_priced.items()}
    for o, reason in not_priced.items():
        c.warnings.append(f"{o} is not priced: {reason}")
    return replace(
        sc,
        values=c.values,
        provenance=c.prov,
        settings=c.settings,
        warnings=c.warnings,
        prices_used=c.prices_used,
        missing=c.missing,
        internal=c.internal,
        consistency=c.consistency,
        not_priced=not_priced,
        term_notes=c.notes,
        base=base,
    )
