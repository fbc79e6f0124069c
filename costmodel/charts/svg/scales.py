"""The scales of a plot, as Vega-Lite resolves them: one shared x, y and colour scale across a plot's layers
(domains unioned over the layers' fields, ``zero`` and ``nice`` as Vega-Lite's defaults, band padding per mark)."""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from . import colors, numbers
from .markup import NotDrawable
from .spec import UNSET, Channel, Layer


def number(value: Any) -> float | None:
    """A finite number from a data value, else None (missing values are not drawn, as in Vega)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    v = float(value)
    return v if math.isfinite(v) else None


@dataclass
class Linear:
    """A linear scale: ``domain`` (after zero and nice) to ``range`` px (y: range reversed)."""

    domain: tuple[float, float]
    range: tuple[float, float]
    clamp: bool = False

    def __call__(self, value: float) -> float:
        d0, d1 = self.domain
        r0, r1 = self.range
        if d1 == d0:
            return (r0 + r1) / 2
        t = (value - d0) / (d1 - d0)
        if self.clamp:
            t = min(1.0, max(0.0, t))
        return r0 + t * (r1 - r0)


@dataclass
class Band:
    """A band scale (d3's): ``domain`` values in order; ``start(v)`` the band's start px, ``bandwidth`` its size."""

    domain: list[str]
    range: tuple[float, float]
    padding_inner: float
    padding_outer: float

    def __post_init__(self) -> None:
        n = len(self.domain)
        r0, r1 = self.range
        self.step = (r1 - r0) / max(1.0, n - self.padding_inner + self.padding_outer * 2)
        self.offset = r0 + (r1 - r0 - self.step * (n - self.padding_inner)) * 0.5
        self.bandwidth = self.step * (1 - self.padding_inner)
        self._index = {v: i for i, v in enumerate(self.domain)}

    def start(self, value: Any) -> float | None:
        i = self._index.get(_key(value))
        return None if i is None else self.offset + self.step * i

    def __call__(self, value: Any) -> float | None:
        """The band's centre (where a text or a tick goes)."""
        s = self.start(value)
        return None if s is None else s + self.bandwidth / 2


def _key(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return numbers.js_number(value)
    return str(value) if not isinstance(value, bool) else ("true" if value else "false")


def _sorted_domain(values: Sequence[Any], sort: Any) -> list[str]:
    seen = list(dict.fromkeys(_key(v) for v in values if v is not None))
    if isinstance(sort, Sequence) and not isinstance(sort, str):
        given = [_key(v) for v in sort]
        return [v for v in given if v in seen] + sorted(v for v in seen if v not in set(given))
    if sort in (None, "ascending"):
        return colors.sort_domain(seen)
    if sort == "descending":
        return colors.sort_domain(seen)[::-1]
    raise NotDrawable(f"sort {sort}")


def _options(channels: Sequence[Channel], key: str) -> Any:
    for ch in channels:
        scale = ch.scale
        if isinstance(scale, Mapping) and key in scale:
            return scale[key]
    return UNSET


def positional(name: str, channels: Sequence[Channel], values: Sequence[float | Any], size: float,
               bars: bool, zero_default: bool = True) -> Linear | Band | None:
    """The ``x`` or ``y`` scale of a plot from its layers' channels (``name`` and ``name2``) and the values they
    place. None when every channel has ``scale: null`` (values are px). ``bars``: a band scale pads as bars do;
    ``zero_default``: whether the domain takes in zero when the spec says nothing (Vega-Lite: not for the x of lines
    and areas, their dimension)."""
    typed = [c for c in channels if c.type is not None]
    if not typed:
        raise NotDrawable(f"{name} without a type")
    if all(c.scale is None for c in typed):
        return None
    kinds = {c.type for c in typed if c.scale is not None}
    scaled = [c for c in channels if c.scale is not None]
    for c in scaled:
        if isinstance(c.scale, Mapping) and set(c.scale) - {"domain", "zero", "nice", "clamp"}:
            raise NotDrawable(f"{name} scale options {sorted(c.scale)}")
    if kinds == {"quantitative"}:
        domain = _options(scaled, "domain")
        if domain is UNSET:
            nums = [v for v in (number(x) for x in values) if v is not None]
            lo, hi = (min(nums), max(nums)) if nums else (0.0, 1.0)
        else:
            if not (isinstance(domain, Sequence) and len(domain) == 2):
                raise NotDrawable("a domain that is not [min, max]")
            lo, hi = float(domain[0]), float(domain[1])
        zero = _options(scaled, "zero")
        if zero is UNSET:
            zero = domain is UNSET and zero_default
        if zero:
            lo, hi = min(lo, 0.0), max(hi, 0.0)
        nice = _options(scaled, "nice")
        if nice is UNSET:
            nice = domain is UNSET
        if nice is True and hi > lo:
            lo, hi = numbers.nice(lo, hi, 10)
        elif nice not in (True, False):
            raise NotDrawable("nice with a count")
        rng = (0.0, size) if name == "x" else (size, 0.0)
        return Linear((lo, hi), rng, bool(_options(scaled, "clamp") is True))
    if kinds <= {"nominal", "ordinal"}:
        sort = next((c.sort for c in scaled if c.sort is not None), None)
        domain = _sorted_domain(values, sort)
        inner, outer = (0.1, 0.05) if bars else (0.0, 0.0)
        return Band(domain, (0.0, size), inner, outer)
    raise NotDrawable(f"{name} mixes types {sorted(str(k) for k in kinds)}")


@dataclass
class Color:
    """A colour scale: nominal (``domain`` -> ``range``) or a continuous scheme over a numeric domain."""

    nominal: dict[str, str] | None
    order: list[str]
    scheme: str | None = None
    domain: tuple[float, float] = (0.0, 1.0)
    reverse: bool = False
    clamp: bool = False

    def __call__(self, value: Any) -> str | None:
        if self.nominal is not None:
            return self.nominal.get(_key(value))
        v = number(value)
        if v is None:
            return None
        return colors.sequential_color(v, self.domain, self.scheme or "blues", self.reverse, self.clamp)


def color(channels: Sequence[Channel], layers: Sequence[Layer]) -> Color:
    """The colour scale shared by the layers' ``color`` channels."""
    types = {c.type for c in channels}
    values = [row.get(c.field) for lay in layers for c in [lay.channels.get("color")] if c is not None and c.field
              for row in lay.rows]
    scale: dict[str, Any] = {}
    for c in channels:
        if isinstance(c.scale, Mapping):
            scale.update(c.scale)
    if set(scale) - {"domain", "range", "scheme", "reverse", "clamp"}:
        raise NotDrawable(f"colour scale options {sorted(scale)}")
    if types <= {"nominal", "ordinal"}:
        if "scheme" in scale:
            raise NotDrawable("a nominal colour scheme")
        order = [_key(v) for v in scale["domain"]] if "domain" in scale else _sorted_domain(values, None)
        rng = scale.get("range") or list(colors.TABLEAU10)
        if not isinstance(rng, Sequence) or not all(isinstance(c, str) for c in rng):
            raise NotDrawable("a colour range that is not a list of colours")
        mapping: dict[str, str] = {str(v): c for v, c in colors.nominal_table(order, rng).items()}
        present = {_key(v) for v in values if v is not None}
        return Color(mapping, [v for v in order if v in present] if "domain" not in scale else order)
    if types == {"quantitative"}:
        if "domain" in scale:
            lo, hi = (float(v) for v in scale["domain"])
        else:
            nums = [v for v in (number(x) for x in values) if v is not None]
            lo, hi = (min(nums), max(nums)) if nums else (0.0, 1.0)
        if "range" in scale:
            raise NotDrawable("a continuous colour range")
        return Color(None, [], str(scale.get("scheme", "blues")), (lo, hi), bool(scale.get("reverse")),
                     bool(scale.get("clamp")))
    raise NotDrawable(f"colour types {sorted(str(t) for t in types)}")
