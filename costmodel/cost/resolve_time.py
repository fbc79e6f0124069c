"""Resolve, time: cold starts from the cache's persistence, run hours against epochs x samples / throughput,
the warm-up and the copy bounded by the link (see :mod:`costmodel.cost.resolve`)."""
from __future__ import annotations

from ..foundation.errors import ScenarioError
from .inputs import CachePersistence, Follow
from .resolve_ctx import HOURS_PER_MONTH, TOLERANCE, Ctx, epoch_s, fmt
from .spec import PARAM_BY_KEY


def cold_starts(c: Ctx) -> None:
    key = "cache.cold_starts_per_month"
    stated = c.settings.get("cache.persistence")
    pers = CachePersistence(stated) if stated is not None else None
    c.internal["_cache_persistent"] = pers is CachePersistence.PERSISTENT
    c.internal["_cache_shared"] = bool(c.settings.get("cache.shared"))
    R = c.values["training.runs_per_month"]
    M = c.values["horizon_months"]
    implied = None
    how = ""
    follows_runs = False
    if pers is CachePersistence.PER_RUN:
        implied, how, follows_runs = R, "cache.persistence = per_run: one cold start per run", True
    elif pers is CachePersistence.PER_CLUSTER:
        launches = c.settings.get("training.cluster_launches_per_month")
        if launches is not None:
            implied, how = float(launches), "cache.persistence = per_cluster: one per training.cluster_launches_per_month"
        else:
            implied, how, follows_runs = R, ("cache.persistence = per_cluster and no training.cluster_launches_per_month: "
                                             "a new cluster (empty instance store) per run"), True
    elif pers is CachePersistence.PERSISTENT:
        implied, how = 1.0 / M, "cache.persistence = persistent: one cold fill over the horizon (1 / horizon_months)"
    if key in c.values:
        if implied is not None:
            n = c.values[key]
            far = abs(n - implied) > TOLERANCE * max(implied, 1e-12)
            c.check("cold_starts", [key, "cache.persistence"], n, implied, "warning" if far else "ok",
                    f"{stated} implies {fmt(implied)} cold starts/month ({how}); the stated {n:g} is charged" if far
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



def warm_h_per_run(c: Ctx, E: float | None) -> float:
    L = c.values.get("cache.warmup_lost_s")
    R = c.values["training.runs_per_month"]
    n = c.values.get("cache.cold_starts_per_month", 0.0)
    if L is None or R <= 0:
        return 0.0
    fills = min(n, max(R, E * R)) if E is not None else n  # warm-ups paid: one per cold start, at most per run or epoch
    return fills / R * L / 3600.0


def run_hours(c: Ctx) -> None:
    tk, ek = "training.run_hours", "training.epochs_per_run"
    ep = epoch_s(c)
    R = c.values["training.runs_per_month"]
    has_t, has_e = tk in c.values, ek in c.values
    keys = [tk, ek, "dataset.samples", "training.samples_per_s"]
    if has_t and has_e:
        if ep is not None:
            E, T = c.values[ek], c.values[tk]
            implied = E * ep / 3600.0 + warm_h_per_run(c, E)
            far = abs(T - implied) > TOLERANCE * max(implied, 1e-12)
            feasible_e = max(0.0, (T - warm_h_per_run(c, E)) * 3600.0 / ep)
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
            c.need(tk)
        else:
            E = c.values[ek]
            T = E * ep / 3600.0 + warm_h_per_run(c, E)
            c.derive(tk, T, f"{E:g} epochs x {ep / 3600.0:,.6g} h per epoch (samples / samples_per_s) + warm-up")
            c.internal["_follow_run_hours"] = Follow.DERIVED
            c.check("run_hours", keys, None, T, "derived", f"{T:,.4g} h per run")
    elif has_t and not has_e:
        if ep is None:
            c.need(ek)
        else:
            T = c.values[tk]
            warm = warm_h_per_run(c, None)
            E = (T - warm) * 3600.0 / ep
            if E <= 0:
                raise ScenarioError(
                    f"implied epochs per run = (training.run_hours {T:g} h - warm-up {warm:.4g} h) x samples_per_s / "
                    f"samples = {E:.4g}; expected a run longer than its warm-up", key=ek)
            c.derive(ek, E, f"(run_hours - warm-up) x samples_per_s / samples = {E:.6g}")
            c.internal["_follow_epochs"] = Follow.DERIVED
            c.check("run_hours", keys, None, E, "derived", f"{E:.4g} epochs per run fit in {T:g} h")
    else:
        c.need(tk)
        c.need(ek)
    if tk in c.values:
        month_h = R * c.values[tk]
        if month_h > HOURS_PER_MONTH * (1 + 1e-9):
            c.check("hours_per_month", ["training.runs_per_month", tk], month_h, HOURS_PER_MONTH, "warning",
                    f"{R:g} runs x {c.values[tk]:,.4g} h = {month_h:,.4g} cluster-hours a month, more than a month "
                    f"has ({HOURS_PER_MONTH:g} h)")


def link_bounds(c: Ctx) -> None:
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
        ep = epoch_s(c)
        basis = "an epoch at the steady throughput"
        if ep is None and c.stated("training.run_hours") and c.stated("training.epochs_per_run") \
                and c.values["training.epochs_per_run"] > 0:
            # no throughput: an epoch takes at most run_hours / epochs_per_run (the run includes its warm-up)
            ep = c.values["training.run_hours"] * 3600.0 / c.values["training.epochs_per_run"]
            basis = "an epoch as long as run_hours / epochs_per_run"
            c.internal["_epoch_from_run"] = True
        keys = [lk, "link.bandwidth_gbps"]
        if ep is not None:
            implied = max(0.0, fill_s - ep)
            if lk in c.values:
                L = c.values[lk]
                c.internal["_follow_warmup"] = Follow.BOUNDED
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
                c.internal["_follow_warmup"] = Follow.DERIVED
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
            c.internal["_follow_copy_hours"] = Follow.BOUNDED
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
            c.internal["_follow_copy_hours"] = Follow.DERIVED
            c.check("copy_time", [ck, "link.bandwidth_gbps"], None, copy_h, "derived", f"{copy_h:,.4g} h to copy")
    else:
        unbounded_fill(c, W)
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




def unbounded_fill(c: Ctx, W: float) -> None:
    """No bandwidth: the link cannot bound the warm-up. A check (warning) names the bandwidth below which a
    cold fill of the working set takes longer than an epoch plus the stated loss, ``W*8 / (t_epoch + L)``."""
    lk = "cache.warmup_lost_s"
    ep = epoch_s(c)
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
