"""Issue 40, item 4: one number reader for every input file (``costmodel.foundation.numbers``, hooked into the YAML
loader, the placement model and the price importers): finite, in range, whole numbers exact (beyond 2**53 too, never
printed as ``np.float64(...)``), booleans never numbers, a key or rate given twice refused, ``2e-2`` read as ``8e2``
is, and the field named in one line as the user wrote it."""
from __future__ import annotations

import json
import math
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import numpy as np
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from costmodel.foundation import safeyaml
from costmodel.foundation.numbers import (
    EXACT_FLOAT_INT,
    DuplicateKey,
    NumberRefused,
    UniqueKeys,
    number,
    parse_decimal,
    unique_pairs,
)

EXAMPLES = Path(__file__).resolve().parents[2] / "costmodel" / "data" / "examples"


def _cli(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "costmodel", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=240)


# --- the reader itself: a table and properties ------------------------------------------------------------------

@pytest.mark.parametrize(("value", "kwargs", "expected"), [
    (True, {"integer": True}, "count: got true; expected a whole number, not true/false"),
    (False, {}, "count: got false; expected a number, not true/false"),
    (float("inf"), {}, "count: got inf; expected a finite number"),
    (float("nan"), {"integer": True}, "count: got nan; expected a finite whole number"),
    (10 ** 400, {}, "count: got 100000...(401 digits); expected a finite number (beyond the largest number"),
    (Decimal("1e309"), {}, "count: got 1E+309; expected a finite number (beyond the largest number"),
    (9007199254740994.0, {"integer": True}, "count: got 9007199254740994.0; expected a whole number written without"),
    (np.float64(2.5), {"integer": True}, "count: got 2.5; expected a whole number"),
    (-1, {"minimum": 0}, "count: got -1; expected a number >= 0"),
    (0, {"integer": True, "above": 0}, "count: got 0; expected a whole number > 0"),
    ("2e-2x", {"text": True}, "count: got '2e-2x'; expected a number"),
    ([1], {}, "count: got '[1]'; expected a number"),
])
def test_refusals_name_the_field_in_one_line(value, kwargs, expected):
    with pytest.raises(NumberRefused) as info:
        number(value, "count", **kwargs)
    assert str(info.value).startswith(expected), str(info.value)
    assert "\n" not in str(info.value) and "np.float64" not in str(info.value)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.integers(-(10 ** 30), 10 ** 30))
def test_whole_numbers_stay_exact_at_any_size(n):
    assert number(n, "x", integer=True) == n and type(number(n, "x", integer=True)) is int
    assert number(str(n), "x", integer=True, text=True) == n
    if abs(n) < EXACT_FLOAT_INT:
        assert number(float(n), "x", integer=True) == n


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.floats(allow_nan=True, allow_infinity=True))
def test_a_float_is_taken_exactly_when_finite(x):
    if math.isfinite(x):
        assert number(x, "x") == x
        assert number(repr(x), "x", text=True) == x  # the text of a float reads back to it (2e-2, 8e2, 1e-300)
    else:
        with pytest.raises(NumberRefused, match=r"^x: got "):
            number(x, "x")


@pytest.mark.parametrize(("text", "value"), [("2e-2", 0.02), ("8e2", 800.0), ("36.42", 36.42), (".5", 0.5),
                                             ("-1E+3", -1000.0), ("1e309", None), ("0x10", None), ("1_000", None),
                                             ("inf", None), ("nan", None), ("", None)])
def test_one_spelling_of_numbers_in_text(text, value):
    dec = parse_decimal(text)
    if value is None:
        assert dec is None or not math.isfinite(float(dec))
    else:
        assert float(dec) == value


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(st.tuples(st.sampled_from("abcde"), st.integers()), max_size=8))
def test_a_key_given_twice_is_refused_never_the_last_kept(pairs):
    keys = [k for k, _ in pairs]
    if len(set(keys)) == len(keys):
        assert unique_pairs(pairs) == dict(pairs)
    else:
        with pytest.raises(DuplicateKey, match="is given twice in one object"):
            unique_pairs(pairs)
        text = "{" + ", ".join(f'"{k}": {v}' for k, v in pairs) + "}"
        with pytest.raises(DuplicateKey):
            json.loads(text, object_pairs_hook=unique_pairs)


