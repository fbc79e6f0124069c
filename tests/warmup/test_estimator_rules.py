"""The estimator as an ordered list of named rules (issue 38): each rule tested on its own, on series whose truth is
known by construction, by running the rules up to it (``analyze.run_rules``)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from costmodel.warmup import analyze
from costmodel.warmup.analyze import ROWS_ONLY_RULES, RULES, run_rules
from costmodel.warmup.series import prepare

BATCH = 16.0


def _run(rate: np.ndarray, **cols: np.ndarray) -> pd.DataFrame:
    """A per-step log: ``rate`` samples/s per step, each step ``BATCH / rate`` seconds."""
    st = BATCH / rate
    return pd.DataFrame({"step": np.arange(len(rate)), "step_time_s": st, "samples_per_s": rate, **cols})


def _noise(n: int, seed: int = 1, cv: float = 0.01) -> np.ndarray:
    return 1.0 + cv * np.random.default_rng(seed).standard_normal(n)


def test_rules_are_named_and_ordered() -> None:
    names = [n for n, _ in RULES]
    assert names[:5] == ["too_short", "stalls", "segmentation", "tail", "result"]
    assert names.index("cold_phase") < names.index("warmup_end") < names.index("not_a_warmup") < names.index("levels")
    assert names[-1] == "dips" and len(set(names)) == len(names)


def test_too_short_and_constant_stop_the_list() -> None:
    f = run_rules(prepare(_run(np.full(10, 100.0) * _noise(10))))
    assert f.done and f.trace == ["too_short"] and f.res is not None and f.res.classification == "too_short"
    f = run_rules(prepare(_run(np.full(50, 100.0))))
    assert f.done and f.trace == ["constant"]


def test_stalls_rule_finds_the_checkpoint_period() -> None:
    n = 2000
    rate = 400.0 * _noise(n)
    rate[100::200] = 10.0  # a checkpoint every 200 steps
    f = run_rules(prepare(_run(rate)), until="stalls")
    assert f.per is not None and f.per.period_steps == 200 and not f.coarse and f.res is None


def test_segmentation_and_tail_rules_flag_a_short_final_drop() -> None:
    n = 3000
    rate = 400.0 * _noise(n)
    rate[-300:] *= 0.8  # the last 10 % of the run 20 % slower
    f = run_rules(prepare(_run(rate)), until="tail")
    assert f.tail_info is not None and not f.tail_info["kept_in_steady"] and f.hi == n - 300
    assert "tail" in f.trace


def test_cold_phase_rule_decides_from_the_data_wait() -> None:
    n = 1500
    rate = 400.0 * _noise(n)
    rate[:150] = 150.0
    wait = np.where(np.arange(n) < 150, 0.06, 0.0002)
    f = run_rules(prepare(_run(rate, data_wait_s=wait)), until="cold_phase")
    assert f.cls == "warmup" and f.decided is not None and abs(f.decided - 150) <= 3
    assert f.res is not None and f.res.warmup_end_decided_by == "data_wait_s"


def test_tail_drift_rule_stops_a_run_that_keeps_degrading() -> None:
    n = 3000
    rate = 400.0 * np.linspace(1.0, 0.9, n) * _noise(n, cv=0.003)
    f = run_rules(prepare(_run(rate)))
    assert f.done and f.res is not None and f.res.classification == "no_steady_state"
    assert f.trace[-1] in ("no_steady_state", "steady_drift")


def test_warmup_end_rule_on_an_exponential_warmup() -> None:
    n = 3000
    i = np.arange(n)
    rate = 400.0 * (1.0 - 0.5 * np.exp(-i / 100.0)) * _noise(n, cv=0.005)
    f = run_rules(prepare(_run(rate)), until="warmup_end")
    assert f.cls == "warmup" and 300 <= f.i_end <= 600  # the 1 % point of exp(-t/100) is t = 100 ln 50 = 391
    assert f.evidence["warmup_end_estimator"].startswith(("curve:", "isotonic"))


def test_levels_lost_and_dips_rules_and_the_trace_on_the_result() -> None:
    n = 3000
    i = np.arange(n)
    rate = 400.0 * (1.0 - 0.5 * np.exp(-i / 100.0)) * _noise(n, cv=0.005)
    rate[500::300] = 20.0
    f = run_rules(prepare(_run(rate)))
    res = f.res
    assert res is not None and res.to_dict() == analyze(_run(rate)).to_dict()
    assert res.classification == "dips" and res.evidence["underlying"] == "warmup" and res.period_steps == 300
    assert res.lost_s is not None and res.lost_s > 0 and res.steady_mean is not None
    assert f.trace[0].startswith("segmentation:") and f.trace[-1] == "periodic_dips"


def test_the_rules_record_names_the_deciding_rule_and_each_finding() -> None:
    # a data-bound cold phase of 150 steps, then checkpoint stalls every 300 steps: the class is dips (the
    # periodic_dips rule), the warm-up end is the cold phase's (the evidence), and each rule's finding is kept
    n = 1500
    rate = 400.0 * _noise(n)
    rate[:150] = 150.0
    rate[450::300] = 20.0
    wait = np.where(np.arange(n) < 150, 0.06, 0.0002)
    fit = analyze(_run(rate, data_wait_s=wait))
    rec = fit.to_dict()["rules"]
    assert set(rec) == {"decided_by", "warmup_end_by", "trace", "found"}
    assert rec["decided_by"] == "periodic_dips" and rec["warmup_end_by"] == "cold_phase"
    assert rec["trace"][-1] == "periodic_dips" and "cold_phase:warmup" in rec["trace"]
    # a per-step log: every rule but those for rows every N steps (no entry, so per-step records are as before)
    assert list(rec["found"]) == [name for name, _ in RULES if name not in ROWS_ONLY_RULES]
    found = rec["found"]
    assert found["stalls"]["period_steps"] == 300 and found["stalls"]["stalls"] >= 3
    assert abs(found["cold_phase"]["end_step"] - 150) <= 3 and found["cold_phase"]["decided_by"] == "data_wait_s"
    assert found["warmup_end"]["end_step"] == fit.warmup_end_step
    assert found["steady_window"]["whole_periods"] is True
    assert found["lost"]["lost_s"] == fit.lost_s and found["dips"]["classification"] == "dips"


def test_the_rules_record_of_a_run_stopped_early_and_of_a_flat_run() -> None:
    rec = analyze(_run(np.full(10, 100.0) * _noise(10))).rules
    assert rec["decided_by"] == "too_short" and list(rec["found"]) == ["too_short"]
    assert rec["found"]["too_short"] == {"n_points": 10, "stopped": True}
    rec = analyze(_run(400.0 * _noise(2000))).rules
    assert rec["decided_by"] == "segmentation" and rec["warmup_end_by"] == "segmentation"
    assert rec["found"]["warmup_end"]["end_step"] == 0 and rec["found"]["not_a_warmup"] == {"noise": None}


def test_every_rule_has_a_finder_and_the_estimator_stays_small() -> None:
    import ast
    from pathlib import Path

    from costmodel.warmup import rulefindings
    from costmodel.warmup.rulefindings import FINDERS

    assert set(FINDERS) == {name for name, _ in RULES}
    room = Path(rulefindings.__file__).parent
    assert len((room / "analyze.py").read_text().splitlines()) < 600
    long = [f"{p.name}:{n.name}" for p in sorted(room.glob("*.py")) for n in ast.walk(ast.parse(p.read_text()))
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.end_lineno is not None
            and n.end_lineno - n.lineno + 1 > 80]
    assert long == []


def test_overshoot_rule_turns_a_settling_slowdown_into_a_warmup() -> None:
    # fast at first, then settling 3 % lower over half the run: the segmentation says slowdown, the overshoot
    # rule finds where a decreasing isotonic fit from the peak stays within 1 % of the plateau
    n = 3000
    i = np.arange(n)
    rate = 400.0 * (1.0 - 0.5 * np.exp(-i / 50.0)) * (1.0 - 0.03 * np.minimum(i / (0.5 * n), 1.0)) * _noise(n, cv=0.002)
    f = run_rules(prepare(_run(rate)), until="overshoot")
    assert f.trace == ["segmentation:slowdown", "overshoot"] and f.cls == "warmup"
    assert f.overshoot_end is not None and 0 < f.overshoot_end < n // 2
    assert f.found["overshoot"]["end_step"] == f.overshoot_end


def test_not_a_warmup_rule_calls_a_slow_start_of_a_few_steps_a_startup_stall() -> None:
    rate = 400.0 * _noise(900)
    rate[:3] = 100.0
    f = run_rules(prepare(_run(rate)), until="not_a_warmup")
    assert f.trace == ["segmentation:warmup", "not_a_warmup"] and f.cls == "flat" and f.i_end == 0
    assert f.found["not_a_warmup"] == {"noise": "startup_stall"}


def test_bias_window_rule_moves_the_steady_start_after_a_curved_warmup() -> None:
    n = 3000
    i = np.arange(n)
    rate = 400.0 * (1.0 - 0.5 * np.exp(-i / 100.0)) * _noise(n, cv=0.005)
    f = run_rules(prepare(_run(rate)), until="bias_window")
    # the end is the 1 % point (about 391); the window starts later, by at most one warm-up length
    assert f.i_end < f.i_s <= 2 * f.i_end and abs(f.resid_bias_rel) < 0.001


def test_steady_window_stall_split_and_curve_rules_on_periodic_stalls() -> None:
    n = 3000
    rate = 400.0 * _noise(n)
    rate[100::300] = 20.0
    f = run_rules(prepare(_run(rate)), until="steady_window")
    assert f.win == (100, 2800)  # whole periods: from the first stall to the last one, one stall per period
    assert f.found["steady_window"] == {"whole_periods": True, "start_step": 100, "end_step": 2799, "too_short": False}
    f = run_rules(prepare(_run(rate)), until="curve")
    assert f.res is not None and f.res.stall_split is not None and f.found["stall_split"] == {"split": True}
    assert f.res.curve is not None and f.res.curve["model"] == "constant"  # a flat run: no warm-up curve


def _rows(rate: np.ndarray, every: int = 10) -> pd.DataFrame:
    """Interval means every ``every`` steps (Megatron-style: no data wait): each row's mean rate and step time."""
    st = BATCH / rate
    return pd.DataFrame({"step": every * np.arange(1, len(rate) + 1), "step_time_s": st, "samples_per_s": rate})


