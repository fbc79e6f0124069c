"""The settings compare and fit give their own process (foundation.blas, foundation.heap): OpenBLAS's idle workers
sleep and freed temporaries stay in the heap, the user's environment is left as it was, and the answers are the
same bytes as without them (each case in a fresh interpreter: OpenBLAS reads its variables when numpy loads it)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

PROBE = r"""
import json, os, sys
from costmodel.foundation.blas import quiet_blas_threads
from costmodel.foundation.heap import roomy_heap
first = quiet_blas_threads()
print(json.dumps({"first": first, "numpy": "numpy" in sys.modules, "again": quiet_blas_threads(),
                  "left": {k: os.environ.get(k) for k in ("OPENBLAS_THREAD_TIMEOUT", "GOTO_THREAD_TIMEOUT")},
                  "heap": roomy_heap(), "heap_again": roomy_heap()}))
"""


def _probe(**env: str) -> dict:
    e = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_THREAD_TIMEOUT", "GOTO_THREAD_TIMEOUT")}
    r = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, cwd=REPO, timeout=120,
                       env={**e, **env}, check=False)
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads(r.stdout)


def test_numpy_loads_with_quiet_workers_and_the_environment_is_put_back():
    d = _probe()
    assert d["first"] is True and d["numpy"] is True and d["again"] is False  # once, before numpy
    assert d["left"] == {"OPENBLAS_THREAD_TIMEOUT": None, "GOTO_THREAD_TIMEOUT": None}  # children see the user's
    assert d["heap"] == d["heap_again"]  # set once (True on glibc)


def test_a_users_own_timeout_is_kept():
    d = _probe(OPENBLAS_THREAD_TIMEOUT="20")
    assert d["first"] is False and d["left"]["OPENBLAS_THREAD_TIMEOUT"] == "20"
    assert _probe(GOTO_THREAD_TIMEOUT="9")["first"] is False


def test_compare_prints_the_same_bytes_with_and_without_the_settings(tmp_path):
    from costmodel.synthetic.rank_logs import generate_job

    for role, seed in (("colocated", 1), ("remote", 2)):
        generate_job(tmp_path / role / "job1", n_ranks=2, n_steps=20_000, seed=seed, straggler_node=None,
                     early_rank=None, warmup_excess=0.3 if role == "remote" else 0.02, warmup_tau_steps=400)
    cmd = [sys.executable, "-m", "costmodel", "compare", "--colocated", str(tmp_path / "colocated"),
           "--remote", str(tmp_path / "remote"), "--json"]
    base = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_THREAD_TIMEOUT", "GOTO_THREAD_TIMEOUT")}
    quiet = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, env=base, timeout=300, check=True).stdout
    # a user's own timeout (OpenBLAS's default, 2**28 cycles) turns the quiet workers off: the spinning workers
    spin = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, env={**base, "OPENBLAS_THREAD_TIMEOUT": "28"},
                          timeout=300, check=True).stdout
    assert json.loads(quiet)["ratio"] is not None and quiet == spin
