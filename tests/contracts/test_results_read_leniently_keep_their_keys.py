"""Reading a result into its model for a tolerant consumer (the checklist's evidence): a garbled value is
left out and the rest is read; a typed section writes its keys back in the order they were read."""
from __future__ import annotations

from costmodel.contracts.read import read_lenient
from costmodel.contracts.results import CompareRecord, CostRecord, RunFit


def test_a_garbled_value_is_left_out_and_the_rest_is_read():
    data = {
        "ratio": "fast", "remote_lost_s": 45.0, "margin": 0.02, "equivalent": "maybe",
        "remote_steady_hit_ratio": 1.5,  # outside [0, 1]
        "colocated": "x",
        "remote": [1, None, {"run_id": "s1", "classification": "flat", "steady_mean": "x", "steady_n": 40},
                   {"classification": None}],
    }
    m = read_lenient(CompareRecord, data)
    assert m is not None
    assert m.ratio is None and m.remote_lost_s == 45.0 and m.margin == 0.02
    assert m.given("equivalent") is None and m.remote_steady_hit_ratio is None and m.colocated == []
    # the two non-objects go; a run keeps its good figures; a run without id or class reads them as empty
    assert [(f.run_id, f.classification, f.steady_mean, f.steady_n) for f in m.remote] == [
        ("s1", "flat", None, 40), ("", "", None, None)]
    assert data["ratio"] == "fast" and len(data["remote"]) == 4  # the caller's dict is not touched


def test_a_missing_required_key_reads_as_null():
    m = read_lenient(CompareRecord, {"remote_lost_s": 3.0})
    assert m is not None and m.ratio is None and m.given("ratio") is None and m.remote_lost_s == 3.0


def test_what_cannot_be_a_result_is_none():
    assert read_lenient(CostRecord, {"options": {}, "horizon_months": 0}) is None  # no horizon > 0 to be had
    assert read_lenient(CostRecord, "not a dict") is None
    assert read_lenient(CostRecord, ["nor", "this"]) is None
    assert read_lenient(RunFit, 3) is None


def test_models_pass_through_and_objects_say_what_they_hold():
    m = CompareRecord.model_validate({"ratio": 0.99, "remote_lost_s": 1.0})
    assert read_lenient(CompareRecord, m) is m

    class Old:
        def to_dict(self):
            return {"run_id": "r", "classification": "dips", "dip_loss_fraction": float("nan")}

    f = read_lenient(RunFit, Old())
    assert f is not None and f.run_id == "r" and f.classification == "dips" and f.dip_loss_fraction is None


def test_typed_sections_write_their_keys_in_the_order_read(cli, examples_dir, tmp_path):
    cmp = tmp_path / "compare.json"
    cmp.write_text(cli("compare", "--colocated", examples_dir / "colocated_steps.csv", "--remote",
                       examples_dir / "remote_steps.csv", "--json").out)
    printed = cli.json("cost", examples_dir / "scenario.yaml", "--from-compare", cmp, "--today", "2026-12-02",
                       "--json")
    model = CostRecord.model_validate(printed)
    assert model.inputs.values.training.runs_per_month == printed["inputs"]["values"]["training"]["runs_per_month"]
    assert model.derived.working_set_gb == printed["derived"]["working_set_gb"]
    back = model.to_json_dict()
    assert back["inputs"]["values"] == printed["inputs"]["values"]
    # typed keys (size_gb, runs_per_month, capacity_gb, ...) stay where the verb printed them
    for section in ("dataset", "training", "cache", "link"):
        assert list(back["inputs"]["values"][section]) == list(printed["inputs"]["values"][section]), section
    assert list(back["inputs"]["values"]) == list(printed["inputs"]["values"])
    assert list(back["derived"]) == list(printed["derived"])