def test_unique_keys_is_a_dict_for_everything_else():
    d = UniqueKeys()
    d["a"] = 1
    assert d == {"a": 1} and isinstance(d, dict)


# --- YAML: 2e-2 is a float, non-finite floats refused under the key as written -----------------------------------

@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.floats(min_value=-1e300, max_value=1e300, allow_nan=False).filter(lambda x: x != 0),
       st.sampled_from(["{:e}", "{:E}", "{:.3e}", "{!r}"]))
def test_yaml_reads_every_float_spelling_as_a_float(x, fmt):
    text = fmt.format(x)
    value = safeyaml.safe_load(f"k: {text}\n")["k"]
    assert isinstance(value, float) and value == float(text)


@pytest.mark.parametrize("text", [".inf", "-.Inf", ".nan", "1e400", "-1.0e999", "2E+309"])
def test_yaml_refuses_non_finite_numbers_naming_the_key_path(text):
    doc = f"replica:\n  tiers: [1, {{usd_per_gib_month: {text}}}]\n"
    with pytest.raises(yaml.YAMLError) as info:
        safeyaml.safe_load(doc)
    assert str(info.value) == (f"replica.tiers[1].usd_per_gib_month: got '{text}', not a finite number; expected a "
                               "finite number (the largest is about 1.8e308) (line 2)")


def test_yaml_text_that_only_looks_like_a_number_stays_text():
    d = safeyaml.safe_load("a: 1e\nb: e5\nc: '2e-2'\nd: 1.5e3\ne: 12\nf: 0x1F\n")
    assert d == {"a": "1e", "b": "e5", "c": "2e-2", "d": 1500.0, "e": 12, "f": 31}


# --- through the verbs ---------------------------------------------------------------------------------------------

def _scenario(tmp_path: Path, old: str, new: str) -> Path:
    text = (EXAMPLES / "scenario.yaml").read_text()
    assert old in text
    p = tmp_path / "s.yaml"
    p.write_text(text.replace(old, new, 1))
    return p


def test_a_distribution_reads_2e_2_as_other_keys_read_8e2(tmp_path):
    base = _cli(["cost", str(EXAMPLES / "scenario.yaml"), "--json"], tmp_path)
    p = _scenario(tmp_path, "high: 0.02}", "high: 2e-2}")
    same = _cli(["cost", str(p), "--json"], tmp_path)
    assert same.returncode == 0, same.stderr
    a, b = json.loads(base.stdout), json.loads(same.stdout)
    assert a["options"] == b["options"]


def test_a_non_finite_price_is_named_by_the_key_the_user_wrote(tmp_path):
    p = _scenario(tmp_path, "storage_usd_per_gib_month: 0.023", "storage_usd_per_gib_month: 1e400")
    r = _cli(["cost", str(p), "--json"], tmp_path)
    assert r.returncode == 2 and len(r.stderr.splitlines()) == 1
    assert "replica.storage_usd_per_gib_month: got '1e400', not a finite number" in r.stderr
    assert "_gb_month" not in r.stderr


@pytest.mark.parametrize(("count", "expected"), [
    ("true", "data.offers[0].count: got true; expected a whole number, not true/false"),
    ("2.5", "data.offers[0].count: got 2.5; expected a whole number"),
    ("9007199254740993.0", "data.offers[0].count: got 9007199254740992.0; expected a whole number written without"),
])
def test_a_placement_count_is_a_whole_number_never_a_boolean(tmp_path, count, expected):
    assert subprocess.run([sys.executable, "-m", "costmodel", "example", str(tmp_path / "ex")],
                          capture_output=True).returncode == 0
    text = (tmp_path / "ex" / "placement.yaml").read_text()
    (tmp_path / "ex" / "p.yaml").write_text(text.replace("count: 2", f"count: {count}", 1))
    r = _cli(["place", "ex/p.yaml", "--json"], tmp_path)
    assert r.returncode == 2 and len(r.stderr.splitlines()) == 1, r.stderr
    assert expected in r.stderr and "np.float64" not in r.stderr