def _cold_then_sag(sag: float, sag_rows: int, n: int = 200) -> np.ndarray:
    # 9 cold rows, loader-bound: far below the warm level, two rows at it, then a wait again (row 9 at 30 % of it);
    # then ``sag_rows`` rows ``sag`` below the warm level, then warm
    rate = 400.0 * _noise(n, seed=3, cv=0.002)
    rate[:9] = [100.0, 150.0, 115.0, 150.0, 180.0, 398.0, 396.0, 370.0, 120.0]
    rate[9:9 + sag_rows] *= 1.0 - sag
    return rate


def test_rows_lost_time_rule_ends_the_cold_phase_where_its_lost_time_stops() -> None:
    # 10-step means: the curve's 1 % end (after the 2 % sag of rows 10-21) is later than the throughput's end (row 9)
    # and the segmentation's; the sag loses 0.10 s, under 0.2 % of the run's 80 s: the cold phase ends at step 91
    f = run_rules(prepare(_rows(_cold_then_sag(0.02, 12))), until="rows_lost_time")
    found = f.evidence["rows_lost_time"]
    assert found["kept"] == "throughput" and found["throughput_end_step"] == 91
    assert found["curve_end_step"] >= 201 and 0.05 < found["lost_between_s"] < found["material_s"]
    assert f.i_end == 9 and f.evidence["warmup_end_estimator"].startswith("rows_lost_time")
    fit = analyze(_rows(_cold_then_sag(0.02, 12)))
    assert fit.warmup_end_step == 91 and fit.rules["warmup_end_by"] == "rows_lost_time"
    assert fit.evidence["warmup_end_interval"]["low_step"] == 81 and fit.rules["found"]["rows_lost_time"]["kept"] == "throughput"


