"""TensorBoard event files (``events.out.tfevents.*``), format ``tfevents``.

Read with our own TFRecord + protobuf decoder (no TensorFlow or tensorboard needed): each record is
``uint64 length | uint32 masked CRC-32C(length) | Event bytes | uint32 masked CRC-32C(data)``; an ``Event`` has
``wall_time`` (field 1, double), ``step`` (2, int64) and ``summary`` (5) whose ``value`` (1) entries carry a ``tag``
(1) and a scalar as ``simple_value`` (2, float; ``torch.utils.tensorboard`` / tensorboardX ``add_scalar``) or a
``tensor`` (8; TF2 ``tf.summary.scalar``: ``float_val``, ``double_val``, ``int64_val`` or ``tensor_content``).
Images, histograms and graphs are skipped (counted).

Rows: one per step (the union of the scalar tags' steps); a tag is a column named as logged and mapped like a CSV
header, prefixes included (``train/samples_per_sec`` -> ``samples_per_s``, prefix kept in metadata);
``t_s`` = the latest ``wall_time`` of the step's events, relative to the first event (absolute start in metadata).
A step logged twice for one tag (a resumed run rewriting steps) keeps the last value, with a warning. A record whose
length CRC does not match, or a file cut inside a record (TensorBoard still writing), ends the read with a warning;
everything before it is kept.
"""
from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

import numpy as np

from ..foundation.errors import IngestError
from ..foundation.schema import Run
from .frame import convert
from .validate import build_run, run_id_for

FORMAT = "tfevents"

_CRC_TABLE: list[int] = []


def _crc_table() -> list[int]:
    if not _CRC_TABLE:
        poly = 0x82F63B78
        for i in range(256):
            c = i
            for _ in range(8):
                c = (c >> 1) ^ poly if c & 1 else c >> 1
            _CRC_TABLE.append(c)
    return _CRC_TABLE


