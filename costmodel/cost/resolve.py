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

import math
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Literal

from ..foundation.errors import PriceError, ScenarioError
from ..prices.billing import lookup_tiers, price_entry, row_warning, tier_bounds, usd_per_count, usd_per_decimal_gb
from .model import DAYS_PER_MONTH
from .spec import PARAM_BY_KEY

if TYPE_CHECKING:
    from ..prices.catalog import PriceTable

TOLERANCE = 0.10  # stated and implied more than 10 % apart: a warning
HOURS_PER_MONTH = 365.25 * 24 / 12  # 730.5

#: Cost inputs that default to 0 when omitted, each a term of the bill: a warning names the ones left out.
ZERO_DEFAULTS = {
    "cache.usd_per_month": "cache_usd: the cache's nodes, file system or licence",
    "replica.ops_usd_per_month": "ops_usd: replication tooling and monitoring",
    "wait.cluster_premium_usd_per_hour": "gpu_premium_usd: a dearer cluster in the data region",
}

PATH_ITEMS = {
    "nat_gateway": "nat_gateway_processing",
    "transit_gateway": "transit_gateway_processing",
    "privatelink": "privatelink_processing",
}


def _fmt(x: float) -> str:
    return f"{x:,.6g}"


class _Ctx:
    def __init__(self, sc: Any) -> None:
        self.sc = sc
        self.values = dict(sc.values)
        self.prov = {k: dict(v) for k, v in sc.provenance.items()}
        self.settings = dict(sc.settings)
        self.warnings = list(sc.warnings)
        self.prices_used = list(sc.prices_used)
        self.missing = list(sc.missing)
        self.internal = dict(sc.internal)
        self.consistency: list[dict[str, Any]] = []
        self.not_priced: dict[str, list[str]] = {}
        self.notes: dict[str, dict[str, str]] = {}
        self._table: PriceTable | Literal[False] | None = None  # False: the catalog could not be loaded

    # -- helpers
    def stated(self, key: str) -> bool:
        src = str(self.prov.get(key, {}).get("source", ""))
        return key in self.values and src != "default" and not src.startswith("derived")

    def num(self, key: str) -> float | None:
        if key in self.values:
            return self.values[key]
        v = self.settings.get(key)
        return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None

    def derive(self, key: str, value: float, how: str) -> None:
        self.values[key] = float(value)
        self.prov[key] = {"value": float(value), "source": f"derived: {how}"}
        if key in self.missing:
            self.missing.remove(key)

    def check(self, check: str, keys: list[str], stated: Any, implied: Any, severity: str, message: str) -> None:
        self.consistency.append({"check": check, "keys": keys, "stated": stated, "implied": implied,
                                 "severity": severity, "message": message})
        if severity == "warning":
            self.warnings.append(f"{' vs '.join(keys)}: {message}")

    def unpriced(self, option: str, reason: str) -> None:
        self.not_priced.setdefault(option, []).append(reason)

    def note(self, option: str, term: str, why: str) -> None:
        self.notes.setdefault(option, {})[term] = why

    def table(self) -> PriceTable | None:
        if self._table is None:
            from ..prices.catalog import load_prices

            try:
                self._table = load_prices(self.sc.prices_dir)
            except PriceError:
                self._table = False
        return self._table or None


def finalize(sc: Any) -> Any:
    """The scenario with derived values, consistency checks, optional prices and priced flags (see the
    module docstring). ``sc`` is the scenario as stated (``base``); raises ScenarioError."""
    base = sc
    c = _Ctx(sc)
    _dataset_size(c)
    _objects(c)
    _cold_starts(c)
    _run_hours(c)
    _mechanism(c)
    L_before = c.values.get("cache.warmup_lost_s")
    _link_bounds(c)
    if c.values.get("cache.warmup_lost_s") != L_before and \
            str(c.prov.get("training.run_hours", {}).get("source", "")).startswith("derived"):
        del c.values["training.run_hours"]
        c.consistency = [x for x in c.consistency if x["check"] != "run_hours"]
        _run_hours(c)
    for name, key in (("_samples", "dataset.samples"), ("_samples_per_s", "training.samples_per_s"),
                      ("_bw_gbps", "link.bandwidth_gbps")):
        v = c.settings.get(key)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            c.internal[name] = float(v)
    _capacity(c)
    _checkpoints(c)
    _persistent_nvme(c)
    _filesystem(c)
    _bytes_basis(c)
    _retention(c)
    _path(c)
    _inter_az(c)
    _requests(c)
    _wait(c)
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


