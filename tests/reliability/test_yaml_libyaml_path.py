"""The libyaml path of ``foundation.safeyaml.load`` (issue 37, speed): it gives the Python loader's answer on
every bundled YAML file, and declines (so the Python loader answers, with its message) wherever a bound or an
error is involved."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from costmodel.foundation import safeyaml

EXAMPLES = Path(safeyaml.__file__).resolve().parents[1] / "data" / "examples"

pytestmark = pytest.mark.skipif(not yaml.__with_libyaml__, reason="PyYAML built without libyaml")


def _python(text: str):
    loader = safeyaml.BoundedSafeLoader(text)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


@pytest.mark.parametrize("name", sorted(p.name for p in EXAMPLES.glob("*.yaml")))
def test_bundled_yaml_reads_the_same_through_libyaml(name):
    text = (EXAMPLES / name).read_text(encoding="utf-8")
    ok, data = safeyaml._load_libyaml(text)
    assert ok
    assert data == _python(text)


@pytest.mark.parametrize("text", [
    "a: 1\na: 2\n",                              # duplicate key
    "[" * 70 + "]" * 70,                         # nesting beyond the bound
    "a: &x [1, 2]\nb: *x\nc: *y\n",              # undefined alias
    "a: 1\n---\nb: 2\n",                          # two documents
    "a: b: c\n",                                  # syntax error
])
def test_libyaml_path_declines_what_the_python_loader_refuses(text):
    assert safeyaml._load_libyaml(text) == (False, None)
    with pytest.raises(yaml.YAMLError):
        safeyaml.load(text)


def test_scalars_resolve_as_the_python_loader_resolves_them():
    text = "d: 2026-12-05\nf: 1e3\ng: 1.5e3\no: 0o17\nn: ~\nu: 1_000\nb: yes\nt: '42'\n"
    ok, data = safeyaml._load_libyaml(text)
    assert ok and data == _python(text)
    # YAML 1.2 floats without a dot or an exponent sign are floats on both paths (the one number reader)
    assert data["f"] == 1000.0 and data["g"] == 1500.0 and data["b"] is True and data["t"] == "42"


def test_nesting_near_the_bound_is_left_to_the_python_loader():
    text = "[" * 63 + "]" * 63
    assert safeyaml._load_libyaml(text) == (False, None)
    assert safeyaml.load(text) == _python(text)
