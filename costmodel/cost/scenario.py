"""The cost Scenario: YAML loading, validation, ``--set`` overrides, price filling (measurements are applied
by :mod:`costmodel.cost.measurements`).

A scenario is a small YAML mapping (see ``data/examples/scenario.yaml`` and :mod:`.spec` for every key,
its unit and range). Sizes are decimal GB (10^9 bytes). Unknown keys are errors with a did-you-mean; a key
or value written in another unit (``size_tb``, ``"50 TiB"``) is an error that gives the converted number.
Prices not written in the scenario are filled from ``data/prices`` using the ``prices:`` section
(provider, src_region = data region, dst_region = GPU region); the row used, its source and ``as_of`` are
recorded, and a price older than 12 months (relative to ``today``) or undated gives a warning.

Every error is a :class:`~costmodel.foundation.errors.ScenarioError` naming the key path and what was expected.
"""
from __future__ import annotations

import copy
import datetime as dt
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from ..foundation import clock
from ..foundation.errors import PriceError, ScenarioError
from ..foundation.safeio import input_kind
from ..foundation.safeyaml import safe_load, safe_load_file
from ..foundation.util import yaml_problem
from ..prices.billing import (
    bytes_per_unit,
    lookup_tiers,
    price_entry,
    row_warning,
    scenario_entry,
    tier_bounds,
    usd_per_decimal_gb,
)
from ..prices.catalog import PriceRow, load_prices
from .dists import Distribution
from .scenario_model import check_known_path, converted_key, gib_variant, validate_scenario

if TYPE_CHECKING:  # the pydantic result models load only when a compare result is read (start-up of `cost`)
    pass
from ..foundation.fields_json import FieldsJson, JsonKeys
from .spec import (
    BOOLS,
    MODEL_KEYS,
    PARAM_BY_KEY,
    PASSTHROUGH,
    SECTIONS,
    SOURCE_KEYS,
    STRINGS,
    Param,
)

FILL_ITEM = {"transfer": "inter_region"}
#: fills done after the stated values are known (costmodel.cost.resolve.finalize)
DEFERRED_FILLS = ("derive", "objects", "path", "inter_az", "get", "put", "batch_objects", "batch_job")
DERIVE_HINTS = {
    "training.run_hours": "give training.epochs_per_run with dataset.samples and training.samples_per_s "
                          "(or --from-compare) to derive it",
    "training.epochs_per_run": "give training.run_hours with dataset.samples and training.samples_per_s "
                               "(or --from-compare) to derive it",
}