# ------------------------------------------------------------------------------------------ checks
def _objects(c: _Ctx) -> None:
    D = c.values["dataset.size_gb"]
    mb = c.settings.get("dataset.mean_object_size_mb")
    implied = D * 1e3 / mb if mb else None
    if c.stated("dataset.objects"):
        O = c.values["dataset.objects"]
        if implied is not None:
            far = abs(O - implied) > TOLERANCE * implied
            c.check("object_count", ["dataset.objects", "dataset.mean_object_size_mb"], O, implied,
                    "warning" if far else "ok",
                    f"{_fmt(O)} objects of {D:g} GB are {D * 1e3 / O if O else math.inf:,.4g} MB each, not "
                    f"{mb:g} MB; requests are counted from dataset.objects" if far else "consistent")
        return
    if implied is not None:
        c.derive("dataset.objects", implied, f"dataset.size_gb x 1000 / dataset.mean_object_size_mb = {_fmt(implied)}")
        c.check("object_count", ["dataset.objects", "dataset.mean_object_size_mb"], None, implied, "derived",
                f"{_fmt(implied)} objects of {mb:g} MB")
        return
    c.values["dataset.objects"] = 0.0
    c.prov["dataset.objects"] = {"value": 0.0, "source": "default"}
    why = ("request charges not counted: give dataset.objects or dataset.mean_object_size_mb (GETs, PUTs and "
           "batch replication are per object, not per byte)")
    c.note("cross_region", "requests_usd", why)
    c.note("replicate", "requests_usd", why)
    c.warnings.append(f"requests_usd: {why}")


def _cold_starts(c: _Ctx) -> None:
    key = "cache.cold_starts_per_month"
    pers = c.settings.get("cache.persistence")
    c.internal["_cache_persistent"] = 1.0 if pers == "persistent" else 0.0
    c.internal["_cache_shared"] = 1.0 if c.settings.get("cache.shared") else 0.0
    R = c.values["training.runs_per_month"]
    M = c.values["horizon_months"]
    implied = None
    how = ""
    follows_runs = False
    if pers == "per_run":
        implied, how, follows_runs = R, "cache.persistence = per_run: one cold start per run", True
    elif pers == "per_cluster":
        launches = c.settings.get("training.cluster_launches_per_month")
        if launches is not None:
            implied, how = float(launches), "cache.persistence = per_cluster: one per training.cluster_launches_per_month"
        else:
            implied, how, follows_runs = R, ("cache.persistence = per_cluster and no training.cluster_launches_per_month: "
                                             "a new cluster (empty instance store) per run"), True
    elif pers == "persistent":
        implied, how = 1.0 / M, "cache.persistence = persistent: one cold fill over the horizon (1 / horizon_months)"
    if key in c.values:
        if implied is not None:
            n = c.values[key]
            far = abs(n - implied) > TOLERANCE * max(implied, 1e-12)
            c.check("cold_starts", [key, "cache.persistence"], n, implied, "warning" if far else "ok",
                    f"{pers} implies {_fmt(implied)} cold starts/month ({how}); the stated {n:g} is charged" if far
                    else "consistent")
        return
    if implied is None:
        raise ScenarioError(
            f"missing; expected {PARAM_BY_KEY[key].expected()}, or cache.persistence (persistent | per_cluster | "
            "per_run) to derive it", key=key)
    c.derive(key, implied, how)
    if follows_runs:
        c.internal["_cold_starts_per_run"] = 1.0
    c.check("cold_starts", [key, "cache.persistence"], None, implied, "derived", how)


def _epoch_s(c: _Ctx) -> float | None:
    """Seconds one epoch takes at the steady throughput: w * samples / samples_per_s (None when unknown)."""
    S = c.settings.get("dataset.samples")
    thr = c.settings.get("training.samples_per_s")
    if not S or not thr:
        return None
    return c.values.get("dataset.working_set_fraction", 1.0) * S / thr


def _warm_h_per_run(c: _Ctx, E: float | None) -> float:
    L = c.values.get("cache.warmup_lost_s")
    R = c.values["training.runs_per_month"]
    n = c.values.get("cache.cold_starts_per_month", 0.0)
    if L is None or R <= 0:
        return 0.0
    fills = min(n, max(R, E * R)) if E is not None else n  # warm-ups paid: one per cold start, at most per run or epoch
    return fills / R * L / 3600.0


