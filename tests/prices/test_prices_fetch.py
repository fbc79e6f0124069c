"""`costmodel prices fetch` then `costmodel prices import`: the catalog refreshed in two commands, offline, against a
server on 127.0.0.1 that answers like the three price APIs (paths, query strings, paging) with the real excerpts."""
from __future__ import annotations

import json
import threading
import urllib.parse
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest

from costmodel.cli import main
from costmodel.prices.catalog import load_prices


class _Api(BaseHTTPRequestHandler):
    files: ClassVar[dict[str, bytes]] = {}
    seen: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        self.seen.append(self.path)
        parts = urllib.parse.urlsplit(self.path)
        q = dict(urllib.parse.parse_qsl(parts.query))
        key = parts.path
        if parts.path == "/api/retail/prices":
            key = f"azure:{q.get('$filter')}:{q.get('$skip', '0')}:{q.get('currencyCode')}"
        elif parts.path.endswith("/skus"):
            key = f"gcp:{parts.path}:{q.get('key')}:{q.get('pageToken', '')}:{q.get('currencyCode')}"
        body = self.files.get(key)
        if body is None:
            self.send_error(404, "Not Found")
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def api(monkeypatch, price_files_dir) -> Iterator[tuple[str, dict[str, bytes], list[str]]]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Api)
    base = f"http://127.0.0.1:{server.server_port}"
    files: dict[str, bytes] = {}
    seen: list[str] = []
    _Api.files, _Api.seen = files, seen
    for env in ("COSTMODEL_AWS_PRICING_URL", "COSTMODEL_AZURE_PRICES_URL", "COSTMODEL_GCP_BILLING_URL"):
        monkeypatch.setenv(env, base)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield base, files, seen
    server.shutdown()
    server.server_close()


def _serve_all(base: str, files: dict[str, bytes], price_files_dir: Path) -> None:
    files["/offers/v1.0/aws/AmazonEC2/current/us-east-1/index.json"] = (
        price_files_dir / "aws-ec2-us-east-1-p4d-opencost.json").read_bytes()
    vm = "serviceName eq 'Virtual Machines' and armRegionName eq 'eastus' and priceType eq 'Consumption'"
    page = json.loads((price_files_dir / "azure-retail-page-nd-h100_rebuilt.json").read_text())
    items = page["Items"]
    flt = urllib.parse.quote(vm)
    files[f"azure:{vm}:0:'USD'"] = json.dumps({**page, "Items": items[:3], "Count": 3, "NextPageLink": (
        f"{base}/api/retail/prices?currencyCode='USD'&$filter={flt}&$skip=3")}).encode()
    files[f"azure:{vm}:3:'USD'"] = json.dumps({**page, "Items": items[3:], "Count": 3, "NextPageLink": None}).encode()
    gcp = json.loads((price_files_dir / "gcp-compute-skus-opencost.json").read_text())
    files["gcp:/v1/services/6F81-5844-456A/skus:K3Y::USD"] = json.dumps(
        {"skus": gcp["skus"][:2], "nextPageToken": "tok-2"}).encode()
    files["gcp:/v1/services/6F81-5844-456A/skus:K3Y:tok-2:USD"] = json.dumps(
        {"skus": gcp["skus"][2:], "nextPageToken": ""}).encode()