def test_rows_lost_time_rule_keeps_the_curve_end_when_the_rows_between_lose_material_time() -> None:
    # a 3 % sag over 40 rows loses ~0.5 s (0.6 % of the run): a slower phase of the warm-up, so the later end stands
    fit = analyze(_rows(_cold_then_sag(0.03, 40)))
    assert fit.warmup_end_step >= 400 and fit.rules["warmup_end_by"] != "rows_lost_time"
    assert fit.evidence.get("rows_lost_time", {}).get("kept") in (None, "curve")


def test_rows_lost_time_rule_does_not_look_at_a_per_step_log_nor_move_a_smooth_warmup() -> None:
    i = np.arange(3000)
    rate = 400.0 * (1.0 - 0.5 * np.exp(-i / 100.0)) * _noise(3000, cv=0.005)
    f = run_rules(prepare(_run(rate)), until="rows_lost_time")
    assert "rows_lost_time" not in f.found and "rows_lost_time" not in f.evidence
    # the same warm-up as 10-step means: the curve's 1 % end (t = 391) stands
    rows = rate.reshape(-1, 10)
    fit = analyze(_rows(10 * BATCH / (BATCH / rows).sum(axis=1)))
    assert 300 <= fit.warmup_end_step <= 600 and fit.rules["warmup_end_by"] != "rows_lost_time"