def _run_hours(c: _Ctx) -> None:
    tk, ek = "training.run_hours", "training.epochs_per_run"
    ep = _epoch_s(c)
    R = c.values["training.runs_per_month"]
    has_t, has_e = tk in c.values, ek in c.values
    keys = [tk, ek, "dataset.samples", "training.samples_per_s"]
    if has_t and has_e:
        if ep is not None:
            E, T = c.values[ek], c.values[tk]
            implied = E * ep / 3600.0 + _warm_h_per_run(c, E)
            far = abs(T - implied) > TOLERANCE * max(implied, 1e-12)
            feasible_e = max(0.0, (T - _warm_h_per_run(c, E)) * 3600.0 / ep)
            c.check("run_hours", keys, T, implied, "warning" if far else "ok",
                    f"{E:g} epochs of {ep / 3600.0:,.4g} h at the steady throughput take {implied:,.4g} h per run, "
                    f"not {T:g} h ({T:g} h hold {feasible_e:.3g} epochs); the stated values are charged" if far
                    else "consistent")
        else:
            c.check("run_hours", keys, c.values[tk], None, "info",
                    "not checked: give dataset.samples and training.samples_per_s (or --from-compare) to check "
                    "run_hours against epochs_per_run x samples / throughput")
    elif has_e and not has_t:
        if ep is None:
            if tk not in c.missing:
                c.missing.append(tk)
        else:
            E = c.values[ek]
            T = E * ep / 3600.0 + _warm_h_per_run(c, E)
            c.derive(tk, T, f"{E:g} epochs x {ep / 3600.0:,.6g} h per epoch (samples / samples_per_s) + warm-up")
            c.internal["_follow_run_hours"] = 1.0
            c.check("run_hours", keys, None, T, "derived", f"{T:,.4g} h per run")
    elif has_t and not has_e:
        if ep is None:
            if ek not in c.missing:
                c.missing.append(ek)
        else:
            T = c.values[tk]
            warm = _warm_h_per_run(c, None)
            E = (T - warm) * 3600.0 / ep
            if E <= 0:
                raise ScenarioError(
                    f"implied epochs per run = (training.run_hours {T:g} h - warm-up {warm:.4g} h) x samples_per_s / "
                    f"samples = {E:.4g}; expected a run longer than its warm-up", key=ek)
            c.derive(ek, E, f"(run_hours - warm-up) x samples_per_s / samples = {E:.6g}")
            c.internal["_follow_epochs"] = 1.0
            c.check("run_hours", keys, None, E, "derived", f"{E:.4g} epochs per run fit in {T:g} h")
    else:
        for k in (tk, ek):
            if k not in c.missing:
                c.missing.append(k)
    if tk in c.values:
        month_h = R * c.values[tk]
        if month_h > HOURS_PER_MONTH * (1 + 1e-9):
            c.check("hours_per_month", ["training.runs_per_month", tk], month_h, HOURS_PER_MONTH, "warning",
                    f"{R:g} runs x {c.values[tk]:,.4g} h = {month_h:,.4g} cluster-hours a month, more than a month "
                    f"has ({HOURS_PER_MONTH:g} h)")


