"""Resolve, data and storage: the object count, the dataset size against tokens x bytes per token, the cache's
capacity, the replication mechanism, the byte basis, checkpoints written back, the file system's steps, the
persistent cache's price and the replica's version retention (see :mod:`costmodel.cost.resolve`)."""
from __future__ import annotations

import math

from ..foundation.errors import ScenarioError
from .inputs import CachePersistence, ReplicaMechanism
from .model import DAYS_PER_MONTH
from .resolve_ctx import HOURS_PER_MONTH, TOLERANCE, Ctx, fmt


def objects(c: Ctx) -> None:
    D = c.values["dataset.size_gb"]
    mb = c.settings.get("dataset.mean_object_size_mb")
    implied = D * 1e3 / mb if mb else None
    if c.stated("dataset.objects"):
        O = c.values["dataset.objects"]
        if implied is not None:
            far = abs(O - implied) > TOLERANCE * implied
            c.check("object_count", ["dataset.objects", "dataset.mean_object_size_mb"], O, implied,
                    "warning" if far else "ok",
                    f"{fmt(O)} objects of {D:g} GB are {D * 1e3 / O if O else math.inf:,.4g} MB each, not "
                    f"{mb:g} MB; requests are counted from dataset.objects" if far else "consistent")
        return
    if implied is not None:
        c.derive("dataset.objects", implied, f"dataset.size_gb x 1000 / dataset.mean_object_size_mb = {fmt(implied)}")
        c.check("object_count", ["dataset.objects", "dataset.mean_object_size_mb"], None, implied, "derived",
                f"{fmt(implied)} objects of {mb:g} MB")
        return
    c.values["dataset.objects"] = 0.0
    c.prov["dataset.objects"] = {"value": 0.0, "source": "default"}
    why = ("request charges not counted: give dataset.objects or dataset.mean_object_size_mb (GETs, PUTs and "
           "batch replication are per object, not per byte)")
    c.note("cross_region", "requests_usd", why)
    c.note("replicate", "requests_usd", why)
    c.warnings.append(f"requests_usd: {why}")

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


def mechanism(c: Ctx) -> None:
    """Internal flags of ``replica.mechanism`` and a note when its own price is not given."""
    mech = ReplicaMechanism(str(c.settings.get("replica.mechanism") or "s3_replication"))
    c.internal["_s3_replication"] = mech.s3_batch
    c.internal["_replica_puts"] = mech.writes_puts
    c.internal["_instance_copy"] = mech is ReplicaMechanism.INSTANCE_COPY
    g = c.settings.get("replica.mechanism_gbps")
    if g:
        c.internal["_copy_gbps"] = float(g)
    need = {ReplicaMechanism.DATASYNC: "replica.mechanism_usd_per_gb",
            ReplicaMechanism.FILESYSTEM_REPLICATION: "replica.mechanism_usd_per_gb",
            ReplicaMechanism.INSTANCE_COPY: "replica.copy_instance_usd_per_hour"}.get(mech)
    if need and not c.stated(need):
        why = f"replica.mechanism = {mech.value} and {need} is not given (not in the catalog): its fee is priced at 0"
        c.note("replicate", "mechanism_usd", why)
        c.warnings.append(f"mechanism_usd: {why}")
    if mech is ReplicaMechanism.INSTANCE_COPY and not c.settings.get("link.bandwidth_gbps"):
        why = "replica.mechanism = instance_copy needs link.bandwidth_gbps for the copy time (instance-hours)"
        c.note("replicate", "mechanism_usd", why)
        c.warnings.append(f"mechanism_usd: {why}")

def dataset_size(c: Ctx) -> None:
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

def bytes_basis(c: Ctx) -> None:
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
    # under auto, a measured figure above what can physically cross is refused (costmodel.cost.model)
    c.internal["_bytes_auto"] = requested == "auto"

#: bytes a checkpoint stores per parameter when only the parameter count is given: mixed-precision training with
#: Adam keeps bf16 weights (2), an fp32 master copy (4) and two fp32 moments (8), plus gradients or loss-scaler state
CHECKPOINT_BYTES_PER_PARAMETER = 16.0


def checkpoints(c: Ctx) -> None:
    """Checkpoints cross_region writes back to the data region: ``training.checkpoint_gb_per_run`` as
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


def filesystem(c: Ctx) -> None:
    """The replica's file system provisioned in steps: ``replica.filesystem: fsx_lustre`` sets 1,200 GiB
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

    billed = float(filesystem_gb(D, float(lo) * GIB, float(step) * GIB if step is not None else float("nan")))
    c.check("filesystem_size", ["replica.filesystem_min_gib", "replica.filesystem_step_gib", "dataset.size_gb"], D,
            billed, "derived", f"a {D:,.6g} GB dataset needs a {billed / GIB:,.6g} GiB ({billed:,.6g} GB) file system "
                               f"(minimum {lo:g} GiB" + (f", steps of {step:g} GiB)" if step else ")"))
    if not c.stated("replica.filesystem_usd_per_gb_month"):
        c.warnings.append(f"replica.filesystem = {kind or 'stated'}: give replica.filesystem_usd_per_gb_month (its price "
                          "per GB-month) to price the file system the replica is loaded into")

def persistent_nvme(c: Ctx) -> None:
    """A persistent cache with no price is free only if something else keeps it alive: on instance NVMe
    that is the instances themselves between runs. A warning prices that and asks."""
    if c.settings.get("cache.persistence") != CachePersistence.PERSISTENT.value:
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

def capacity(c: Ctx) -> None:
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

def retention(c: Ctx) -> None:
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