def test_bursty_rows_is_a_warm_row_followed_by_a_wait_before_the_throughput_end() -> None:
    from costmodel.warmup.coarse import bursty_rows

    ok = np.ones(8, dtype=bool)
    # a loader: cold, warm (within +5 %: ratio >= 1/1.05), then a row at a third of the warm rate
    assert bursty_rows(np.array([0.3, 0.4, 0.99, 0.97, 0.33, 1.0, 1.0, 1.0]), ok, 5)
    # a smooth approach only gets faster; a dip to 0.85 after a warm row is no wait (below half is)
    assert not bursty_rows(np.array([0.3, 0.5, 0.7, 0.9, 0.96, 1.0, 1.0, 1.0]), ok, 5)
    assert not bursty_rows(np.array([0.3, 0.96, 0.85, 0.9, 0.95, 1.0, 1.0, 1.0]), ok, 5)
    # the wait after the throughput end, or a left-out (stall) row, does not count
    assert not bursty_rows(np.array([0.3, 0.4, 0.99, 0.97, 0.9, 0.33, 1.0, 1.0]), ok, 5)
    left_out = ok.copy()
    left_out[4] = False
    assert not bursty_rows(np.array([0.3, 0.4, 0.99, 0.97, 0.33, 1.0, 1.0, 1.0]), left_out, 5)


def test_lost_time_end_is_not_licensed_when_the_ends_agree_or_the_segmentation_says_later() -> None:
    from costmodel.warmup.coarse import lost_time_end

    s = prepare(_rows(_cold_then_sag(0.02, 12)))
    assert lost_time_end(s, 9, 10, 9, s.n, None) is None  # one row apart: within the log's resolution
    assert lost_time_end(s, 1, 21, 1, s.n, None) is None  # a cold phase of the first row alone: a start-up stall
    assert lost_time_end(s, 9, 21, 15, s.n, None) is None  # the segmentation's steady start is later
    found = lost_time_end(s, 9, 21, 9, s.n, None)
    assert found is not None and found["end"] == 9 and found["bursty"]