def _link_bounds(c: _Ctx) -> None:
    bw = c.settings.get("link.bandwidth_gbps")
    D = c.values["dataset.size_gb"]
    W = c.values.get("dataset.working_set_fraction", 1.0) * D
    lk, ck = "cache.warmup_lost_s", "replica.copy_hours"
    if not bw and c.stated(ck) and c.values[ck] > 0:
        bw = D * 8.0 / (c.values[ck] * 3600.0)
        c.settings["link.bandwidth_gbps"] = bw
        c.prov["link.bandwidth_gbps"] = {"value": bw, "source": "derived: dataset.size_gb x 8 / replica.copy_hours / 3600"}
        c.check("copy_time", [ck, "link.bandwidth_gbps"], c.values[ck], None, "derived",
                f"the stated copy time implies a link of {bw:,.4g} Gbit/s")
    if bw:
        fill_s = W * 8.0 / bw
        ep = _epoch_s(c)
        basis = "an epoch at the steady throughput"
        if ep is None and c.stated("training.run_hours") and c.stated("training.epochs_per_run") \
                and c.values["training.epochs_per_run"] > 0:
            # no throughput: an epoch takes at most run_hours / epochs_per_run (the run includes its warm-up)
            ep = c.values["training.run_hours"] * 3600.0 / c.values["training.epochs_per_run"]
            basis = "an epoch as long as run_hours / epochs_per_run"
            c.internal["_epoch_from_run"] = 1.0
        keys = [lk, "link.bandwidth_gbps"]
        if ep is not None:
            implied = max(0.0, fill_s - ep)
            if lk in c.values:
                L = c.values[lk]
                c.internal["_follow_warmup"] = 2.0
                if L < implied * (1 - TOLERANCE):
                    c.check("cold_fill_time", keys, L, implied, "warning",
                            f"a cold fill of the {W:,.6g} GB working set takes {fill_s / 3600.0:,.4g} h at {bw:g} Gbit/s, "
                            f"{implied / 3600.0:,.4g} h more than {basis}: at least "
                            f"{implied:,.0f} s are lost per cold start, not {L:g} s; charged {implied:,.0f} s")
                    c.values[lk] = implied
                    c.internal["_warmup_stated"] = float(L)
                    c.prov[lk] = {**c.prov.get(lk, {}), "value": implied, "raised_from": L,
                                  "source": f"{c.prov.get(lk, {}).get('source', 'scenario')}; raised to the link's lower bound"}
                else:
                    c.check("cold_fill_time", keys, L, implied, "ok",
                            f"cold fill {fill_s / 3600.0:,.4g} h at {bw:g} Gbit/s; the link does not bound the warm-up"
                            if implied == 0 else "consistent")
            elif lk in c.missing:
                c.derive(lk, implied, f"max(0, working set x 8 / link.bandwidth_gbps - epoch time) = {implied:,.6g} s")
                c.internal["_follow_warmup"] = 1.0
                c.check("cold_fill_time", keys, None, implied, "derived",
                        f"{implied:,.0f} s lost per cold start (lower bound from the link)")
        else:
            L = c.values.get(lk)
            if L is not None and fill_s > L * (1 + TOLERANCE):
                c.check("cold_fill_time", keys, L, fill_s, "warning",
                        f"a cold fill of the {W:,.6g} GB working set takes {fill_s / 3600.0:,.4g} h at {bw:g} Gbit/s; "
                        f"{L:g} s lost per cold start holds only if training reads slower than the link: give "
                        "dataset.samples and training.samples_per_s to check it")
        mech = c.settings.get("replica.mechanism_gbps")
        copy_h = D * 8.0 / (min(bw, mech) if mech else bw) / 3600.0
        if str(c.prov.get("link.bandwidth_gbps", {}).get("source", "")).startswith("derived"):
            pass
        elif c.stated(ck):
            T = c.values[ck]
            c.internal["_follow_copy_hours"] = 2.0
            if T < copy_h * (1 - TOLERANCE):
                c.check("copy_time", [ck, "link.bandwidth_gbps"], T, copy_h, "warning",
                        f"copying {D:,.6g} GB at {bw:g} Gbit/s takes at least {copy_h:,.4g} h, not {T:g} h; "
                        f"charged {copy_h:,.4g} h")
                c.values[ck] = copy_h
                c.internal["_copy_hours_stated"] = float(T)
                c.prov[ck] = {**c.prov.get(ck, {}), "value": copy_h, "raised_from": T}
            else:
                c.check("copy_time", [ck, "link.bandwidth_gbps"], T, copy_h, "ok", "consistent")
        else:
            c.derive(ck, copy_h, f"dataset.size_gb x 8 / link.bandwidth_gbps / 3600 = {copy_h:.6g} h")
            c.internal["_follow_copy_hours"] = 1.0
            c.check("copy_time", [ck, "link.bandwidth_gbps"], None, copy_h, "derived", f"{copy_h:,.4g} h to copy")
    else:
        _unbounded_fill(c, W)
    if not bw and not c.stated(ck):
        c.values[ck] = 0.0
        c.prov[ck] = {"value": 0.0, "source": "default"}
        why = "copy delay not priced: give link.bandwidth_gbps (or replica.copy_hours)"
        c.note("replicate", "copy_delay_usd", why)
        c.warnings.append(f"copy_delay_usd: {why}")
    if not c.stated("wait.delay_usd_per_hour") and c.values.get(ck, 0) > 0:
        why = "copy delay not priced: give wait.delay_usd_per_hour (the value of an hour of delay)"
        c.note("replicate", "copy_delay_usd", why)
        c.warnings.append(f"copy_delay_usd: {why}")


#: what each replication mechanism bills besides the transfer (docs/cost.md, "Replication mechanisms")
MECHANISMS = {
    "s3_replication": "S3 Replication: versioning on both buckets, S3 Batch Operations for the existing objects, "
                      "a PUT per object (the v2 terms)",
    "datasync": "DataSync: a fee per GB copied (replica.mechanism_usd_per_gb), a PUT per object written, no "
                "versioning or batch job",
    "filesystem_replication": "a file system's own replication: its fee per GB (replica.mechanism_usd_per_gb), "
                              "no object requests, versioning or batch job",
    "instance_copy": "a copy run on instances: their hours at replica.copy_instance_usd_per_hour for the copy "
                     "time, a PUT per object, no versioning or batch job",
}


def _mechanism(c: _Ctx) -> None:
    """Internal flags of ``replica.mechanism`` and a note when its own price is not given."""
    mech = str(c.settings.get("replica.mechanism") or "s3_replication")
    c.internal["_s3_replication"] = 1.0 if mech == "s3_replication" else 0.0
    c.internal["_replica_puts"] = 0.0 if mech == "filesystem_replication" else 1.0
    c.internal["_instance_copy"] = 1.0 if mech == "instance_copy" else 0.0
    g = c.settings.get("replica.mechanism_gbps")
    if g:
        c.internal["_copy_gbps"] = float(g)
    need = {"datasync": "replica.mechanism_usd_per_gb", "filesystem_replication": "replica.mechanism_usd_per_gb",
            "instance_copy": "replica.copy_instance_usd_per_hour"}.get(mech)
    if need and not c.stated(need):
        why = f"replica.mechanism = {mech} and {need} is not given (not in the catalog): its fee is priced at 0"
        c.note("replicate", "mechanism_usd", why)
        c.warnings.append(f"mechanism_usd: {why}")
    if mech == "instance_copy" and not c.settings.get("link.bandwidth_gbps"):
        why = "replica.mechanism = instance_copy needs link.bandwidth_gbps for the copy time (instance-hours)"
        c.note("replicate", "mechanism_usd", why)
        c.warnings.append(f"mechanism_usd: {why}")


