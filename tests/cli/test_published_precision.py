"""Published figures do not depend on the last bits of the arithmetic (issue 40): the JSON of ``fit`` and
``compare`` is byte-identical when the inputs or the fit's internals move at the 1e-12 relative level,
what another CPU (other SIMD ``exp``/``log``, another BLAS kernel) does to the same computation. The exact
figures do move (the test shows it, so it can fail); the published ones (6 significant digits, degenerate
candidate fits without their unidentified parameters, docs/contracts.md) do not."""
from __future__ import annotations

import contextlib
import csv
import io
import json
import random
from pathlib import Path

import numpy as np
import pytest

from costmodel.foundation.published import published, round_sig, round_usd

EXAMPLES = Path(__file__).resolve().parents[2] / "costmodel" / "data" / "examples"
STEPS = ("colocated_steps.csv", "remote_steps.csv")


def _write_steps(folder: Path, rel: float, seed: int = 7) -> None:
    """The bundled step logs in ``folder``, every measured figure (not the step) times ``1 + rel * u``,
    u uniform in [-1, 1] (exact round trip: 17 significant digits)."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    for name in STEPS:
        with open(EXAMPLES / name, newline="") as src, open(folder / name, "w", newline="") as dst:
            rows = csv.reader(src)
            out = csv.writer(dst, lineterminator="\n")
            out.writerow(next(rows))
            for row in rows:
                out.writerow([row[0], *(f"{float(v) * (1.0 + rel * rng.uniform(-1.0, 1.0)):.17g}" if v else v
                                        for v in row[1:])])


def _run(folder: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> str:
    from costmodel.cli import main

    monkeypatch.chdir(folder)
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        assert main(list(args)) == 0
    return out.getvalue()


FIT = ("fit", *STEPS, "--json", "-q")
COMPARE = ("compare", "--colocated", STEPS[0], "--remote", STEPS[1], "--json", "-q")


@pytest.fixture
def exact(monkeypatch: pytest.MonkeyPatch):
    """Inside the block, the JSON writer publishes every bit (what the output was before issue 40)."""
    import costmodel.foundation.published as pub

    @contextlib.contextmanager
    def block():
        with monkeypatch.context() as m:
            m.setattr(pub, "published", lambda obj, *a, **k: obj)
            yield
    return block


@pytest.mark.parametrize("verb", [FIT, COMPARE], ids=["fit", "compare"])
def test_inputs_moved_by_1e_12_give_the_same_published_bytes(tmp_path, monkeypatch, exact, verb):
    _write_steps(tmp_path / "a", 0.0)
    _write_steps(tmp_path / "b", 1e-12)
    a, b = (_run(tmp_path / d, monkeypatch, *verb) for d in "ab")
    assert a == b
    with exact():
        xa, xb = (_run(tmp_path / d, monkeypatch, *verb) for d in "ab")
    assert xa != xb  # the perturbation reaches the figures: only their publication makes them equal
    assert json.loads(a)  # and the published output is the real thing


def test_last_bit_noise_inside_the_fit_gives_the_same_published_bytes(tmp_path, monkeypatch, exact):
    """The profiled RSS of every curve evaluation moved by up to 1e-12 (relative, a fixed pseudo-random
    pattern): the optimizer of the flat candidates (the colocated run has no warm-up; exp2 with a weight near
    0) walks elsewhere, and the published fit is still the same bytes."""
    from costmodel.warmup import curve

    _write_steps(tmp_path / "a", 0.0)
    clean = _run(tmp_path / "a", monkeypatch, *FIT)
    with exact():
        clean_exact = _run(tmp_path / "a", monkeypatch, *FIT)
    real_profile = curve._profile
    real_projection = curve._Projection.__call__
    rng = np.random.default_rng(3)

    def noisy(y, G, *args):  # the grid's profile of every candidate shape
        a, b, rss = real_profile(y, G, *args)
        return a, b, rss * (1.0 + 1e-12 * rng.uniform(-1.0, 1.0, size=rss.shape))

    def noisy_projection(self, g):  # each evaluation of the polish (Nelder-Mead)
        a, b, rss = real_projection(self, g)
        return a, b, rss * (1.0 + 1e-12 * rng.uniform(-1.0, 1.0))

    monkeypatch.setattr(curve, "_profile", noisy)
    monkeypatch.setattr(curve._Projection, "__call__", noisy_projection)
    assert _run(tmp_path / "a", monkeypatch, *FIT) == clean
    with exact():
        assert _run(tmp_path / "a", monkeypatch, *FIT) != clean_exact


def test_degenerate_candidates_are_flagged_and_their_parameters_not_published(tmp_path, monkeypatch):
    _write_steps(tmp_path / "a", 0.0)
    runs = {r["run_id"]: r for r in json.loads(_run(tmp_path / "a", monkeypatch, *FIT))}
    models = {m["model"]: m for m in runs["remote_steps"]["evidence"]["models"]}
    # the two-tier model on one tier: the second tier's weight is ~1e-13, its scale held at the clamp
    assert models["exp2"]["identifiable"] is False and models["exp2"]["unidentified"] == ["k", "w"]
    assert models["exp2"]["params"] == {"tau": None, "k": None, "w": None}  # keys kept, no value
    # power on a ridge (tau and alpha grow together to ~1e10: an exponential)
    assert models["power"]["unidentified"] == ["tau", "alpha"]
    # the chosen logistic and the exponential are measured: every digit that is published
    assert models["logistic"]["identifiable"] is True and models["logistic"]["params"] == {"x0": 105.566, "s": 4.21587}
    assert models["exp"]["params"] == {"tau": 87.7333}
    assert runs["remote_steps"]["curve"]["identifiable"] is True and runs["remote_steps"]["curve"]["unidentified"] == []
    # no warm-up in the colocated run: the rise's time constant is not identified
    colo = {m["model"]: m for m in runs["colocated_steps"]["evidence"]["models"]}
    assert colo["exp"]["unidentified"] == ["tau"] and colo["step"]["identifiable"] is True


def test_a_well_determined_two_tier_warmup_is_identifiable():
    from costmodel.warmup.curve import fit_model

    x = np.arange(0, 400, 4.0)
    y = 116 - 20 * (0.6 * np.exp(-x / 20) + 0.4 * np.exp(-x / 150)) + np.random.default_rng(1).normal(0, 0.1, x.size)
    f = fit_model("exp2", x, y)
    assert f.unidentified == ()
    assert 15 < f.theta[0] < 25 and 0.3 < f.theta[2] < 0.5


@pytest.mark.parametrize("x,want", [(116.00374386373426, 116.004), (0.017853967427133854, 0.0178540),
                                    (-519.2503358225723, -519.25), (1150076793.817712, 1150080000.0),
                                    (6.255852791630982e-13, 6.25585e-13), (-0.0, 0.0), (0.0, 0.0)])
def test_six_significant_digits(x, want):
    assert round_sig(x) == want
    assert json.dumps(round_sig(x)) == json.dumps(want)


def test_usd_keeps_its_cents_and_the_key_is_inherited():
    assert round_usd(73836.547) == 73836.55  # 6 significant digits would be 73836.5
    assert round_usd(0.0234567891) == 0.0234568  # a price per GB keeps 6 significant digits
    doc = {"total_usd": 1234567.891, "ratio": 1.23456789, "options_usd": {"low": 98765.4321, "n": 3},
           "list": [0.1 + 0.2, True, None, "x"]}
    assert published(doc) == {"total_usd": 1234567.89, "ratio": 1.23457, "options_usd": {"low": 98765.43, "n": 3},
                              "list": [0.3, True, None, "x"]}


def test_the_report_charts_json_is_rounded_too():
    from costmodel.report.reproducible import _published_json

    spec = {"data": {"values": [{"step": 3, "samples_per_s": 101.46999999999998, "t_s": 7.6050000000000004}]},
            "width": 600}
    data = {"application/vnd.vegalite.v5+json": spec, "text/plain": "0.30000000000000004"}
    got = _published_json(data)
    assert got["application/vnd.vegalite.v5+json"]["data"]["values"] == [{"step": 3, "samples_per_s": 101.47, "t_s": 7.605}]
    assert got["text/plain"] == "0.30000000000000004"  # text is the notebook's own formatting


def _published_one_by_one(obj, key=None, digits=6):
    """The rule as first written (every value through the recursion), against which the rows' loop is checked."""
    from costmodel.foundation.published import is_usd_key, round_sig, round_usd

    if isinstance(obj, bool) or obj is None or isinstance(obj, (int, str)):
        return obj
    if isinstance(obj, float):
        return round_usd(obj, digits) if is_usd_key(key) else round_sig(obj, digits)
    if isinstance(obj, dict):
        return {k: _published_one_by_one(v, k if is_usd_key(str(k)) or not is_usd_key(key) else key, digits)
                for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_published_one_by_one(v, key, digits) for v in obj]
    return obj


