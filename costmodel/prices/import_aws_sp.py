"""AWS Savings Plans rates -> catalog rows, from the two files users have:

- ``aws-sp-rates``: the JSON output of ``aws savingsplans describe-savings-plans-offering-rates``
  (``searchResults[]``: ``savingsPlanOffering`` {``planType``, ``paymentOption``, ``durationSeconds``,
  ``currency``}, ``rate``, ``unit``, ``usageType``, ``operation``, ``serviceCode``, ``properties``
  [{``name``: region | instanceType | tenancy | productDescription, ``value``}]). The response carries no date:
  its rows are undated (``as_of`` empty; lookups warn).
- ``aws-sp-offer``: a Savings Plans bulk price-list file (``AWSComputeSavingsPlan``,
  ``AWSMachineLearningSavingsPlans`` ...: ``products[]`` with ``purchaseOption``/``purchaseTerm``,
  ``terms.savingsPlan[]`` with ``leaseContractLength`` and ``rates[]`` {``discountedUsageType``,
  ``discountedOperation``, ``discountedRate`` {``price``, ``currency``}}); ``as_of`` = ``publicationDate``.

Kept: EC2 GPU/accelerator instance hours, Linux (operation ``RunInstances``), shared tenancy (``BoxUsage``),
and SageMaker ``ml.*`` training hours; each becomes an ``instance-hour`` row named
``<instance>:savings_plan:<plan>:<term>:<payment>`` (plan ``compute`` | ``ec2_instance`` | ``sagemaker``,
term ``1yr`` | ``3yr``, payment ``no_upfront`` | ``partial_upfront`` | ``all_upfront``), the effective hourly
rate AWS publishes for the plan. Everything else is counted under its reason. A price that is not a finite,
non-negative number, or in another currency than USD, is refused (PriceImportError naming the file and row).
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from .import_aws import AWS_LOCATIONS
from .import_common import HEAD_BYTES, FileSummary, PriceImportError, Row, _date, _norm, _row, _stream

YEAR_S = 31_536_000  # AWS's durationSeconds of a 1-year term (365 days); 3 years = 94,608,000
PLANS = {"compute": "compute", "computesavingsplans": "compute", "ec2instance": "ec2_instance",
         "ec2instancesavingsplans": "ec2_instance", "sagemaker": "sagemaker", "sagemakersavingsplans": "sagemaker",
         "machinelearningsavingsplans": "sagemaker"}
PAYMENTS = {"noupfront": "no_upfront", "partialupfront": "partial_upfront", "allupfront": "all_upfront"}
#: usage-type prefixes of the regions (EC2 bills us-east-1 without one)
USAGE_PREFIX = {"USE1": "us-east-1", "USE2": "us-east-2", "USW1": "us-west-1", "USW2": "us-west-2",
                "CAN1": "ca-central-1", "EU": "eu-west-1", "EUW2": "eu-west-2", "EUW3": "eu-west-3",
                "EUC1": "eu-central-1", "EUN1": "eu-north-1", "APN1": "ap-northeast-1", "APN2": "ap-northeast-2",
                "APS1": "ap-southeast-1", "APS2": "ap-southeast-2", "APS3": "ap-south-1", "SAE1": "sa-east-1",
                "UGW1": "us-gov-west-1", "UGE1": "us-gov-east-1"}
_GPU_FAMILY = re.compile(r"^(ml\.)?(p\d|g\d|trn\d|inf\d|dl\d)")


#: the largest rate imported (USD per instance-hour); the dearest instance lists about 100
MAX_RATE_USD_PER_HOUR = 1e6


def sp_item(instance: str, plan: str, term: str, payment: str) -> str:
    """The catalog item of a savings-plan rate: ``p5.48xlarge:savings_plan:compute:1yr:no_upfront``."""
    return f"{instance}:savings_plan:{plan}:{term}:{payment}"


def _price(text: Any, currency: Any, where: str) -> Decimal:
    """The USD rate; PriceImportError (``where``) for another currency, a non-number or a negative number."""
    cur = str(currency or "").strip()
    if cur != "USD":
        raise PriceImportError(f"{where}: currency {cur or '(none)'!r}: only USD rates are imported (the catalog "
                               "holds USD prices)")
    from ..foundation.numbers import NumberRefused, number

    try:
        value = Decimal(str(text).strip())
    except (InvalidOperation, TypeError):
        value = Decimal("NaN")
    if text is None or str(text).strip() == "" or not value.is_finite():
        raise PriceImportError(f"{where}: rate {text!r} is not a number")
    if value < 0:
        raise PriceImportError(f"{where}: rate {text!r} is negative")
    try:  # the one number reader: finite as a float (1e309 is not), and a rate no offer comes near
        number(str(text).strip(), f"{where}: rate", maximum=MAX_RATE_USD_PER_HOUR, text=True)
    except NumberRefused as exc:
        raise PriceImportError(str(exc)) from None
    return value


def _term(years: Any) -> str | None:
    return {1: "1yr", 3: "3yr"}.get(int(years)) if str(years).strip().isdigit() else None


def _what(usage: str, operation: str, service: str) -> tuple[str, str] | str:
    """(instance, unit kind) of a discounted usage, or the reason it is no catalog item."""
    pre, _, inst = usage.partition(":")
    head = pre.rsplit("-", 1)[-1]  # USE1-BoxUsage -> BoxUsage; the instance may hold a '-' (p6-b200.48xlarge)
    if service == "AmazonSageMaker" or inst.startswith("ml."):
        if not inst.startswith("ml."):
            return "SageMaker: not an ml.* instance usage"
        if head != "Train":
            return f"SageMaker: {head or 'usage'} (only Train rates are catalog items)"
        return inst, "ml"
    if service not in ("", "AmazonEC2"):
        return f"savings plan rate for {service} (not an EC2 or SageMaker instance)"
    if head != "BoxUsage" or not inst:
        return "EC2: not shared-tenancy instance usage (BoxUsage)"
    if operation != "RunInstances":
        return "EC2: not Linux (operation RunInstances)"
    if not _GPU_FAMILY.match(inst):
        return "instance without GPU"
    return inst, "ec2"


def _region_of_usage(usage: str) -> str:
    head = usage.split(":")[0]
    if "-" not in head:
        return "us-east-1" if head in ("BoxUsage", "Train") else ""
    return USAGE_PREFIX.get(head.split("-")[0], "")


def _with_path(exc: PriceImportError, path: Path) -> PriceImportError:
    return PriceImportError(str(exc), path=str(path))


# -------------------------------------------------------------------- describe-savings-plans-offering-rates
def import_aws_sp_rates(path: Path, summary: FileSummary) -> Iterator[Row]:
    """Rows from the JSON of ``aws savingsplans describe-savings-plans-offering-rates`` (undated: the response
    has no date)."""
    source = f"{path.name} (AWS Savings Plans DescribeSavingsPlansOfferingRates)"
    n = -1
    for n, res in enumerate(_stream(path, lambda ij, f: ij.items(f, "searchResults.item"))):
        where = f"{path.name}: searchResults[{n}]"
        if not isinstance(res, dict):
            raise PriceImportError(f"{where}: expected an object", path=str(path))
        off = res.get("savingsPlanOffering")
        if not isinstance(off, dict):
            raise PriceImportError(f"{where}: no savingsPlanOffering object", path=str(path))
        try:
            # the currency is the offering's, repeated on the result: both must be USD
            other = [str(c) for c in (res.get("currency"), off.get("currency")) if c not in (None, "", "USD")]
            usd = _price(res.get("rate"), other[0] if other else (off.get("currency") or res.get("currency")), where)
        except PriceImportError as exc:
            raise _with_path(exc, path) from None
        props = {_norm(str(p.get("name", ""))): str(p.get("value", ""))
                 for p in (res.get("properties") or []) if isinstance(p, dict)}
        plan = PLANS.get(_norm(str(off.get("planType", ""))))
        payment = PAYMENTS.get(_norm(str(off.get("paymentOption", ""))))
        dur = str(off.get("durationSeconds", "")).strip()
        term = _term(int(dur) // YEAR_S) if dur.isdigit() and int(dur) % YEAR_S == 0 else None
        if plan is None or payment is None or term is None:
            summary.skip("plan type, payment option or duration not a known savings plan (Compute, EC2Instance, "
                         "SageMaker; 1 or 3 years; no, partial or all upfront)")
            continue
        usage = str(res.get("usageType", ""))
        hit = _what(usage, str(res.get("operation", "")), str(res.get("serviceCode", "")))
        if isinstance(hit, str):
            summary.skip(hit)
            continue
        inst, kind = hit
        if kind == "ec2" and (props.get("tenancy", "shared").lower() != "shared"
                              or props.get("productdescription", "Linux/UNIX") != "Linux/UNIX"):
            summary.skip("EC2: not Linux/UNIX shared tenancy")
            continue
        if str(res.get("unit", "")).lower() not in ("hrs", "hr", "hours", "hour"):
            summary.skip(f"{inst}: unit {res.get('unit')!r}, expected hours")
            continue
        region = props.get("region") or _region_of_usage(usage)
        if not region:
            summary.skip("no region (no region property, unknown usage-type prefix)")
            continue
        desc = str(off.get("planDescription", "") or off.get("description", ""))
        notes = f"{off.get('planType')} savings plan, {off.get('paymentOption')}, {term}, offering {off.get('offeringId', '?')}"
        yield _row("aws", sp_item(props.get("instancetype") or inst, plan, term, payment), region, "", "instance-hour",
                   usd, source, "", (notes + (f": {desc}" if desc else ""))[:120])
    if n < 0:
        raise PriceImportError(f"{path.name}: no searchResults (an empty answer? check the filters of the "
                               "describe-savings-plans-offering-rates call)", path=str(path))


# ------------------------------------------------------------------------------------ bulk offer file
def _plan_product(prod: dict[str, Any]) -> tuple[str, str, str] | str:
    attrs = {_norm(k): str(v) for k, v in (prod.get("attributes") or {}).items()}
    plan = PLANS.get(_norm(str(prod.get("productFamily", "")))) or PLANS.get(_norm(str(prod.get("serviceCode", ""))))
    payment = PAYMENTS.get(_norm(attrs.get("purchaseoption", "")))
    term = {"1yr": "1yr", "3yr": "3yr"}.get(attrs.get("purchaseterm", "").replace(" ", ""))
    if plan is None or payment is None:
        return (f"savings plan product {prod.get('productFamily') or '(no productFamily)'} "
                f"{attrs.get('purchaseoption') or '(no purchaseOption)'}: not a known plan and payment option")
    return plan, term or "", payment


def import_aws_sp_offer(path: Path, summary: FileSummary) -> Iterator[Row]:
    """Rows from a Savings Plans bulk price-list JSON (streamed: ``products``, then ``terms.savingsPlan``)."""
    with open(path, "rb") as fh:
        head = fh.read(HEAD_BYTES).decode("utf-8", errors="replace")
    pub = re.search(r'"publicationDate"\s*:\s*"([^"]+)"', head)
    file_region = re.search(r'"regionCode"\s*:\s*"([^"]+)"', head)
    if not pub or not _date(pub.group(1)):
        raise PriceImportError(f"{path.name}: byte 0: no publicationDate (a date) in the offer header; as_of "
                               "would be unknown", path=str(path))
    as_of = _date(pub.group(1))
    offer = re.search(r'"serviceCode"\s*:\s*"([^"]+)"', head)
    source = (f"{path.name} (AWS Savings Plans price list {offer.group(1) if offer else '?'}, "
              f"publicationDate {pub.group(1)})")
    plans: dict[str, tuple[str, str, str]] = {}
    i = -1
    for i, prod in enumerate(_stream(path, lambda ij, f: ij.items(f, "products.item"))):
        if not isinstance(prod, dict) or not prod.get("sku"):
            raise PriceImportError(f"{path.name}: products[{i}]: expected an object with a sku", path=str(path))
        got = _plan_product(prod)
        if isinstance(got, str):
            summary.skip(got)
        else:
            plans[str(prod["sku"])] = got
    if i < 0:
        raise PriceImportError(f"{path.name}: no products in the Savings Plans file (an index file? download a "
                               "version's region file)", path=str(path))
    for t, term_obj in enumerate(_stream(path, lambda ij, f: ij.items(f, "terms.savingsPlan.item"))):
        where_t = f"{path.name}: terms.savingsPlan[{t}]"
        if not isinstance(term_obj, dict):
            raise PriceImportError(f"{where_t}: expected an object", path=str(path))
        rates = term_obj.get("rates") or []
        plan = plans.get(str(term_obj.get("sku", "")))
        lease = term_obj.get("leaseContractLength") or {}
        years = lease.get("duration") if str(lease.get("unit", "year")).lower().startswith("year") else None
        for j, rate in enumerate(rates):
            where = f"{where_t}.rates[{j}]"
            if not isinstance(rate, dict):
                raise PriceImportError(f"{where}: expected an object", path=str(path))
            dr = rate.get("discountedRate")
            if not isinstance(dr, dict):
                raise PriceImportError(f"{where}: discountedRate {dr!r}: expected {{\"price\", \"currency\"}}",
                                       path=str(path))
            try:
                usd = _price(dr.get("price"), dr.get("currency"), where)
            except PriceImportError as exc:
                raise _with_path(exc, path) from None
            if plan is None:
                summary.skip("rate of a product that is not a known savings plan")
                continue
            name, p_term, payment = plan
            term = _term(years) if years is not None else None
            term = term or p_term
            if not term:
                summary.skip("term not 1 or 3 years")
                continue
            usage = str(rate.get("discountedUsageType", ""))
            hit = _what(usage, str(rate.get("discountedOperation", "")), str(rate.get("discountedServiceCode", "")))
            if isinstance(hit, str):
                summary.skip(hit)
                continue
            inst, _kind = hit
            if str(rate.get("unit", "")).lower() not in ("hrs", "hr", "hours", "hour"):
                summary.skip(f"{inst}: unit {rate.get('unit')!r}, expected hours")
                continue
            region = (str(rate.get("discountedRegionCode", "")) or _region_of_usage(usage)
                      or (file_region.group(1) if file_region else ""))
            region = AWS_LOCATIONS.get(region, region)
            if not region:
                summary.skip("no region (no discountedRegionCode, unknown usage-type prefix)")
                continue
            notes = str(term_obj.get("description", "")) or f"{name} savings plan {term} {payment}"
            yield _row("aws", sp_item(str(rate.get("discountedInstanceType", "")) or inst, name, term, payment),
                       region, "", "instance-hour", usd, source, as_of, notes[:120])