@dataclass
class Scenario(FieldsJson):
    """A validated scenario. ``values`` holds the point value of every cost-model input (USD, GB, hours);
    ``distributions`` the uncertain ones; ``provenance`` where each value came from."""

    values: dict[str, float]
    distributions: dict[str, Distribution] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)
    provenance: dict[str, dict[str, Any]] = field(default_factory=dict)
    prices_used: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    workload: Any = None
    source: str = "<dict>"
    #: the SHA-256 of the bytes read when ``source`` is ``<stdin>`` (no file to hash afterwards)
    source_sha256: str | None = None
    today: dt.date = field(default_factory=clock.today)
    #: the consistency checks (run_hours vs throughput, cold fill and copy vs bandwidth, cache capacity ...)
    consistency: list[dict[str, Any]] = field(default_factory=list)
    #: option -> why it cannot be priced (an option missing here is priced)
    not_priced: dict[str, str] = field(default_factory=dict)
    #: option -> term -> why the term is 0 although it could apply (inputs not given)
    term_notes: dict[str, dict[str, str]] = field(default_factory=dict)
    #: internal model inputs (``_capacity_gb``, tiers, zone flags, ...; see costmodel.cost.model)
    internal: dict[str, Any] = field(default_factory=dict)
    #: the scenario before derivation (what was stated or measured); derivations are redone from it
    base: Scenario | None = field(default=None, repr=False)
    prices_dir: Any = None

    @property
    def horizon_months(self) -> float:
        return self.values["horizon_months"]

    @property
    def name(self) -> str:
        return self.settings.get("name") or Path(self.source).stem

    def get(self, key: str, default: Any = None) -> Any:
        """A value by key path (model inputs, optional numbers and strings)."""
        if key in self.values:
            return self.values[key]
        return self.settings.get(key, default)

    def with_values(self, **changes: float) -> Scenario:
        """A copy with some model inputs replaced (key paths with ``.`` written as ``__``)."""
        from .model import unfollow

        vals = dict(self.values)
        internal = dict(self.internal)
        settings = dict(self.settings)
        for k, v in changes.items():
            key = k.replace("__", ".")
            if key in SOURCE_KEYS:
                settings[key] = float(v)
                internal[SOURCE_KEYS[key]] = float(v)
                continue
            vals[key] = float(v)
            unfollow(internal, key)
        return replace(self, values=vals, internal=internal, settings=settings)

    def priced(self) -> dict[str, bool]:
        """Option -> whether it can be priced (see ``not_priced``)."""
        from .model import OPTIONS

        return {o: o not in self.not_priced for o in OPTIONS}

    def require_complete(self) -> None:
        """Raise ScenarioError naming every model input still missing (e.g. a measurement not given)."""
        if self.missing:
            k = self.missing[0]
            p = PARAM_BY_KEY[k]
            others = f" (also missing: {', '.join(self.missing[1:])})" if len(self.missing) > 1 else ""
            how = DERIVE_HINTS.get(k, "fill it from measurements (costmodel cost --from-compare compare.json)")
            raise ScenarioError(
                f"missing; expected {p.expected()}: give it in the scenario or {how}{others}",
                key=k,
                path=self.source if self.source != "<dict>" else None,
            )

    def nested(self) -> dict[str, Any]:
        """The resolved inputs as a nested mapping like the YAML (point values)."""
        out: dict[str, Any] = {}
        flat = {**dict(self.settings.items()), **self.values}
        for k, v in flat.items():
            _set_path(out, k.split("."), v)
        if self.workload is not None:
            out["workload"] = self.workload
        return out

    JSON = JsonKeys(keys=("source", "source_sha256", "name", "today=today.isoformat", "values=nested", "provenance",
                          "distributions", "missing", "derived_keys"), omit_none=("source_sha256",))

    @property
    def derived_keys(self) -> list[str]:
        """The keys whose value was derived (their provenance says so), sorted."""
        return sorted(k for k, v in self.provenance.items() if str(v.get("source", "")).startswith("derived"))


# ----------------------------------------------------------------------------------------- helpers
def _set_path(d: dict, parts: list[str], value: Any) -> None:
    for p in parts[:-1]:
        nxt = d.get(p)
        if not isinstance(nxt, dict):
            nxt = {}
            d[p] = nxt
        d = nxt
    d[parts[-1]] = value


def parse_override(text: str) -> tuple[str, Any]:
    """``key.path=value`` -> (key path, YAML-parsed value; ``null`` leaves the key out). Raises ScenarioError
    when malformed."""
    if "=" not in text:
        raise ScenarioError(f"--set {text!r}: expected key.path=value, e.g. cache.steady_hit_ratio=0.9", key=text)
    key, _, raw = text.partition("=")
    key = key.strip()
    if not key or any(not p for p in key.split(".")):
        raise ScenarioError(f"--set {text!r}: expected key.path=value", key=key or text)
    if not raw.strip():
        raise ScenarioError(f"--set {text!r}: no value after '='", key=key)
    try:
        value = safe_load(raw)
    except yaml.YAMLError:
        value = raw
    return key, value  # None (``key=null``): the key is left out, e.g. to have it derived


# ------------------------------------------------------------------------------------------ loading
def load_scenario(
    path: str | os.PathLike[str],
    overrides: Sequence[str] = (),
    *,
    today: dt.date | None = None,
    prices_dir: str | os.PathLike[str] | None = None,
) -> Scenario:
    """Read, validate and fill a scenario YAML; ``overrides`` are ``key.path=value`` strings (``--set``).

    Raises ScenarioError (naming the file and key path) for anything invalid.
    """
    from ..foundation import stdin

    if stdin.is_stdin(path):  # ``-``: named <stdin>, with the SHA-256 of the bytes read
        data = _scenario_from_stdin()
        sc = scenario_from_dict(data, source=stdin.NAME, overrides=overrides, today=today, prices_dir=prices_dir)
        sc.source_sha256 = stdin.sha256()
        return sc
    p = Path(path)
    if input_kind(p) == "missing":
        raise ScenarioError(f"scenario file {p} does not exist", path=str(p))
    try:
        data = safe_load_file(p)
    except yaml.YAMLError as exc:
        raise ScenarioError(yaml_problem(exc), path=str(p)) from None
    return scenario_from_dict(data, source=str(p), overrides=overrides, today=today, prices_dir=prices_dir)


