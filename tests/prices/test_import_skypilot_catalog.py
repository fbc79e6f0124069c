"""`costmodel prices import` of SkyPilot's catalog (issue 37) on the real rows in ../shared (never copied): every
cloud is a provider, GCP's host and GPU rows are added, spot rows become their own item, dates are the user's
(or none), an older row never replaces a newer dated one, and duplicates and empty prices are counted by name."""
from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pytest

from costmodel.prices.catalog import PRICES_DIR, load_prices


def _rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def _source(skypilot_dir: Path, cloud: str) -> list[dict[str, str]]:
    return _rows(skypilot_dir / cloud / "vms.csv")


def test_every_cloud_becomes_a_provider_with_on_demand_and_spot_items(cli, skypilot_dir, tmp_path):
    files = [skypilot_dir / c / "vms.csv" for c in ("aws", "lambda", "nebius", "runpod", "azure")]
    out = cli.json("prices", "import", *files, "-o", tmp_path / "p", "--as-of", "2025-05", "--json")
    table = load_prices(tmp_path / "p")
    assert {"aws", "lambda", "nebius", "runpod", "azure"} <= set(table.providers())
    # on demand: the zones of us-east-1 all say 98.32 (the pre-June-2025 price of this snapshot)
    src = [r for r in _source(skypilot_dir, "aws") if r["InstanceType"] == "p5.48xlarge" and r["Region"] == "us-east-1"]
    assert {r["Price"] for r in src} == {"98.32"}
    row = table.lookup("aws", "p5.48xlarge", "us-east-1")
    assert row.usd == 98.32 and row.as_of == "2025-05" and "accelerator H100 x 8" in row.notes
    # spot: its own item, the highest zone price kept, the zones' range said
    spots = [float(r["SpotPrice"]) for r in src if r["SpotPrice"]]
    spot = table.lookup("aws", "p5.48xlarge:spot", "us-east-1")
    assert spot.usd == max(spots) and f"{min(spots):g}" in spot.notes
    # a GPU cloud's row as written
    lam = next(r for r in _source(skypilot_dir, "lambda")
               if r["InstanceType"] == "gpu_8x_h100_sxm5" and r["Region"] == "us-east-1")
    assert table.lookup("lambda", "gpu_8x_h100_sxm5", "us-east-1").usd == float(lam["Price"])
    by_file = {Path(f["path"]).parent.name: f for f in out["files"]}
    # empty prices and duplicates are counted and named, never dropped silently
    lam_empty = sum(1 for r in _source(skypilot_dir, "lambda") if not r["SpotPrice"])
    assert sum(n for k, n in by_file["lambda"]["skip_reasons"].items() if k.startswith("empty SpotPrice")) == lam_empty
    assert by_file["runpod"]["skip_reasons"]["duplicate row: 2x_B200_SECURE"] == 14
    e5 = sum(1 for r in _source(skypilot_dir, "aws") if r["InstanceType"] == "p5e.48xlarge" and not r["Price"])
    assert by_file["aws"]["skip_reasons"]["empty Price (on demand): p5e.48xlarge"] == e5 > 0


def test_gcp_machine_price_is_the_host_row_plus_the_gpu_row_of_its_zone(cli, skypilot_dir, tmp_path):
    cli.json("prices", "import", skypilot_dir / "gcp" / "vms.csv", "-o", tmp_path / "g", "--json")
    src = _source(skypilot_dir, "gcp")
    host = {r["AvailabilityZone"]: float(r["Price"]) for r in src
            if r["InstanceType"] == "a3-highgpu-8g" and r["Region"] == "us-central1" and r["Price"]}
    gpu = {r["AvailabilityZone"]: float(r["Price"]) for r in src
           if not r["InstanceType"] and r["AcceleratorName"] == "H100" and float(r["AcceleratorCount"] or 0) == 8
           and r["Region"] == "us-central1" and r["Price"]}
    both = {z: host[z] + gpu[z] for z in host if z in gpu}
    assert both
    row = load_prices(tmp_path / "g").lookup("gcp", "a3-highgpu-8g", "us-central1")
    assert row.usd == pytest.approx(max(both.values()), abs=1e-9)
    assert row.as_of == "" and "undated" in row.notes  # no --as-of: undated, and said so