def _dataset_size(c: _Ctx) -> None:
    """``dataset.size_gb`` (the bytes on disk) against ``dataset.tokens x dataset.bytes_per_token`` when all
    three are given; a size derived from them is listed as resting on an assumption."""
    tokens, bpt = c.settings.get("dataset.tokens"), c.settings.get("dataset.bytes_per_token")
    if tokens is None or bpt is None:
        return
    keys = ["dataset.size_gb", "dataset.tokens", "dataset.bytes_per_token"]
    implied = tokens * bpt / 1e9
    if not c.stated("dataset.size_gb"):
        c.check("dataset_size", keys, None, implied, "derived",
                f"{implied:,.6g} GB = {tokens:,.0f} tokens x {bpt:g} bytes per token (an assumption: state "
                "dataset.size_gb, the bytes on disk)")
        return
    D = c.values["dataset.size_gb"]
    far = abs(D - implied) > TOLERANCE * max(D, implied)
    c.check("dataset_size", keys, D, implied, "warning" if far else "ok",
            f"{tokens:,.0f} tokens x {bpt:g} bytes per token = {implied:,.6g} GB, not the {D:,.6g} GB stated "
            f"({D * 1e9 / tokens:.3g} bytes per token); the stated bytes on disk are charged" if far else "consistent")


def _bytes_basis(c: _Ctx) -> None:
    """Which estimate of the cross-region bytes the model prices (costmodel.cost.crossing.choose_basis)."""
    from .crossing import BASIS_CODE, choose_basis

    read, origin = c.settings.get("cache.read_bytes_per_s"), c.settings.get("cache.origin_fetch_bytes_per_s")
    billed = c.settings.get("link.billed_gb_per_month")
    requested = str(c.settings.get("link.bytes_basis") or "auto")
    basis = choose_basis(requested, read is not None or origin is not None, billed is not None)
    if requested != "auto" and basis != requested:
        c.warnings.append(f"link.bytes_basis: {requested} has no figure (give "
                          + ("cache.read_bytes_per_s or cache.origin_fetch_bytes_per_s" if requested == "measured"
                             else "link.billed_gb_per_month") + f"); priced the {basis} bytes")
    if read is not None:
        c.internal["_read_bytes_per_s"] = float(read)
    if origin is not None:
        c.internal["_origin_bytes_per_s"] = float(origin)
    if billed is not None:
        c.internal["_billed_gb_per_month"] = float(billed)
    code = {"dataset": "dataset", "billed": "billed", "lru": "lru",
            "measured": "measured_origin" if origin is not None else "measured_read"}[basis]
    c.internal["_bytes_basis"] = BASIS_CODE[code]
    # issue 36: under auto, a measured figure above what can physically cross is refused (costmodel.cost.model)
    c.internal["_bytes_auto"] = 1.0 if requested == "auto" else 0.0


#: bytes a checkpoint stores per parameter when only the parameter count is given: mixed-precision training with
#: Adam keeps bf16 weights (2), an fp32 master copy (4) and two fp32 moments (8), plus gradients or loss-scaler state
CHECKPOINT_BYTES_PER_PARAMETER = 16.0


def _checkpoints(c: _Ctx) -> None:
    """Checkpoints cross_region writes back to the data region (issue 36): ``training.checkpoint_gb_per_run`` as
    stated, else ``model_parameters x bytes_per_parameter / 10^9`` per checkpoint every ``checkpoint_interval_hours``
    (GB per training hour, so it follows run_hours); none when ``training.checkpoints_to_data_region`` is false."""
    if c.settings.get("training.checkpoints_to_data_region") is False:
        return
    per_run = c.settings.get("training.checkpoint_gb_per_run")
    if per_run is not None:
        c.internal["_checkpoint_gb_per_run"] = float(per_run)
        return
    params, every = c.settings.get("training.model_parameters"), c.settings.get("training.checkpoint_interval_hours")
    if params is None or every is None:
        return
    stated_bpp = c.settings.get("training.checkpoint_bytes_per_parameter")
    assumed = stated_bpp is None
    bpp = CHECKPOINT_BYTES_PER_PARAMETER if stated_bpp is None else float(stated_bpp)
    if assumed:
        c.prov["training.checkpoint_bytes_per_parameter"] = {
            "value": bpp, "source": "default: mixed-precision Adam with its full optimizer state (2 + 4 + 8 + 2)"}
    gb = float(params) * float(bpp) / 1e9
    c.internal["_checkpoint_gb_per_hour"] = gb / float(every)
    T = c.values.get("training.run_hours")
    per = f"{gb * T / float(every):,.6g} GB per {T:,.4g} h run" if T is not None else "per run"
    c.check("checkpoint_bytes", ["training.model_parameters", "training.checkpoint_bytes_per_parameter",
                                 "training.checkpoint_interval_hours"], None, gb, "derived",
            f"{float(params):,.0f} parameters x {bpp:g} bytes = {gb:,.6g} GB a checkpoint every {every:g} h: {per} "
            "written back to the data region" + (" (bytes per parameter assumed: state "
                                                 "training.checkpoint_bytes_per_parameter)" if assumed else ""))