def _sp_rates(rate_json: str) -> str:
    return ('{"searchResults": [{"rate": ' + rate_json + ', "currency": "USD", "unit": "Hrs", '
            '"savingsPlanOffering": {"planType": "Compute", "paymentOption": "No Upfront", "durationSeconds": 31536000,'
            ' "currency": "USD", "offeringId": "o1"}, "usageType": "USW2-BoxUsage:p5.48xlarge", '
            '"operation": "RunInstances", "serviceCode": "AmazonEC2", "properties": [{"name": "region", "value": '
            '"us-west-2"}, {"name": "instanceType", "value": "p5.48xlarge"}]}]}')


@pytest.mark.parametrize(("rate", "expected"), [
    ('"36.42"', None),
    ('"2e-2"', None),
    ('"1e309"', "searchResults[0]: rate: got '1e309'; expected a finite number"),
    ("1e400", "searchResults[0]: rate: got '1E+400'; expected a finite number"),
    ('"36.42", "rate": "0.0001"', "key 'rate' is given twice in one object; keep one"),
    ('"2e6"', "rate: got '2e6'; expected a number <= 1e+06"),
])
def test_savings_plans_rates_are_finite_in_range_and_given_once(tmp_path, rate, expected):
    src = tmp_path / "sp-rates.json"
    src.write_text(_sp_rates(rate))
    r = _cli(["prices", "import", str(src), "-o", str(tmp_path / "out"), "--json"], tmp_path)
    if expected is None:
        assert r.returncode == 0, r.stderr
        assert json.loads(r.stdout)["rows"] == 1
        return
    assert r.returncode == 2 and len(r.stderr.splitlines()) == 1, r.stderr
    assert expected in r.stderr and "sp-rates.json" in r.stderr
    assert not (tmp_path / "out").exists()


def test_a_catalog_key_priced_twice_in_one_file_is_refused(tmp_path):
    doc = json.loads(_sp_rates('"36.42"'))
    second = json.loads(json.dumps(doc["searchResults"][0]))
    second["rate"] = "0.0001"
    doc["searchResults"].append(second)
    src = tmp_path / "sp-rates.json"
    src.write_text(json.dumps(doc))
    r = _cli(["prices", "import", str(src), "-o", str(tmp_path / "out")], tmp_path)
    assert r.returncode == 2 and "is priced twice (36.42 and 0.0001 USD per instance-hour); keep one" in r.stderr


@pytest.mark.parametrize(("kwargs", "expected"), [
    ({"seed": np.float64(2.0 ** 60)}, ("parameter 'seed': got 1.152921504606847e+18; expected a whole number written "
                                      "without a dot or exponent")),
    ({"seed": True}, "parameter 'seed': got true; expected a whole number, not true/false"),
    ({"margin": 10 ** 400}, "parameter 'margin': got 100000...(401 digits); expected a finite number"),
    ({"monte_carlo_n": 2.5}, "parameter 'monte_carlo_n': got 2.5; expected a whole number"),
])
def test_report_parameters_use_the_same_number_reader(kwargs, expected):
    from costmodel.foundation.errors import ReportError
    from costmodel.report.params import validate_parameters

    with pytest.raises(ReportError) as info:
        validate_parameters(**kwargs)
    assert str(info.value).startswith(expected) and "np.float64" not in str(info.value)


def test_report_seed_beyond_2_53_stays_exact():
    from costmodel.report.params import validate_parameters

    assert validate_parameters(seed=2 ** 70).seed == 2 ** 70


def test_a_document_too_large_without_aliases_is_not_called_an_alias_bomb():
    class Small(safeyaml.BoundedSafeLoader):
        max_nodes = 1000

    big = "candidates:\n" + "".join(f"  - {{name: c{i}, region: r}}\n" for i in range(400))
    with pytest.raises(safeyaml.YamlRefused, match=r"^more than 1,000 values in one document; refused"):
        safeyaml.load(big, Small)
    bomb = "a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n" + "".join(
        f"{c}: &{c} [{', '.join(['*' + p] * 10)}]\n" for p, c in zip("ab", "bc", strict=True))
    with pytest.raises(safeyaml.YamlRefused, match="an alias bomb"):
        safeyaml.load(bomb, Small)