def test_an_older_row_never_replaces_a_newer_dated_one_and_the_kept_one_is_named(cli, skypilot_dir, tmp_path):
    folder = tmp_path / "catalog"
    shutil.copytree(PRICES_DIR, folder, ignore=shutil.ignore_patterns("skypilot_*", "README.md"))
    out = cli.json("prices", "import", skypilot_dir / "aws" / "vms.csv", "-o", folder, "--as-of", "2025-05",
                   "--item", "p5.48xlarge*", "--json")
    kept = out["files"][0]["kept"]
    assert any("p5.48xlarge us-east-1: kept instances.csv:2 (55.04 USD, as_of 2026-01-21) over the imported "
               "98.32 USD (as_of 2025-05)" in k for k in kept)
    table = load_prices(folder)
    assert table.lookup("aws", "p5.48xlarge", "us-east-1").usd == 55.04  # the newer dated price
    assert table.lookup("aws", "p5.48xlarge", "eu-west-2").usd == 127.816  # filled where the catalog had none
    # undated rows never replace dated ones either
    out2 = cli.json("prices", "import", skypilot_dir / "aws" / "vms.csv", "-o", tmp_path / "c2", "--item",
                    "p5.48xlarge", "--json")
    assert out2["files"][0]["as_of_stated"] == ""
    # a newer stated date wins, and is said to (the second import into the folder replaces its own file: --force)
    out3 = cli.json("prices", "import", skypilot_dir / "aws" / "vms.csv", "-o", folder, "--as-of", "2026-12-01",
                    "--item", "p5.48xlarge", "--force", "--json")
    assert any("is newer than instances.csv:2" in k for k in out3["files"][0]["kept"])
    assert load_prices(folder).lookup("aws", "p5.48xlarge", "us-east-1").usd == 98.32


def test_the_bundled_imported_rows_are_what_the_importer_writes_from_the_real_catalog(cli, skypilot_dir, tmp_path):
    folder = tmp_path / "catalog"
    shutil.copytree(PRICES_DIR, folder, ignore=shutil.ignore_patterns("skypilot_*", "README.md"))
    for cloud, items, commit in (("aws", ["p5.48xlarge*", "p5en.48xlarge*", "p4d.24xlarge*"], "001367d"),
                                 ("lambda", ["gpu_8x_h100_sxm5"], "1158013"),
                                 ("nebius", ["gpu-h100-sxm_8gpu*", "gpu-h200-sxm_8gpu*"], "22fd1fe")):
        args = [a for i in items for a in ("--item", i)]
        cli.json("prices", "import", skypilot_dir / cloud / "vms.csv", "-o", folder, "--as-of", "2025-05", *args,
                 "--verified", f"dataset skypilot-org/skypilot-catalog catalogs/v7/{cloud}/vms.csv @{commit} "
                               "(snapshot date unknown)", "--json")
        assert (folder / f"skypilot_{cloud}.csv").read_text() == (PRICES_DIR / f"skypilot_{cloud}.csv").read_text()


def test_a_broken_price_cell_names_the_file_and_line(cli, tmp_path):
    d = tmp_path / "lambda"
    d.mkdir()
    (d / "vms.csv").write_text("InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,"
                               "SpotPrice\ngpu_8x_h100_sxm5,H100,8,1,1,12.5,us-east-1,,\n"
                               "gpu_8x_h100_sxm5,H100,8,1,1,cheap,us-west-1,,\n")
    r = cli("prices", "import", d / "vms.csv", "-o", tmp_path / "out")
    assert r.rc == 2 and "vms.csv:3: Price 'cheap' is not a number" in r.err
    assert not (tmp_path / "out").exists()