#: FSx for Lustre (persistent and scratch 2 SSD): 1.2 TiB, then increments of 2.4 TiB (AWS FSx for Lustre user guide)
FSX_LUSTRE_MIN_GIB, FSX_LUSTRE_STEP_GIB = 1200.0, 2400.0
GIB = 2**30 / 1e9


def _filesystem(c: _Ctx) -> None:
    """The replica's file system provisioned in steps (issue 36): ``replica.filesystem: fsx_lustre`` sets 1,200 GiB
    and 2,400 GiB unless ``replica.filesystem_min_gib`` / ``_step_gib`` say otherwise."""
    kind = c.settings.get("replica.filesystem")
    lo, step = c.settings.get("replica.filesystem_min_gib"), c.settings.get("replica.filesystem_step_gib")
    if kind == "fsx_lustre":
        lo = FSX_LUSTRE_MIN_GIB if lo is None else lo
        step = FSX_LUSTRE_STEP_GIB if step is None else step
    if lo is None:
        return
    c.internal["_fs_min_gb"] = float(lo) * GIB
    if step is not None:
        c.internal["_fs_step_gb"] = float(step) * GIB
    D = c.values["dataset.size_gb"]
    from .model import filesystem_gb

    billed = float(filesystem_gb({"_fs_min_gb": float(lo) * GIB, "_fs_step_gb": float(step) * GIB
                                  if step is not None else float("nan")}, D))
    c.check("filesystem_size", ["replica.filesystem_min_gib", "replica.filesystem_step_gib", "dataset.size_gb"], D,
            billed, "derived", f"a {D:,.6g} GB dataset needs a {billed / GIB:,.6g} GiB ({billed:,.6g} GB) file system "
                               f"(minimum {lo:g} GiB" + (f", steps of {step:g} GiB)" if step else ")"))
    if not c.stated("replica.filesystem_usd_per_gb_month"):
        c.warnings.append(f"replica.filesystem = {kind or 'stated'}: give replica.filesystem_usd_per_gb_month (its price "
                          "per GB-month) to price the file system the replica is loaded into")


def _persistent_nvme(c: _Ctx) -> None:
    """A persistent cache with no price is free only if something else keeps it alive (issue 36): on instance NVMe
    that is the instances themselves between runs. A warning prices that and asks."""
    if c.settings.get("cache.persistence") != "persistent":
        return
    priced = (c.num("cache.usd_per_month") or 0.0) > 0 or (c.num("cache.capacity_usd_per_gb_month") or 0.0) > 0
    if priced:
        return
    G, R, T = c.values.get("training.cluster_usd_per_hour"), c.values.get("training.runs_per_month"), \
        c.values.get("training.run_hours")
    idle = ""
    if G is not None and R is not None and T is not None:
        idle_h = max(0.0, HOURS_PER_MONTH - R * T)
        idle = (f": on instance NVMe it survives only while the instances are kept between runs, {idle_h:,.4g} idle h "
                f"x {G:,.2f} USD/h = {idle_h * G:,.0f} USD/month")
    c.warnings.append("cache.persistence = persistent but the persistent cache is priced at 0 (no cache.usd_per_month "
                      f"or cache.capacity_usd_per_gb_month){idle}. Price what keeps it alive (a file system's "
                      "capacity price, or the instances kept) or say per_cluster")


def _unbounded_fill(c: _Ctx, W: float) -> None:
    """No bandwidth: the link cannot bound the warm-up. A check (warning) names the bandwidth below which a
    cold fill of the working set takes longer than an epoch plus the stated loss, ``W*8 / (t_epoch + L)``."""
    lk = "cache.warmup_lost_s"
    ep = _epoch_s(c)
    if ep is None and c.stated("training.run_hours") and c.stated("training.epochs_per_run") \
            and c.values["training.epochs_per_run"] > 0:
        ep = c.values["training.run_hours"] * 3600.0 / c.values["training.epochs_per_run"]
    L = c.values.get(lk)
    keys = [lk, "link.bandwidth_gbps"]
    if ep is None or L is None:
        c.check("cold_fill_time", keys, L, None, "warning",
                f"no link.bandwidth_gbps: a cold fill of the {W:,.6g} GB working set may take longer than an epoch, "
                "and the warm-up lost per cold start is then larger than stated; give link.bandwidth_gbps")
        return
    need = W * 8.0 / (ep + L)
    c.check("cold_fill_time", keys, L, need, "warning",
            f"no link.bandwidth_gbps: below {need:,.4g} Gbit/s a cold fill of the {W:,.6g} GB working set takes "
            f"longer than an epoch ({ep / 3600.0:,.4g} h) plus the {L:g} s stated, and each cold start loses more; "
            "give link.bandwidth_gbps so the link bounds the warm-up")