def _scenario_from_stdin() -> Any:
    """The scenario mapping read from standard input (bounded as a file is; ScenarioError naming <stdin>)."""
    from ..foundation import safeyaml, stdin

    raw = stdin.read_bytes(safeyaml.MAX_BYTES)
    if not raw.strip():
        raise ScenarioError("standard input is empty (pipe a scenario YAML into it)", path=stdin.NAME)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ScenarioError(f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start}); "
                            "expected a UTF-8 YAML file", path=stdin.NAME) from None
    try:
        return safeyaml.load(text)
    except yaml.YAMLError as exc:
        raise ScenarioError(yaml_problem(exc), path=stdin.NAME) from None


def scenario_from_dict(
    d: Mapping[str, Any],
    source: str = "<dict>",
    overrides: Sequence[str] = (),
    *,
    today: dt.date | None = None,
    prices_dir: str | os.PathLike[str] | None = None,
) -> Scenario:
    """Validate a scenario mapping (as read from YAML), apply ``overrides``, fill prices and defaults.

    ``today`` (default: the real date) decides which prices are older than 12 months.
    Raises ScenarioError / PriceError naming the key path.
    """
    today = today or clock.today()
    path_for_errors = source if source != "<dict>" else None
    if not isinstance(d, Mapping):
        raise ScenarioError(f"expected a mapping of keys (horizon_months, dataset, ...), got {type(d).__name__}",
                            path=path_for_errors)
    data = copy.deepcopy(dict(d))
    set_keys: set[str] = set()
    set_text: dict[str, str] = {}
    for text in overrides:
        key, value = parse_override(text)
        try:
            check_known_path(key, None, value)
        except ScenarioError as exc:
            raise _as_set_error(exc, key, text) from None
        _set_path(data, key.split("."), value)
        set_keys.add(key)
        set_text[key] = text.strip()

    try:
        return _build(data, source, set_keys, today, prices_dir)
    except ScenarioError as exc:
        if exc.path is None and exc.key in set_text:
            raise _as_set_error(exc, exc.key, set_text[exc.key]) from None
        if exc.path is None and path_for_errors:
            new = type(exc)(exc.message, path=path_for_errors)
            new.key = exc.key
            new.fields["key"] = exc.key
            raise new from None
        raise


def _as_set_error(exc: ScenarioError, key: str, text: str) -> ScenarioError:
    """``exc`` (about ``key``) re-attributed to the ``--set`` value ``text`` instead of the scenario file."""
    msg = exc.message
    if msg.startswith(f"{key}: "):
        msg = msg[len(key) + 2:]
    new = type(exc)(msg, path=f"--set {text}")
    new.key = key
    new.fields["key"] = key
    return new


