"""How fast each offer trains, relative to the run the base scenario's throughput describes.

Every offer gets a **speed ratio**: its cluster's training throughput / the reference cluster's (the base
scenario's ``training.samples_per_s`` or ``run_hours`` were measured or stated for that cluster). The ratio is

- **measured**: the offer states ``speed: {samples_per_s: X}`` measured on its own cluster: X / the base
  scenario's ``training.samples_per_s``;
- **reference**: the offer is the reference cluster itself (same GPU, same GPU count): 1;
- **stated**: ``speed: s`` per GPU relative to the reference GPU: ``s x GPUs / reference GPUs``;
- **table**: the bundled, dated, sourced table ``data/gpus/speeds.csv`` by GPU type and precision (each row says
  whether it is a published figure or an estimate and gives a low-high range, drawn in the Monte Carlo), times
  GPUs / reference GPUs (linear scaling with the GPU count: an assumption, stated in every detail);
- **unknown**: none of these: the offer is not priced, with the reason "state speed" (never 1 silently).

Which GPU an instance carries comes from the offer (``gpu``, ``gpus_per_instance``), the bundled
``data/gpus/instances.csv``, or the price row an import wrote (its notes: ``accelerator H100 x 8``).
"""
from __future__ import annotations

import csv
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from ..foundation.fields_json import FieldsJson, JsonKeys
from ..foundation.resources import GPUS_DIR

_ACCEL = re.compile(r"accelerator ([A-Za-z0-9_.+-]+) x (\d+(?:\.\d+)?)")


@dataclass(frozen=True)
class GpuSpeed:
    """One row of the speed table: ``relative_speed`` per GPU vs ``reference`` (range ``low``..``high``)."""

    gpu: str
    precision: str
    relative_speed: float
    low: float
    high: float
    reference: str
    basis: str
    source: str
    as_of: str
    notes: str


@dataclass
class Speed(FieldsJson):
    """An offer's speed: ``ratio`` = its cluster's throughput / the reference cluster's (None: unknown)."""

    kind: str
    ratio: float | None
    gpu: str | None = None
    gpus: int | None = None
    per_gpu: float | None = None
    low: float | None = None
    high: float | None = None
    detail: str = ""
    reason: str | None = None
    table_key: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    JSON = JsonKeys(keys=("basis=kind", "ratio", "gpu", "gpus", "per_gpu_relative=per_gpu", "low", "high", "detail", "reason"))


@lru_cache(maxsize=1)
def speed_table() -> dict[tuple[str, str], GpuSpeed]:
    """``data/gpus/speeds.csv`` by (GPU, precision)."""
    out: dict[tuple[str, str], GpuSpeed] = {}
    with open(GPUS_DIR / "speeds.csv", newline="", encoding="utf-8") as fh:
        for r in csv.DictReader(fh):
            out[(r["gpu"], r["precision"])] = GpuSpeed(r["gpu"], r["precision"], float(r["relative_speed"]),
                                                       float(r["low"]), float(r["high"]), r["reference"], r["basis"],
                                                       r["source"], r["as_of"], r["notes"])
    return out


@lru_cache(maxsize=1)
def instance_gpus() -> dict[tuple[str, str], tuple[str, int, str]]:
    """``data/gpus/instances.csv``: (provider, instance type) -> (GPU, GPUs per instance, source)."""
    out: dict[tuple[str, str], tuple[str, int, str]] = {}
    with open(GPUS_DIR / "instances.csv", newline="", encoding="utf-8") as fh:
        for r in csv.DictReader(fh):
            out[(r["provider"], r["instance_type"])] = (r["gpu"], int(r["gpus_per_instance"]), r["source"])
    return out


def gpu_of(provider: str, instance_type: str, gpu: str | None = None, gpus: int | None = None,
           price_notes: str = "") -> tuple[str | None, int | None, str]:
    """(GPU, GPUs per instance, where from) of an instance: stated, the bundled table, or an imported price row's
    ``accelerator NAME x N`` note; (None, None, why) when unknown."""
    known = instance_gpus().get((provider, instance_type))
    m = _ACCEL.search(price_notes or "")
    g = gpu or (known[0] if known else None) or (m.group(1) if m else None)
    n = gpus or (known[1] if known else None) or (int(float(m.group(2))) if m else None)
    if g is None or n is None:
        return None, None, f"which GPU {instance_type} carries is not known (state gpu and gpus_per_instance)"
    how = "stated" if gpu and gpus else ("data/gpus/instances.csv" if known else "the price row's accelerator note")
    return g, n, how