def _capacity(c: _Ctx) -> None:
    cap = c.settings.get("cache.capacity_gb")
    if cap is None:
        return
    c.internal["_capacity_gb"] = float(cap)
    D = c.values["dataset.size_gb"]
    W = c.values.get("dataset.working_set_fraction", 1.0) * D
    S = c.settings.get("dataset.samples")
    batch = c.settings.get("training.batch_samples")
    if S and batch:
        batch_gb = D / S * batch
        if cap < batch_gb:
            raise ScenarioError(
                f"{cap:g} GB is smaller than one batch ({batch:g} samples x {D / S * 1e9:,.0f} bytes = {batch_gb:.6g} GB); "
                "expected a cache that holds at least one batch", key="cache.capacity_gb")
    h = c.values.get("cache.steady_hit_ratio")
    keys = ["cache.steady_hit_ratio", "cache.capacity_gb"]
    if cap >= W:
        c.check("cache_capacity", keys, h, 1.0, "info",
                f"the cache ({cap:,.6g} GB) holds the working set ({W:,.6g} GB): re-reads in warm epochs are hits, "
                "so warm epochs move no misses across the link (the stated hit ratio describes the cold pass)")
    else:
        bound = cap / W
        if h is not None and h > bound:
            c.check("cache_capacity", keys, h, bound, "warning",
                    f"a {cap:,.6g} GB cache holds {bound:.1%} of the {W:,.6g} GB working set: a warm epoch cannot hit "
                    f"more than {bound:.4g}, not {h:g}; charged {bound:.4g}")
        else:
            c.check("cache_capacity", keys, h, bound, "ok", "the hit ratio is within what the capacity allows")


def _retention(c: _Ctx) -> None:
    key = "replica.noncurrent_retention_days"
    c.internal["_versioned_buckets"] = 1.0 if c.settings.get("replica.source_versioned") else 2.0
    if key in c.values:
        return
    M = c.values["horizon_months"]
    days = M * DAYS_PER_MONTH
    c.values[key] = days
    c.prov[key] = {"value": days, "source": "default: no lifecycle rule stated, non-current versions kept for the horizon"}
    if c.values.get("dataset.monthly_churn_fraction", 0) > 0:
        c.warnings.append(
            f"{key}: not given; replication needs versioning and overwritten versions stay billed until a lifecycle "
            f"rule expires them: kept for the whole horizon ({days:g} days) in versioning_usd")


def _catalog_price(c: _Ctx, key: str, items: tuple[str, ...], regions: list[tuple[str, str]], kind: str,
                   per: float = 1.0, tier_key: str | None = None) -> float | None:
    """Look ``items`` up for the scenario's provider; record it in prices_used; None when not found. With
    ``tier_key``, a per-byte item the catalog tiers by monthly volume (``lookup_tiers``) stores its tiers in
    ``internal[tier_key]`` (the first tier's price is the value)."""
    provider = c.settings.get("prices.provider")
    table = c.table() if provider else None
    if table is None or not provider:
        return None
    row, rows = None, None
    for item in items:
        for src, dst in regions:
            try:
                row = table.lookup(provider, item, src or "", dst or "")
            except PriceError:
                continue
            if tier_key is not None:
                try:
                    rows = lookup_tiers(table, provider, item, src or "", dst or "")
                except PriceError:
                    rows = None
            break
        if row is not None:
            break
    if row is None:
        return None
    if rows and len(rows) > 1:
        row = rows[0]
        tiers = tier_bounds(rows)
        if tiers:
            c.internal[tier_key] = tiers
    try:
        usd = usd_per_decimal_gb(row) if kind == "bytes" else usd_per_count(row, per)
    except PriceError:
        return None
    c.values[key] = usd
    c.prov[key] = {"value": usd, "source": f"price table {row.ref()}", "as_of": row.as_of or None}
    c.prices_used.append(price_entry(key, row, usd, c.sc.today, tiers=rows if rows and len(rows) > 1 else None))
    w = row_warning(key, row, c.sc.today)
    if w:
        c.warnings.append(w)
    return usd


def _regions(c: _Ctx, src_first: bool = False) -> list[tuple[str, str]]:
    src, dst = c.settings.get("prices.src_region") or "", c.settings.get("prices.dst_region") or ""
    pairs = [(dst, ""), (dst, dst), (src, ""), (src, src)]
    return [(src, ""), (src, src), *pairs] if src_first else pairs