def _build(
    data: dict[str, Any],
    source: str,
    set_keys: set[str],
    today: dt.date,
    prices_dir: str | os.PathLike[str] | None,
) -> Scenario:
    data = {str(top): ({str(leaf): v for leaf, v in val.items()} if top in SECTIONS and isinstance(val, Mapping)
                       else val) for top, val in data.items()}
    checked = validate_scenario(data)  # the scenario model: keys, types, units, ranges (cost.scenario_model)
    flat: dict[str, Any] = {}  # key path -> validated value (ScenarioNumber, text, bool or None), file order
    for top, val in data.items():
        if top in PASSTHROUGH or (top in SECTIONS and val is None):
            continue
        if top in SECTIONS:
            section = getattr(checked, top)
            flat.update((f"{top}.{leaf}", getattr(section, leaf)) for leaf in val)
        else:
            flat[top] = getattr(checked, top)

    converted: dict[str, str] = {}  # key -> the per-GiB or alias key it was written as (already converted)
    for key in list(flat):
        target = converted_key(key)
        if target is None:
            continue
        flat[target] = flat.pop(key)
        converted[target] = key
        if key in set_keys:
            set_keys.add(target)

    def origin(key: str) -> str:
        src = "--set" if key in set_keys else f"scenario {source}"
        if key in converted:
            how = " (per GiB x 10^9/2^30 = per GB)" if gib_variant(converted[key]) else ""
            src += f" as {converted[key]}{how}"
        return src

    values: dict[str, float] = {}
    dists: dict[str, Distribution] = {}
    settings: dict[str, Any] = {}
    prov: dict[str, dict[str, Any]] = {}
    for key, parsed in flat.items():
        if parsed is None:
            continue
        if key in STRINGS:
            settings[key] = parsed
            continue
        if key in BOOLS:
            settings[key] = parsed
            prov[key] = {"value": parsed, "source": origin(key)}
            continue
        param = PARAM_BY_KEY[key]
        v, dist = parsed
        if param.model:
            values[key] = v
        else:
            settings[key] = int(v) if param.integer else v
        if dist is not None:
            dists[key] = dist
        prov[key] = {"value": v, "source": origin(key)}
        if dist is not None:
            prov[key]["distribution"] = dist.to_dict()
    for key, default in STRINGS.items():
        if default is not None and key not in settings:
            settings[key] = default
    for key, bdefault in BOOLS.items():
        settings.setdefault(key, bdefault)

    warnings: list[str] = []
    prices_used: list[dict[str, Any]] = []
    missing: list[str] = []
    tier_info: dict[str, Any] = {}
    if prices_dir is None and settings.get("prices.dir"):  # `prices: {dir: ...}` picks the price folder
        prices_dir = Path(source).parent / settings["prices.dir"] if source != "<dict>" else settings["prices.dir"]
    _size_from_tokens(values, settings, prov, dists)
    for param in (PARAM_BY_KEY[k] for k in MODEL_KEYS):
        key = param.key
        if key in values:
            if param.fill in ("transfer", "storage", "instance"):
                prices_used.append(scenario_entry(key, values[key], param.unit, origin(key)))
            continue
        if param.fill in ("transfer", "storage", "instance") or (param.fill == "sync" and settings.get("prices.sync_extra_item")):
            rows, mult = _fill_price(param, settings, prices_dir)
            row = rows[0]
            if param.fill == "instance":
                values[key] = row.usd * mult
            else:
                values[key] = usd_per_decimal_gb(row) * mult
                tiers = tier_bounds(rows) if param.fill in ("transfer", "storage") else None
                if tiers:
                    tier_info["_transfer_tiers" if param.fill == "transfer" else "_storage_tiers"] = tiers
            prov[key] = {"value": values[key], "source": f"price table {row.ref()}", "as_of": row.as_of or None}
            if param.fill != "instance" and bytes_per_unit(row) != 1e9:
                prov[key]["converted_from"] = f"{row.usd} USD/{row.unit}"
            prices_used.append(price_entry(key, row, values[key], today, multiplier=mult,
                                           tiers=rows if len(rows) > 1 else None))
            w = row_warning(key, row, today)
            if w:
                warnings.append(w)
            continue
        if param.fill == "measure":
            missing.append(key)
            continue
        if param.fill in DEFERRED_FILLS:
            continue  # derived or looked up by resolve.finalize
        if param.required:
            raise ScenarioError(f"missing; expected {param.expected()}", key=key)
        if param.default is not None:
            values[key] = float(param.default)
            prov[key] = {"value": values[key], "source": "default"}
    _fill_savings_plan(settings, prov, prices_used, warnings, prices_dir, today)
    internal: dict[str, Any] = dict(tier_info.items())
    base = Scenario(
        values=values,
        distributions=dists,
        settings=settings,
        provenance=prov,
        prices_used=prices_used,
        warnings=warnings,
        missing=missing,
        workload=copy.deepcopy(data.get("workload")),
        source=source,
        today=today,
        internal=internal,
        prices_dir=prices_dir,
    )
    from .resolve import finalize

    return finalize(base)


def _size_from_tokens(values: dict[str, float], settings: dict[str, Any], prov: dict[str, dict[str, Any]],
                      dists: dict[str, Distribution]) -> None:
    """``dataset.size_gb = tokens x bytes_per_token / 10^9`` when the size (the bytes on disk) is omitted and
    both are given; the provenance says it rests on the bytes-per-token assumption."""
    tokens, bpt = settings.get("dataset.tokens"), settings.get("dataset.bytes_per_token")
    if "dataset.size_gb" in values or tokens is None or bpt is None:
        return
    values["dataset.size_gb"] = tokens * bpt / 1e9
    prov["dataset.size_gb"] = {"value": values["dataset.size_gb"],
                               "source": f"derived: dataset.tokens x dataset.bytes_per_token / 10^9 = {tokens:g} x "
                                         f"{bpt:g} B / 10^9 (bytes per token assumed, not the bytes on disk)"}
    d = dists.get("dataset.bytes_per_token")
    if d is not None:
        dists["dataset.size_gb"] = Distribution(d.kind, {k: (v * tokens / 1e9 if k not in ("sigma", "df") else v)
                                                         for k, v in d.params.items()})


