"""What resolve works on: the scenario's values, provenance and settings as they are derived, the
consistency checks, the options not priced and the terms noted (:class:`Ctx`); the epoch time both the run
hours and the link bounds need."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from ..foundation.errors import PriceError

if TYPE_CHECKING:
    from ..prices.catalog import PriceTable


TOLERANCE = 0.10  # stated and implied more than 10 % apart: a warning
HOURS_PER_MONTH = 365.25 * 24 / 12  # 730.5


def fmt(x: float) -> str:
    return f"{x:,.6g}"


class Ctx:
    def __init__(self, sc: Any) -> None:
        self.sc = sc
        self.values = dict(sc.values)
        self.prov = {k: dict(v) for k, v in sc.provenance.items()}
        self.settings = dict(sc.settings)
        self.warnings = list(sc.warnings)
        self.prices_used = list(sc.prices_used)
        self.missing = list(sc.missing)
        self.internal = dict(sc.internal)
        self.consistency: list[dict[str, Any]] = []
        self.not_priced: dict[str, list[str]] = {}
        self.notes: dict[str, dict[str, str]] = {}
        self._table: PriceTable | Literal[False] | None = None  # False: the catalog could not be loaded

    # -- helpers
    def stated(self, key: str) -> bool:
        src = str(self.prov.get(key, {}).get("source", ""))
        return key in self.values and src != "default" and not src.startswith("derived")

    def num(self, key: str) -> float | None:
        if key in self.values:
            return self.values[key]
        v = self.settings.get(key)
        return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None

    def derive(self, key: str, value: float, how: str) -> None:
        self.values[key] = float(value)
        self.prov[key] = {"value": float(value), "source": f"derived: {how}"}
        if key in self.missing:
            self.missing.remove(key)

    def need(self, key: str) -> None:
        """Record ``key`` as missing (once): the cost cannot be computed without it."""
        if key not in self.missing:
            self.missing.append(key)

    def check(self, check: str, keys: list[str], stated: Any, implied: Any, severity: str, message: str) -> None:
        self.consistency.append({"check": check, "keys": keys, "stated": stated, "implied": implied,
                                 "severity": severity, "message": message})
        if severity == "warning":
            self.warnings.append(f"{' vs '.join(keys)}: {message}")

    def unpriced(self, option: str, reason: str) -> None:
        self.not_priced.setdefault(option, []).append(reason)

    def note(self, option: str, term: str, why: str) -> None:
        self.notes.setdefault(option, {})[term] = why

    def table(self) -> PriceTable | None:
        if self._table is None:
            from ..prices.catalog import load_prices

            try:
                self._table = load_prices(self.sc.prices_dir)
            except PriceError:
                self._table = False
        return self._table or None



def epoch_s(c: Ctx) -> float | None:
    """Seconds one epoch takes at the steady throughput: w * samples / samples_per_s (None when unknown)."""
    S = c.settings.get("dataset.samples")
    thr = c.settings.get("training.samples_per_s")
    if not S or not thr:
        return None
    return c.values.get("dataset.working_set_fraction", 1.0) * S / thr