def _path(c: _Ctx) -> None:
    key = "link.path_processing_usd_per_gb"
    path = c.settings.get("link.path")
    if path is None:
        c.settings["link.path"] = path = "vpc_peering"
        c.prov["link.path"] = {"value": path, "source": "default"}
        c.warnings.append("link.path: not given; assumed vpc_peering (no per-GB path processing). Say nat_gateway, "
                          "transit_gateway, privatelink or internet if the traffic crosses one")
    if path in PATH_ITEMS:
        if c.stated(key):
            return
        item = PATH_ITEMS[path]
        if _catalog_price(c, key, (item,), _regions(c), "bytes", tier_key="_path_tiers") is None:
            c.values[key] = 0.0
            c.unpriced("cross_region", f"link.path = {path} is charged per GB processed but the price catalog has no "
                       f"{c.settings.get('prices.provider') or '?'} {item} row for {c.settings.get('prices.dst_region') or '?'}; "
                       "give link.path_processing_usd_per_gb")
        return
    if c.stated(key) and c.values[key] > 0:
        c.warnings.append(f"{key} = {c.values[key]:g} although link.path = {path}"
                          + (" has no processing charge" if path == "vpc_peering" else
                             " is billed as internet egress in link.transfer_usd_per_gb") + "; charged as stated")


def _inter_az(c: _Ctx) -> None:
    key = "link.inter_az_usd_per_gb"
    who = [o for o, flag in (("cross_region", "cache.cross_az"), ("replicate", "replica.cross_az")) if c.settings.get(flag)]
    c.internal["_cache_cross_az"] = 1.0 if c.settings.get("cache.cross_az") else 0.0
    c.internal["_replica_cross_az"] = 1.0 if c.settings.get("replica.cross_az") else 0.0
    if not who or c.stated(key):
        return
    dst = c.settings.get("prices.dst_region") or ""
    if _catalog_price(c, key, ("inter_az", "cross_az"), [(dst, dst), (dst, ""), ("*", "*")], "bytes") is None:
        c.values[key] = 0.0
        for o in who:
            c.unpriced(o, "data crosses zones (cache.cross_az / replica.cross_az) but no inter_az price was found; "
                       "give link.inter_az_usd_per_gb")


def _requests(c: _Ctx) -> None:
    if c.values.get("dataset.objects", 0) <= 0:
        return
    wanted = [
        ("requests.get_usd_per_1000", ("object_get", "s3_get"), 1000.0, ("cross_region", "replicate"), True),
        ("requests.put_usd_per_1000", ("object_put", "s3_put_copy_post_list"), 1000.0, ("replicate",), False),
        ("requests.batch_replication_usd_per_million", ("batch_replication_objects",), 1e6, ("replicate",), False),
        ("requests.batch_job_usd", ("batch_operations_job",), 1.0, ("replicate",), False),
    ]
    # issue 36: a term that does not apply to the replica's mechanism never unprices replicate (DataSync or a file
    # system's replication run no S3 Batch Operations; file-system replication writes no object PUTs)
    s3 = c.internal.get("_s3_replication", 1.0) == 1.0
    puts = c.internal.get("_replica_puts", 1.0) == 1.0
    applies = {"requests.put_usd_per_1000": puts, "requests.batch_replication_usd_per_million": s3,
               "requests.batch_job_usd": s3}
    for key, items, per, options, src_first in wanted:
        if c.stated(key):
            continue
        if _catalog_price(c, key, items, _regions(c, src_first), "count", per) is None:
            c.values[key] = 0.0
            if not applies.get(key, True):
                c.prov[key] = {"value": 0.0, "source": "default: does not apply to replica.mechanism = "
                               + str(c.settings.get("replica.mechanism") or "s3_replication")}
                continue
            for o in options:
                c.unpriced(o, f"{key} has no price (catalog items {' / '.join(items)} not found for "
                           f"{c.settings.get('prices.provider') or '?'}); give it in the scenario")


def _wait(c: _Ctx) -> None:
    wk = "wait.expected_wait_hours_per_run"
    if c.stated(wk) and c.values.get(wk) == 0 and wk not in getattr(c.sc, "distributions", {}):
        c.warnings.append(f"{wk} = 0: waiting for GPUs in the data region is assumed to cost no time at all, so "
                          "wait is priced only by its cluster premium; state the expected queue (or a range such "
                          "as [0, 72]): a zero-hour wait never wins robustly")
    lacking = [k for k in ("wait.expected_wait_hours_per_run", "wait.delay_usd_per_hour") if not c.stated(k)]
    if lacking:
        c.unpriced("wait", f"{' and '.join(lacking)} not given: waiting for GPUs near the data has no price "
                   "(state them; 0 is a valid answer)")