def test_fetch_then_import_is_the_two_command_refresh(api, price_files_dir, tmp_path, capsys, monkeypatch):
    base, files, seen = api
    _serve_all(base, files, price_files_dir)
    monkeypatch.setattr("costmodel.prices.fetch.AZURE_QUERIES", {"vm": (
        "serviceName eq 'Virtual Machines' and armRegionName eq '{region}' and priceType eq 'Consumption'")})
    monkeypatch.setattr("costmodel.prices.fetch.GCP_SERVICES", {"compute": "6F81-5844-456A"})
    dl = tmp_path / "downloads"
    assert main(["prices", "fetch", "--aws-region", "us-east-1", "--aws-offer", "AmazonEC2", "--azure-region",
                 "eastus", "--gcp", "--gcp-api-key", "K3Y", "-o", str(dl), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [Path(f["file"]).name for f in out["files"]] == [
        "aws-AmazonEC2-us-east-1.json", "azure-vm-eastus-p1.json", "azure-vm-eastus-p2.json", "gcp-compute-p1.json",
        "gcp-compute-p2.json"]
    assert all("K3Y" not in f["url"] for f in out["files"])  # the API key is masked in what is printed
    assert len(seen) == 5
    assert (dl / "aws-AmazonEC2-us-east-1.json").read_bytes() == (
        price_files_dir / "aws-ec2-us-east-1-p4d-opencost.json").read_bytes()
    # second command: every downloaded page into one catalog folder
    assert main(["prices", "import", *sorted(map(str, dl.iterdir())), "-o", str(tmp_path / "prices"), "--json"]) == 0
    imported = json.loads(capsys.readouterr().out)
    assert [(Path(f["path"]).name, f["rows"], f["skipped"]) for f in imported["files"]] == [
        ("aws-AmazonEC2-us-east-1.json", 1, 1), ("azure-vm-eastus-p1.json", 4, 1), ("azure-vm-eastus-p2.json", 0, 1),
        ("gcp-compute-p1.json", 3, 1), ("gcp-compute-p2.json", 0, 5)]
    table = load_prices(tmp_path / "prices")
    assert table.lookup("aws", "p4d.24xlarge", "us-east-1").usd == 32.7726
    assert table.lookup("azure", "Standard_ND96isr_H100_v5", "eastus").usd == 98.32
    # the egress meter's tiers came on two pages: its tier ends span them, and they are kept in one file
    tiers = table.lookup_tiers("azure", "internet_egress", "eastus", "internet")
    assert [(t.tier_start, t.tier_end, t.usd) for t in tiers] == [(0, 10240, 0.087), (10240, 51200, 0.083),
                                                                  (51200, None, 0.07)]
    assert [t.source.split(" ")[0] for t in tiers] == ["azure-vm-eastus-p1.json", *["azure-vm-eastus-p2.json"] * 2]
    assert table.lookup("gcp", "gpu:nvidia-tesla-a100", "us-west1").as_of == "2023-03-24"


def test_a_missing_file_fails_and_saves_nothing(api, price_files_dir, tmp_path, capsys):
    base, files, _ = api
    _serve_all(base, files, price_files_dir)  # AmazonEC2 is served, AmazonS3 is not (404)
    dl = tmp_path / "downloads"
    rc = main(["prices", "fetch", "--aws-region", "us-east-1", "--aws-offer", "AmazonEC2", "--aws-offer", "AmazonS3",
               "-o", str(dl)])
    err = capsys.readouterr().err
    assert rc == 2 and "Traceback" not in err
    assert err.strip().splitlines()[-1] == (
        f"costmodel prices: error: {base}/offers/v1.0/aws/AmazonS3/current/us-east-1/index.json: HTTP 404 Not Found "
        f"(the offer has no file for this region? its regions: {base}/offers/v1.0/aws/AmazonS3/current/"
        "region_index.json)")
    assert not dl.exists() and list(tmp_path.iterdir()) == []  # not even the AmazonEC2 file that did download


def test_a_next_page_link_to_another_host_is_not_followed(api, tmp_path, capsys, monkeypatch):
    _, files, seen = api
    vm = "serviceName eq 'Virtual Machines' and armRegionName eq 'eastus' and priceType eq 'Consumption'"
    files[f"azure:{vm}:0:'USD'"] = json.dumps({"BillingCurrency": "USD", "Items": [], "Count": 0,
                                               "NextPageLink": "https://prices.example.net/api/retail/prices"}).encode()
    monkeypatch.setattr("costmodel.prices.fetch.AZURE_QUERIES", {"vm": vm.replace("eastus", "{region}")})
    assert main(["prices", "fetch", "--azure-region", "eastus", "-o", str(tmp_path / "dl")]) == 2
    assert "NextPageLink 'https://prices.example.net/api/retail/prices' leaves http://127.0.0.1; not followed" in (
        capsys.readouterr().err)
    assert len(seen) == 1 and list(tmp_path.iterdir()) == []


def test_dry_run_prints_curl_lines_with_the_real_endpoints(tmp_path, capsys, monkeypatch):
    for env in ("COSTMODEL_AWS_PRICING_URL", "COSTMODEL_AZURE_PRICES_URL", "COSTMODEL_GCP_BILLING_URL"):
        monkeypatch.delenv(env, raising=False)
    assert main(["prices", "fetch", "--aws-region", "us-west-2", "--azure-region", "westus3", "-o", "dl",
                 "--dry-run"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "mkdir -p dl && cd dl"
    assert lines[1] == ("curl -sSfL -o aws-AmazonEC2-us-west-2.json "
                        "'https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonEC2/current/us-west-2/index.json'")
    assert lines[3] == ("curl -sSfL -o aws-AWSDataTransfer-us-west-2.json 'https://pricing.us-east-1.amazonaws.com/"
                        "offers/v1.0/aws/AWSDataTransfer/current/us-west-2/index.json'")
    assert lines[5] == (
        "curl -sSfL -o azure-vm-westus3-p1.json 'https://prices.azure.com/api/retail/prices?currencyCode=%27USD%27&"
        "$filter=serviceName%20eq%20%27Virtual%20Machines%27%20and%20armRegionName%20eq%20%27westus3%27%20and%20"
        "priceType%20eq%20%27Consumption%27'  # page 1; next: .NextPageLink")
    assert len(lines) == 1 + 4 + 3 and not (tmp_path / "dl").exists()


def test_fetch_needs_something_to_fetch_and_a_gcp_key(capsys, monkeypatch):
    monkeypatch.delenv("COSTMODEL_GCP_API_KEY", raising=False)
    assert main(["prices", "fetch", "-o", "dl"]) == 2
    assert "error: nothing to fetch: give --aws-region, --azure-region and/or --gcp" in capsys.readouterr().err
    assert main(["prices", "fetch", "--gcp", "-o", "dl"]) == 2
    assert "error: --gcp: the Cloud Billing Catalog API needs an API key" in capsys.readouterr().err