def test_rows_of_data_are_published_as_every_value_one_by_one():
    """A chart's dataset (a list of flat rows) goes through one loop per row: the same values and types as the
    recursion, under USD keys and not, with nested values, numpy floats, NaN, ints, bools and None in the rows."""
    import json
    import random

    import numpy as np

    from costmodel.foundation.published import published

    rng = random.Random(7)

    def value(depth):
        pick = rng.randrange(9 if depth < 2 else 7)
        return [lambda: rng.uniform(-1e6, 1e6) * 10 ** rng.randint(-9, 3), lambda: rng.randint(-5, 5), lambda: None,
                lambda: rng.random() < 0.5, lambda: rng.choice(["a", "usd"]), lambda: float("nan"),
                lambda: np.float64(rng.random() * 1234.5678),
                lambda: {rng.choice(["x", "cost_usd", "y"]): value(depth + 1) for _ in range(2)},
                lambda: [value(depth + 1) for _ in range(2)]][pick]()

    for key in (None, "values", "total_usd"):
        rows = [{k: value(0) for k in rng.sample(["x", "y", "usd_per_gb", "n", "label"], 4)} for _ in range(300)]
        rows.insert(5, [1.23456789, {"a_usd": 2.345678}])  # a row that is not a dict
        got, want = published(rows, key), _published_one_by_one(rows, key)
        assert json.dumps(got) == json.dumps(want)
        assert [type(v) for r in got if isinstance(r, dict) for v in r.values()] == \
            [type(v) for r in want if isinstance(r, dict) for v in r.values()]