def crc32c(data: bytes) -> int:
    """CRC-32C (Castagnoli) of ``data``."""
    table = _crc_table()
    crc = 0xFFFFFFFF
    for b in data:
        crc = table[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def masked_crc(data: bytes) -> int:
    """TFRecord's masked CRC-32C."""
    c = crc32c(data)
    return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def sniff(head: str, path: Path) -> bool:
    try:
        with open(path, "rb") as fh:
            raw = fh.read(13)
    except OSError:
        return False
    if len(raw) < 13:
        return False
    (length,) = struct.unpack("<Q", raw[:8])
    (crc,) = struct.unpack("<I", raw[8:12])
    return 0 < length < (1 << 26) and masked_crc(raw[:8]) == crc and raw[12] == 0x09  # Event.wall_time first


# ------------------------------------------------------------------------------------------ protobuf wire format


def _varint(buf: bytes, i: int) -> tuple[int, int]:
    shift = 0
    out = 0
    while True:
        b = buf[i]
        i += 1
        out |= (b & 0x7F) << shift
        if not b & 0x80:
            return out, i
        shift += 7
        if shift > 63:
            raise ValueError("varint too long")


def _fields(buf: bytes) -> Any:
    """Yield (field number, wire type, value) of a protobuf message; value is int, bytes or the raw 4/8 bytes."""
    i, n = 0, len(buf)
    while i < n:
        key, i = _varint(buf, i)
        fno, wt = key >> 3, key & 7
        v: int | bytes
        if wt == 0:
            v, i = _varint(buf, i)
        elif wt == 1:
            v, i = buf[i:i + 8], i + 8
        elif wt == 2:
            ln, i = _varint(buf, i)
            v, i = buf[i:i + ln], i + ln
        elif wt == 5:
            v, i = buf[i:i + 4], i + 4
        else:
            raise ValueError(f"unsupported protobuf wire type {wt}")
        if i > n:
            raise ValueError("protobuf field runs past the end of its message")
        yield fno, wt, v


def _tensor_scalar(buf: bytes) -> float | None:
    dtype = 0
    content = b""
    vals: list[float] = []
    for f, wt, v in _fields(buf):
        if f == 1 and wt == 0:
            dtype = int(v)
        elif f == 4 and wt == 2:
            content = bytes(v)
        elif f == 6:  # float_val (packed or not)
            vals += list(struct.unpack(f"<{len(v) // 4}f", v)) if wt == 2 else [struct.unpack("<f", v)[0]]
        elif f == 7:  # double_val
            vals += list(struct.unpack(f"<{len(v) // 8}d", v)) if wt == 2 else [struct.unpack("<d", v)[0]]
        elif f in (8, 10):  # int_val, int64_val
            if wt == 2:
                j = 0
                while j < len(v):
                    x, j = _varint(v, j)
                    vals.append(float(x))
            else:
                vals.append(float(v))
    if vals:
        return float(vals[0])
    if content:
        fmt = {1: "<f", 2: "<d", 3: "<i", 9: "<q"}.get(dtype)
        if fmt and len(content) >= struct.calcsize(fmt):
            return float(struct.unpack(fmt, content[: struct.calcsize(fmt)])[0])
    return None


def _event(buf: bytes) -> tuple[float, int, list[tuple[str, float]], int]:
    """(wall_time, step, [(tag, value)], non-scalar values skipped)."""
    wall, step = float("nan"), 0
    scalars: list[tuple[str, float]] = []
    skipped = 0
    for f, wt, v in _fields(buf):
        if f == 1 and wt == 1:
            wall = struct.unpack("<d", v)[0]
        elif f == 2 and wt == 0:
            step = int(v) - (1 << 64) if v >= 1 << 63 else int(v)
        elif f == 5 and wt == 2:
            for sf, swt, sv in _fields(v):
                if sf != 1 or swt != 2:
                    continue
                tag, value = "", None
                for vf, vwt, vv in _fields(sv):
                    if vf == 1 and vwt == 2:
                        tag = bytes(vv).decode("utf-8", errors="replace")
                    elif vf == 2 and vwt == 5:
                        value = struct.unpack("<f", vv)[0]
                    elif vf == 8 and vwt == 2:
                        value = _tensor_scalar(vv)
                if tag and value is not None:
                    scalars.append((tag, float(value)))
                else:
                    skipped += 1
    return wall, step, scalars, skipped


def read_events(path: Path) -> tuple[dict[str, dict[int, tuple[float, float]]], dict[str, Any]]:
    """tag -> {step: (wall_time, value)} (last write wins) and facts about the file (records, skipped, warnings)."""
    src = str(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise IngestError(f"cannot read: {exc}", path=src) from None
    tags: dict[str, dict[int, tuple[float, float]]] = {}
    info: dict[str, Any] = {"records": 0, "non_scalar_values": 0, "rewritten_steps": 0, "warnings": []}
    i, n = 0, len(data)
    while i < n:
        if i + 12 > n:
            info["warnings"].append(f"{src}: the file ends inside a record header at byte {i} (still being written?); "
                                    f"{info['records']} record(s) read before it")
            break
        (length,) = struct.unpack("<Q", data[i:i + 8])
        (lcrc,) = struct.unpack("<I", data[i + 8:i + 12])
        if masked_crc(data[i:i + 8]) != lcrc:
            if info["records"] == 0:
                raise IngestError("not a TensorBoard event file: the first record's length checksum does not match",
                                  path=src)
            info["warnings"].append(f"{src}: record at byte {i}: length checksum mismatch (corrupt file); "
                                    f"{info['records']} record(s) read before it")
            break
        if i + 12 + length + 4 > n:
            info["warnings"].append(f"{src}: the file ends inside the record at byte {i} (still being written?); "
                                    f"{info['records']} record(s) read before it")
            break
        body = data[i + 12:i + 12 + length]
        i += 12 + length + 4
        info["records"] += 1
        try:
            wall, step, scalars, skipped = _event(body)
        except (ValueError, IndexError, struct.error) as exc:
            info["warnings"].append(f"{src}: record {info['records']} is not a valid Event ({exc}); skipped")
            continue
        info["non_scalar_values"] += skipped
        for tag, value in scalars:
            d = tags.setdefault(tag, {})
            if step in d:
                info["rewritten_steps"] += 1
            d[step] = (wall, value)
    return tags, info


def read(path: Path, options: Any) -> list[Run]:
    src = str(path)
    tags, info = read_events(path)
    if not tags:
        raise IngestError(f"no scalar summaries in {info['records']} event record(s); expected add_scalar values", path=src)
    steps = sorted({s for d in tags.values() for s in d})
    index = {s: k for k, s in enumerate(steps)}
    table: dict[str, Any] = {"step": np.array(steps, dtype="float64")}
    wall = np.full(len(steps), np.nan)
    for tag, d in tags.items():
        col = np.full(len(steps), np.nan)
        for s, (w, v) in d.items():
            col[index[s]] = v
            k = index[s]
            if not (wall[k] >= w):
                wall[k] = w
        table[tag] = col
    conv = convert({"step": table.pop("step"), **table}, options, source=src)
    cols = conv.columns
    warnings = list(info["warnings"]) + conv.warnings
    meta: dict[str, Any] = {"dialect": "tfevents", "records": info["records"], "tags": sorted(tags), **conv.metadata}
    if "t_s" not in cols and np.isfinite(wall).any():
        t0 = float(np.nanmin(wall))
        cols["t_s"] = wall - t0
        meta["start_epoch_s"] = t0
        meta["t_s_from"] = "event wall_time (latest of the step's events) relative to the first event"
    if info["rewritten_steps"]:
        warnings.append(f"{src}: {info['rewritten_steps']} value(s) were logged again for a step already seen (a resumed "
                        "run?): the last one is kept")
    if info["non_scalar_values"]:
        meta["non_scalar_values_skipped"] = info["non_scalar_values"]
    if "step" not in cols:
        cols["step"] = np.array(steps, dtype="float64")
    by_folder = path.name.startswith("events.out.tfevents") and path.parent.name
    rid = getattr(options, "run_id", None) or (path.parent.name if by_folder else run_id_for(path, options))
    return [build_run(cols, path=path, run_id=rid, fmt=FORMAT, invalid=conv.invalid,
                      metadata=meta, warnings=warnings, role=getattr(options, "role", "") or "",
                      strict=getattr(options, "strict", False))]