def _fill_savings_plan(settings: dict[str, Any], prov: dict[str, dict[str, Any]], prices_used: list[dict[str, Any]],
                       warnings: list[str], prices_dir: Any, today: dt.date) -> None:
    """``purchase.savings_plan_usd_per_hour`` from the price table when ``purchase.savings_plan`` names a plan
    (``compute:1yr:no_upfront``) and the rate is not given: the row ``<training.instance_type>:savings_plan:<plan>``
    at ``prices.dst_region`` (written by ``costmodel prices import`` from a Savings Plans file) x
    ``training.instance_count``."""
    plan, key = settings.get("purchase.savings_plan"), "purchase.savings_plan_usd_per_hour"
    if not plan or settings.get(key) is not None:
        return
    lacking = [k for k in ("prices.provider", "prices.dst_region", "training.instance_type") if not settings.get(k)]
    if lacking:
        raise ScenarioError(f"{plan}: needs {', '.join(lacking)} to look up the savings-plan rate, or give {key}",
                            key="purchase.savings_plan")
    item = f"{settings['training.instance_type']}:savings_plan:{plan}"
    try:
        row = load_prices(prices_dir).lookup(settings["prices.provider"], item, settings["prices.dst_region"],
                                             key="purchase.savings_plan")
    except PriceError as exc:
        raise PriceError(f"{exc.message} (needed for {key}; `costmodel prices import` a Savings Plans rates file)",
                         key=None) from None
    mult = float(settings.get("training.instance_count", 1))
    settings[key] = row.usd * mult
    prov[key] = {"value": settings[key], "source": f"price table {row.ref()}", "as_of": row.as_of or None}
    prices_used.append(price_entry(key, row, settings[key], today, multiplier=mult))
    w = row_warning(key, row, today)
    if w:
        warnings.append(w)


def _fill_price(param: Param, settings: dict[str, Any], prices_dir: Any) -> tuple[list[PriceRow], float]:
    key = param.key
    need = ["prices.provider", "prices.dst_region"] + (["prices.src_region"] if param.fill in ("transfer", "sync") else [])
    if param.fill == "instance":
        need.append("training.instance_type")
    lacking = [k for k in need if not settings.get(k)]
    if lacking:
        raise ScenarioError(
            f"missing; expected {param.expected()}, or {', '.join(lacking)} so it can be looked up in the price tables",
            key=key,
        )
    table = load_prices(prices_dir)
    provider, dst = settings["prices.provider"], settings["prices.dst_region"]
    mult = 1.0
    try:
        if param.fill == "transfer" and settings.get("link.path") == "internet":
            try:
                rows = lookup_tiers(table, provider, "internet_egress", settings["prices.src_region"], "internet",
                                    key="link.path")
            except PriceError:
                rows = lookup_tiers(table, provider, "internet_egress", settings["prices.src_region"], "",
                                    key="link.path")
            return rows, mult
        if param.fill == "transfer":
            rows = lookup_tiers(table, provider, "inter_region", settings["prices.src_region"], dst, key="prices.dst_region")
            return rows, mult
        if param.fill == "storage":
            rows = lookup_tiers(table, provider, settings["prices.storage_item"], dst, key="prices.storage_item")
            return rows, mult
        if param.fill == "sync":
            row = table.lookup(provider, settings["prices.sync_extra_item"], settings["prices.src_region"], dst,
                               key="prices.sync_extra_item")
        else:
            row = table.lookup(provider, settings["training.instance_type"], dst, key="training.instance_type")
            mult = float(settings.get("training.instance_count", 1))
    except PriceError as exc:
        raise PriceError(f"{exc.message} (needed for {key})", key=None) from None
    return [row], mult


def __getattr__(name: str) -> Any:
    """``COMPARE_REQUIRED_KEYS``: the keys every ``costmodel compare --json`` object has (values may be null;
    ``--from-compare`` requires them), i.e. ``contracts.results.READ_REQUIRED['compare']``, looked up when
    asked so that importing this module does not build the pydantic result models."""
    if name == "COMPARE_REQUIRED_KEYS":
        from ..contracts.results import READ_REQUIRED

        return READ_REQUIRED["compare"]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