def _types(obj):
    """``obj``'s shape with the type of every value (what ``json.dumps`` alone would not tell apart: 1 and 1.0,
    True and 1, a tuple and a list)."""
    if isinstance(obj, dict):
        return {k: _types(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return (type(obj), [_types(v) for v in obj])
    return type(obj)


def _jsonable_one_by_one(obj):
    """The rule as first written (every value through the one general test), against which the loops over plain
    containers are checked."""
    import math
    import os

    import pandas as pd

    if hasattr(obj, "to_dict") and not isinstance(obj, type) and not type(obj).__module__.startswith("pandas"):
        return _jsonable_one_by_one(obj.to_dict())
    if isinstance(obj, dict):
        return {str(k): _jsonable_one_by_one(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, set)):
        return [_jsonable_one_by_one(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return [_jsonable_one_by_one(v) for v in obj.tolist()]
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        f = float(obj)
        return f if math.isfinite(f) else None
    if isinstance(obj, os.PathLike):
        return os.fspath(obj)
    if obj is None or isinstance(obj, (str, int)):
        return obj
    if isinstance(obj, pd.DataFrame):
        return _jsonable_one_by_one(obj.to_dict(orient="records"))
    if isinstance(obj, pd.Series):
        return _jsonable_one_by_one(obj.tolist())
    if hasattr(obj, "isoformat"):
        return obj.isoformat()
    return str(obj)


def test_jsonable_plain_containers_are_converted_as_every_value_one_by_one():
    """``to_jsonable`` walks plain dicts and lists in loops (a report's records hold tens of thousands of
    numbers): the same values and types as the general rule, for every kind of value it converts, subclasses of
    the plain types (an enum, a numpy float) included."""
    import dataclasses
    import datetime as dt
    import enum

    import pandas as pd

    from costmodel.foundation.util import to_jsonable

    class Colour(str, enum.Enum):
        RED = "red"

    class Level(enum.IntEnum):
        HIGH = 3

    class Ratio(float):
        pass

    @dataclasses.dataclass
    class Part:
        x: float

        def to_dict(self):
            return {"x": self.x, "nan": float("nan"), 2: (1, np.int32(2))}

    rng = random.Random(11)
    leaves = [lambda: rng.uniform(-1e6, 1e6), lambda: float("nan"), lambda: float("-inf"), lambda: -0.0,
              lambda: rng.randint(-9, 9), lambda: rng.random() < 0.5, lambda: None, lambda: "text",
              lambda: np.float64(rng.random()), lambda: np.float32(0.5), lambda: np.int64(7), lambda: np.bool_(True),
              lambda: np.array([1.5, np.nan, 2.0]), lambda: np.arange(6).reshape(2, 3), lambda: Path("a/b.csv"),
              lambda: Colour.RED, lambda: Level.HIGH, lambda: Ratio(0.25), lambda: Part(1.0),
              lambda: pd.Series([1.0, np.nan]), lambda: pd.DataFrame({"a": [1, 2], "b": [0.5, np.inf]}),
              lambda: dt.date(2026, 1, 2), lambda: {3, 1, 2}, lambda: ValueError("x")]

    def value(depth):
        if depth >= 3 or rng.random() < 0.6:
            return rng.choice(leaves)()
        kind = rng.randrange(3)
        items = [value(depth + 1) for _ in range(rng.randint(0, 4))]
        if kind == 0:
            return {rng.choice(["a", "b", 1, 2.5, None, ("t", 1)]): v for v in items}
        return items if kind == 1 else tuple(items)

    objs = [make() for make in leaves] + [[value(0) for _ in range(25)] for _ in range(40)]
    for obj in objs:
        got, want = to_jsonable(obj), _jsonable_one_by_one(obj)
        assert json.dumps(got) == json.dumps(want)
        assert _types(got) == _types(want)