@dataclass(frozen=True)
class Reference:
    """The cluster the base scenario's throughput describes."""

    gpu: str | None
    gpus: int | None
    precision: str
    samples_per_s: float | None
    detail: str


def offer_speed(ref: Reference, provider: str, instance_type: str, count: int, *, gpu: str | None,
                gpus_per_instance: int | None, stated: Any, price_notes: str = "") -> Speed:
    """The :class:`Speed` of ``count`` x ``instance_type`` against ``ref`` (see the module docstring)."""
    g, per, how = gpu_of(provider, instance_type, gpu, gpus_per_instance, price_notes)
    n = per * count if per is not None else None
    if stated is not None and hasattr(stated, "samples_per_s"):
        if not ref.samples_per_s:
            return Speed("unknown", None, g, n, reason="state speed: a measured samples_per_s needs the base "
                                                      "scenario's training.samples_per_s to compare with")
        ratio = float(stated.samples_per_s) / ref.samples_per_s
        src = f" ({stated.source})" if getattr(stated, "source", None) else ""
        return Speed("measured", ratio, g, n, detail=f"measured {stated.samples_per_s:g} samples/s on this cluster"
                     f"{src} / {ref.samples_per_s:g} of the base scenario")
    if g is not None and n is not None and g == ref.gpu and n == ref.gpus:
        return Speed("reference", 1.0, g, n, per_gpu=1.0, low=1.0, high=1.0,
                     detail=f"the reference cluster itself ({n} x {g}): {ref.detail}")
    if ref.gpus is None or ref.gpu is None:
        return Speed("unknown", None, g, n, reason=f"state speed: the reference run's GPUs are not known ({ref.detail}); "
                                                   "set speed.reference_gpu and speed.reference_gpus")
    if n is None or g is None:
        return Speed("unknown", None, g, n, reason=f"state speed: {how}")
    if stated is not None:
        s = float(stated)
        return Speed("stated", s * n / ref.gpus, g, n, per_gpu=s, low=s, high=s,
                     detail=f"stated {s:g} x the reference GPU per GPU, x {n} / {ref.gpus} GPUs (linear scaling "
                            "with the GPU count assumed)")
    table = speed_table()
    row, rref = table.get((g, ref.precision)), table.get((ref.gpu, ref.precision))
    if row is None or rref is None:
        lacking = g if row is None else ref.gpu
        return Speed("unknown", None, g, n, reason=f"state speed: no {ref.precision} speed for {lacking} in "
                                                   "data/gpus/speeds.csv (state speed: per-GPU throughput relative "
                                                   f"to {ref.gpu})")
    per_gpu = row.relative_speed / rref.relative_speed
    lo, hi = row.low / rref.high, row.high / rref.low
    return Speed("table", per_gpu * n / ref.gpus, g, n, per_gpu=per_gpu, low=lo, high=hi,
                 detail=f"{g} {ref.precision} {per_gpu:.3g} x {ref.gpu} per GPU ({row.basis}, {row.as_of}: "
                        f"{row.source}), x {n} / {ref.gpus} GPUs (linear scaling with the GPU count assumed)",
                 table_key=f"speed.{g}.{ref.precision}", extra={"row": row, "ref_row": rref})


def reference(base: dict[str, Any], reference_gpu: str | None, reference_gpus: int | None,
              precision: str, provider: str) -> Reference:
    """The reference cluster of the base scenario: stated in the placement file's ``speed:``, else the base
    scenario's ``training.instance_type`` x ``instance_count`` through ``data/gpus/instances.csv``."""
    raw = base.get("training")
    tr: dict[str, Any] = raw if isinstance(raw, dict) else {}
    thr = tr.get("samples_per_s") if isinstance(tr.get("samples_per_s"), (int, float)) else None
    itype = tr.get("instance_type")
    count = tr.get("instance_count", 1)
    count = int(count) if isinstance(count, (int, float)) and not isinstance(count, bool) and count >= 1 else 1
    g, per, _how = gpu_of(provider, str(itype), None, None) if itype else (None, None, "")
    gpu = reference_gpu or g
    gpus = reference_gpus or (per * count if per else None)
    if reference_gpu or reference_gpus:
        detail = f"stated reference: {gpus} x {gpu}"
    elif gpu:
        detail = f"the base scenario's {count} x {itype} ({gpus} x {gpu})"
    else:
        detail = "the base scenario names no instance type with a known GPU"
    return Reference(gpu, gpus, precision, float(thr) if thr else None, detail)
