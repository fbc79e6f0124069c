"""Numbers as Vega prints them: JavaScript's ``String(x)``, d3's ticks, nice domains and number formats.

Pure functions, exact to the JavaScript libraries that vl-convert's Vega bundles (d3-array 3.2.4, d3-scale 4.0.2,
d3-format 3.1.0, vega-format 2): the same doubles, bit for bit, and the same label texts. JavaScript's arithmetic is
copied where Python's differs: ``Math.pow(10, k)`` is V8's (one ulp off the correctly rounded power for some k,
e.g. ``10 ** -4``), ``Math.round`` rounds halves up, ``toFixed``/``toExponential``/``toPrecision`` round the
double's exact decimal value half up (Python's ``%`` formats round it half to even), a division by zero gives
infinity or NaN instead of raising.

A linear axis's labels in Vega (checked against vl-convert's SVGs, ``VEGA_AXES`` in tests/charts/test_svg_numbers.py):

- the domain: a nice scale (Vega-Lite's default for a quantitative one) is niced with d3's default count 10,
  :func:`nice` ``(lo, hi)``, whatever the axis's tick count;
- the tick count is Vega-Lite's ``tickCount`` signal: ``ceil(width / 40)`` for an x axis, ``ceil(height / 40)``
  for a y axis (:func:`axis_tick_count`), unless the axis gives one;
- the tick values are d3's :func:`ticks` of that domain with that count, all of them (Vega's ``validTicks``
  filter applies to explicit ``values`` only);
- the label texts are vega-format's ``formatSpan`` (:func:`vega_tick_format`): d3-scale's ``linear.tickFormat``
  (:func:`tick_format`: default specifier ``",f"`` with the tick step's decimals, so 0..0.9 reads ``0.0``, ``0.1``,
  and 0..100000 reads ``10,000``; negatives carry U+2212) except that an ``s`` specifier with a precision
  (``".2s"``) formats each tick by itself instead of in the larger end's SI unit (:func:`axis_labels`);
- every label is in the SVG; the ones Vega's label overlap removal hides (every other one, until none overlap, by
  the text's width) are drawn with ``opacity="0"``.

Where this differs from d3: NaN and infinities through an ``s`` format get no SI prefix (d3 3.1.0 appends the one
of the last number any ``s`` format printed, a module-level leftover).
"""
from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from decimal import ROUND_HALF_UP, Context, Decimal

__all__ = ["axis_labels", "axis_tick_count", "format_number", "js_number", "nice", "tick_format", "tick_increment",
           "tick_step", "ticks", "vega_tick_format"]

MINUS = "\u2212"  # d3-format's minus sign
_PREFIXES = ("y", "z", "a", "f", "p", "n", "\u00b5", "m", "", "k", "M", "G", "T", "P", "E", "Z", "Y")
_E10, _E5, _E2 = math.sqrt(50), math.sqrt(10), math.sqrt(2)
_EXACT = Context(prec=1200, rounding=ROUND_HALF_UP)  # enough digits for any double's exact value

# V8's Math.pow(10, k) is one ulp above (_POW10_UP) or below (_POW10_DOWN) the correctly rounded 10**k for these k
_POW10_UP = frozenset((-307, -303, -278, -268, -246, -207, -163, -148, -145, -106, -104, -88, -76, -57, -39, -29,
                       -24, -23, -21, -20, 29, 34, 39, 49, 58, 61, 111, 126, 165, 166, 169, 187, 210, 215, 225, 273,
                       274, 275))
_POW10_DOWN = frozenset((-306, -222, -166, -138, -128, -122, -111, -101, -63, -32, -17, -5, -4, 26, 36, 42, 70, 95,
                         96, 136, 142, 191, 218, 232, 242, 244, 260, 279, 284, 290, 294))


# ----------------------------------------------------------------------------------------------- JavaScript's math
def _pow10(k: float) -> float:
    """V8's ``Math.pow(10, k)`` for an integer, infinite or NaN ``k``."""
    if math.isnan(k):
        return math.nan
    if k > 308:
        return math.inf
    if k < -400:
        return 0.0
    p = float(f"1e{int(k)}")  # correctly rounded on every platform (the C library's pow is not)
    if k in _POW10_UP:
        return math.nextafter(p, math.inf)
    if k in _POW10_DOWN:
        return math.nextafter(p, -math.inf)
    return p


def _div(a: float, b: float) -> float:
    """JavaScript's ``a / b``: a zero divisor gives a signed infinity or NaN."""
    if b != 0:
        return a / b
    if a == 0 or math.isnan(a) or math.isnan(b):
        return math.nan
    return math.copysign(math.inf, a) * math.copysign(1.0, b)


def _floor(x: float) -> float:
    """``Math.floor``: -0 stays -0."""
    return float(math.floor(x)) if math.isfinite(x) and x != 0 else x


def _ceil(x: float) -> float:
    """``Math.ceil``: -0 for -1 < x <= -0."""
    if not math.isfinite(x) or x == 0:
        return x
    r = math.ceil(x)
    return -0.0 if r == 0 and x < 0 else float(r)


def js_round(x: float) -> float:
    """``Math.round``: halves up, toward +infinity; -0 for -0.5 <= x <= -0."""
    if not math.isfinite(x):
        return x
    r = math.floor(x)
    if x - r >= 0.5:
        r += 1
    return -0.0 if r == 0 and math.copysign(1.0, x) < 0 else float(r)


def _log10(x: float) -> float:
    if x > 0:
        return math.log10(x) if math.isfinite(x) else math.inf
    return -math.inf if x == 0 else math.nan


# ------------------------------------------------------------------------------------------ JavaScript's strings
def _shortest(x: float) -> tuple[str, int]:
    """The shortest round-trip digits of a positive finite double and its exponent ``e`` (x = d.ddd x 10**e)."""
    d = Decimal(repr(x))
    return "".join(map(str, d.as_tuple().digits)).rstrip("0") or "0", d.adjusted()


def js_number(x: float) -> str:
    """JavaScript's ``String(x)``: shortest round-trip digits, decimal for 1e-7 < |x| < 1e21, else ``1e+21``."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "0"
    sign = "-" if x < 0 else ""
    digits, e = _shortest(abs(x))
    k, n = len(digits), e + 1
    if k <= n <= 21:
        body = digits + "0" * (n - k)
    elif 0 < n <= 21:
        body = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        body = "0." + "0" * -n + digits
    else:
        body = digits[0] + ("." + digits[1:] if k > 1 else "") + "e" + ("+" if e >= 0 else "-") + str(abs(e))
    return sign + body


def _exp_text(digits: str, e: int) -> str:
    return digits[0] + ("." + digits[1:] if len(digits) > 1 else "") + "e" + ("+" if e >= 0 else "-") + str(abs(e))


def _round_digits(x: float, p: int) -> tuple[str, int]:
    """``p`` significant digits of positive finite ``x``'s exact value, halves up, and the exponent of the first."""
    d = Decimal(x)
    e = d.adjusted()
    q = d.scaleb(-e, _EXACT).quantize(Decimal(1).scaleb(1 - p), context=_EXACT)
    if q >= 10:
        q, e = (q / 10).quantize(Decimal(1).scaleb(1 - p), context=_EXACT), e + 1
    return "".join(map(str, q.as_tuple().digits))[:p], e


def _to_fixed(x: float, p: int) -> str:
    """``x.toFixed(p)``: the exact value rounded half up to ``p`` decimals; ``String(x)`` from 1e21 on."""
    if not math.isfinite(x) or abs(x) >= 1e21:
        return js_number(x)
    text = format(Decimal(x).quantize(Decimal(1).scaleb(-p), context=_EXACT), "f")
    return text[1:] if text.startswith("-") and x >= 0 else text


def _to_exponential(x: float, p: int | None = None) -> str:
    """``x.toExponential(p)`` of a non-negative ``x`` (shortest digits when ``p`` is None)."""
    if not math.isfinite(x):
        return js_number(x)
    if x == 0:
        return "0" + ("." + "0" * p if p else "") + "e+0"
    digits, e = _shortest(x) if p is None else _round_digits(x, p + 1)
    return _exp_text(digits, e)


def _to_precision(x: float, p: int) -> str:
    """``x.toPrecision(p)`` of a non-negative ``x``."""
    if not math.isfinite(x):
        return js_number(x)
    if x == 0:
        return "0" + ("." + "0" * (p - 1) if p > 1 else "")
    digits, e = _round_digits(x, p)
    if e < -6 or e >= p:
        return _exp_text(digits, e)
    if e >= 0:
        return digits[: e + 1] + ("." + digits[e + 1:] if p > e + 1 else "")
    return "0." + "0" * (-e - 1) + digits


_JS_DECIMAL = re.compile(r"[+-]?(?:Infinity|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)", re.ASCII)


def _js_to_number(s: str) -> float:
    """JavaScript's ``+s`` for the strings a format makes (decimal literals; anything else is NaN)."""
    s = s.strip()
    if not s:
        return 0.0
    return float(s.replace("Infinity", "inf")) if _JS_DECIMAL.fullmatch(s) else math.nan


# ---------------------------------------------------------------------------------------------------- d3-array
def _tick_spec(start: float, stop: float, count: float) -> tuple[float, float, float]:
    step = _div(stop - start, max(0.0, count))
    power = _floor(_log10(step))
    error = _div(step, _pow10(power))
    factor = 10.0 if error >= _E10 else 5.0 if error >= _E5 else 2.0 if error >= _E2 else 1.0
    if power < 0:
        inc = _pow10(-power) / factor
        i1, i2 = js_round(start * inc), js_round(stop * inc)
        if i1 / inc < start:
            i1 += 1
        if i2 / inc > stop:
            i2 -= 1
        inc = -inc
    else:
        inc = _pow10(power) * factor
        i1, i2 = js_round(_div(start, inc)), js_round(_div(stop, inc))
        if i1 * inc < start:
            i1 += 1
        if i2 * inc > stop:
            i2 -= 1
    if i2 < i1 and 0.5 <= count < 2:
        return _tick_spec(start, stop, count * 2)
    return i1, i2, inc


def ticks(start: float, stop: float, count: int) -> list[float]:
    """d3-array's ``ticks(start, stop, count)``: about ``count`` round values in [start, stop], in its order."""
    if not count > 0:
        return []
    if start == stop:
        return [start]
    reverse = stop < start
    i1, i2, inc = _tick_spec(stop, start, count) if reverse else _tick_spec(start, stop, count)
    if not i2 >= i1:
        return []
    n = int(i2 - i1 + 1)
    if reverse:
        return [(i2 - i) / -inc for i in range(n)] if inc < 0 else [(i2 - i) * inc for i in range(n)]
    return [(i1 + i) / -inc for i in range(n)] if inc < 0 else [(i1 + i) * inc for i in range(n)]


def tick_increment(start: float, stop: float, count: int) -> float:
    """d3-array's ``tickIncrement``: the step, or minus its inverse when below 1 (start <= stop)."""
    return _tick_spec(start, stop, count)[2]


def tick_step(start: float, stop: float, count: int) -> float:
    """d3-array's ``tickStep``: the signed step between ticks (negative for a reversed domain)."""
    reverse = stop < start
    inc = tick_increment(stop, start, count) if reverse else tick_increment(start, stop, count)
    return (-1.0 if reverse else 1.0) * (_div(1.0, -inc) if inc < 0 else inc)


# ---------------------------------------------------------------------------------------------------- d3-scale
def nice(lo: float, hi: float, count: int = 10) -> tuple[float, float]:
    """d3-scale's ``linear().domain([lo, hi]).nice(count).domain()``: the domain widened to round ends.

    Up to 10 passes of :func:`tick_increment`; a reversed domain stays reversed; when the passes do not settle,
    the domain is left as given (d3-scale 4's behaviour).
    """
    start, stop, flip = (hi, lo, True) if hi < lo else (lo, hi, False)
    prestep: float | None = None
    for _ in range(10):
        step = tick_increment(start, stop, count)
        if step == prestep:
            return (stop, start) if flip else (start, stop)
        if step > 0:
            start = _floor(start / step) * step
            stop = _ceil(stop / step) * step
        elif step < 0:
            start = _ceil(start * step) / step
            stop = _floor(stop * step) / step
        else:
            break
        prestep = step
    return lo, hi


def axis_tick_count(extent_px: float) -> int:
    """Vega-Lite's default ``tickCount`` of a continuous axis: ``ceil(width / 40)`` (x) or ``ceil(height / 40)``."""
    return math.ceil(extent_px / 40)


# --------------------------------------------------------------------------------------------------- d3-format
_SPEC = re.compile(r"(?:(.)?([<>=^]))?([+\-( ])?([$#])?(0)?(\d+)?(,)?(\.\d+)?(~)?([a-z%])?", re.ASCII | re.IGNORECASE)


@dataclass(frozen=True)
class _Spec:
    fill: str = " "
    align: str = ">"
    sign: str = "-"
    symbol: str = ""
    zero: bool = False
    width: int | None = None
    comma: bool = False
    precision: int | None = None
    trim: bool = False
    type: str = ""

    def __str__(self) -> str:
        return (self.fill + self.align + self.sign + self.symbol + ("0" if self.zero else "")
                + ("" if self.width is None else str(max(1, self.width)))
                + ("," if self.comma else "") + ("" if self.precision is None else "." + str(max(0, self.precision)))
                + ("~" if self.trim else "") + self.type)


def _parse(specifier: str) -> _Spec:
    m = _SPEC.fullmatch(specifier)
    if m is None:
        raise ValueError(f"invalid format: {specifier!r} (expected d3-format's [[fill]align][sign][symbol][0]"
                         "[width][,][.precision][~][type])")
    fill, align, sign, symbol, zero, width, comma, precision, trim, type_ = m.groups()
    return _Spec(fill if fill is not None else " ", align or ">", sign or "-", symbol or "", bool(zero),
                 None if width is None else int(width), bool(comma), None if precision is None else int(precision[1:]),
                 bool(trim), type_ or "")


def _decimal_parts(x: float, p: int | None = None) -> tuple[str, int] | None:
    """d3's ``formatDecimalParts``: the digits and exponent of ``x.toExponential(p - 1)``; None for NaN and infinities
    (0 gives zeros and exponent 0, as d3-format 3.1.0 has it)."""
    if not math.isfinite(x):
        return None
    text = _to_exponential(x, p - 1) if p else _to_exponential(x)
    i = text.index("e")
    coefficient = text[:i]
    return (coefficient[0] + coefficient[2:] if len(coefficient) > 1 else coefficient), int(text[i + 1:])


def _exponent(x: float) -> float:
    parts = _decimal_parts(abs(x))
    return float(parts[1]) if parts else math.nan


def _format_decimal(x: float, _p: int) -> str:
    r = js_round(x)
    if math.isinf(r):
        return "\u221e" if r > 0 else "-\u221e"  # toLocaleString("en")
    if abs(r) >= 1e21:  # toLocaleString("en") without its commas: the shortest digits, zero-padded
        digits, e = _shortest(abs(r))
        return ("-" if r < 0 else "") + digits + "0" * (e + 1 - len(digits))
    return js_number(r)


def _format_rounded(x: float, p: int) -> str:
    parts = _decimal_parts(x, p)
    if parts is None:
        return js_number(x)
    coefficient, exponent = parts
    if exponent < 0:
        return "0." + "0" * (-exponent - 1) + coefficient
    if len(coefficient) > exponent + 1:
        return coefficient[: exponent + 1] + "." + coefficient[exponent + 1:]
    return coefficient + "0" * (exponent - len(coefficient) + 1)


def _format_prefix_auto(x: float, p: int) -> tuple[str, int | None]:
    parts = _decimal_parts(x, p)
    if parts is None:  # NaN, infinities: d3 appends the SI prefix of the last number it printed; none here
        return js_number(x), None
    coefficient, exponent = parts
    prefix_exponent = max(-8, min(8, math.floor(exponent / 3))) * 3
    i, n = exponent - prefix_exponent + 1, len(coefficient)
    if i == n:
        return coefficient, prefix_exponent
    if i > n:
        return coefficient + "0" * (i - n), prefix_exponent
    if i > 0:
        return coefficient[:i] + "." + coefficient[i:], prefix_exponent
    tail = _decimal_parts(x, max(0, p + i - 1))
    return "0." + "0" * -i + (tail[0] if tail else ""), prefix_exponent


def _radix(base: str) -> Callable[[float, int], str]:
    return lambda x, _p: format(int(js_round(x)), base) if math.isfinite(x) else js_number(x)


_TYPES: dict[str, Callable[[float, int], str]] = {
    "%": lambda x, p: _to_fixed(x * 100, p),
    "b": _radix("b"),
    "c": lambda x, _p: js_number(x),
    "d": _format_decimal,
    "e": _to_exponential,
    "f": _to_fixed,
    "g": _to_precision,
    "o": _radix("o"),
    "p": lambda x, p: _format_rounded(x * 100, p),
    "r": _format_rounded,
    "X": lambda x, p: _radix("x")(x, p).upper(),
    "x": _radix("x"),
}


def _trim(s: str) -> str:
    """d3's ``formatTrim``: 1.2000 -> 1.2, 1.0 -> 1 (the insignificant zeros of the first decimal run)."""
    i0, i1 = -1, 0
    for i in range(1, len(s)):
        c = s[i]
        if c == ".":
            i0 = i1 = i
        elif c == "0":
            if i0 == 0:
                i0 = i
            i1 = i
        else:
            if c not in "123456789":
                break
            if i0 > 0:
                i0 = 0
    return s[:i0] + s[i1 + 1:] if i0 > 0 else s


def _group(value: str, width: float) -> str:
    """d3's ``formatGroup`` with grouping [3] and the comma, stopping at ``width`` characters."""
    i, parts, length, g = len(value), [], 0, 3
    while i > 0 and g > 0:
        if length + g + 1 > width:
            g = int(max(1, width - length))
        parts.append(value[max(0, i - g): i])
        i -= g
        length += g + 1
        if length > width:
            break
        g = 3
    return ",".join(reversed(parts))


def _align(align: str, padding: str, prefix: str, text: str, suffix: str) -> str:
    if align == "<":
        return prefix + text + suffix + padding
    if align == "=":
        return prefix + padding + text + suffix
    if align == "^":
        half = len(padding) >> 1
        return padding[:half] + prefix + text + suffix + padding[half:]
    return padding + prefix + text + suffix


def _pad(fill: str, align: str, width: int | None, prefix: str, text: str, suffix: str) -> str:
    length = len(prefix) + len(text) + len(suffix)
    return _align(align, fill * (width - length) if width is not None and length < width else "", prefix, text, suffix)


def _formatter(spec: _Spec, suffix_option: str = "") -> Callable[[float], str]:
    """d3-format's ``format(spec)`` in its default locale (en-US, "$", U+2212 minus)."""
    fill, align, sign, symbol, zero = spec.fill, spec.align, spec.sign, spec.symbol, spec.zero
    width, comma, precision, trim, type_ = spec.width, spec.comma, spec.precision, spec.trim, spec.type
    if type_ == "n":
        comma, type_ = True, "g"
    elif type_ not in _TYPES and type_ != "s":  # "" and the letters d3 does not know: ".12~g"
        precision, trim, type_ = (12 if precision is None else precision), True, "g"
    if zero or (fill == "0" and align == "="):
        zero, fill, align = True, "0", "="
    prefix = "$" if symbol == "$" else ("0" + type_.lower() if symbol == "#" and type_ in ("b", "o", "x", "X") else "")
    suffix = ("" if symbol == "$" else "%" if type_ in ("%", "p") else "") + suffix_option
    maybe_suffix = type_ in ("d", "e", "f", "g", "p", "r", "s", "%")
    if precision is None:
        precision = 6
    elif type_ in ("g", "p", "r", "s"):
        precision = max(1, min(21, precision))
    else:
        precision = max(0, min(20, precision))
    p = precision

    def format_(value: float) -> str:
        value_prefix, value_suffix = prefix, suffix
        if type_ == "c":  # the value as a string after the prefix: no sign, no grouping of its digits
            return _pad(fill, align, width, prefix, "", js_number(value) + suffix)
        negative = value < 0 or (value == 0 and math.copysign(1.0, value) < 0)
        prefix_exponent: int | None = None
        if math.isnan(value):
            text = "NaN"
        elif type_ == "s":
            text, prefix_exponent = _format_prefix_auto(abs(value), p)
        else:
            text = _TYPES[type_](abs(value), p)
        if trim:
            text = _trim(text)
        if negative and _js_to_number(text) == 0 and sign != "+":
            negative = False
        value_prefix = ((sign if sign == "(" else MINUS) if negative else "" if sign in "-(" else sign) + value_prefix
        si = (_PREFIXES[8 + prefix_exponent // 3]
              if type_ == "s" and prefix_exponent is not None and not math.isnan(_js_to_number(text)) else "")
        value_suffix = si + value_suffix + (")" if negative and sign == "(" else "")
        if maybe_suffix:
            for i, c in enumerate(text):
                if not "0" <= c <= "9":
                    value_suffix = (("." + text[i + 1:]) if c == "." else text[i:]) + value_suffix
                    text = text[:i]
                    break
        if comma and not zero:
            text = _group(text, math.inf)
        length = len(value_prefix) + len(text) + len(value_suffix)
        padding = fill * (width - length) if width is not None and length < width else ""
        if comma and zero:
            text = _group(padding + text, width - len(value_suffix) if padding and width is not None else math.inf)
            padding = ""
        return _align(align, padding, value_prefix, text, value_suffix)

    return format_


def format_number(specifier: str, value: float) -> str:
    """d3-format's ``format(specifier)(value)`` (en-US: "," thousands, "$", minus U+2212, SI prefixes for ``s``).

    Raises ValueError for a specifier d3 refuses.
    """
    return _formatter(_parse(specifier))(value)


def _format_prefix(spec: _Spec, value: float) -> Callable[[float], str]:
    """d3-format's ``formatPrefix(spec, value)``: fixed decimals in the SI unit of ``value``."""
    exp = _exponent(value)
    if math.isnan(exp):
        fmt = _formatter(_parse(str(replace(spec, type="f"))))
        return lambda x: fmt(math.nan)
    e = max(-8, min(8, math.floor(exp / 3))) * 3
    k = _pow10(-e)
    fmt = _formatter(_parse(str(replace(spec, type="f"))), _PREFIXES[8 + e // 3])
    return lambda x: fmt(k * x)


def _precision_fixed(step: float) -> float:
    e_step = _exponent(abs(step))
    return math.nan if math.isnan(e_step) else max(0.0, -e_step)


def _precision_prefix(step: float, value: float) -> float:
    e_value, e_step = _exponent(value), _exponent(abs(step))
    if math.isnan(e_value) or math.isnan(e_step):
        return math.nan
    return max(0.0, max(-8, min(8, math.floor(e_value / 3))) * 3 - e_step)


def _precision_round(step: float, max_: float) -> float:
    step = abs(step)
    e_max, e_step = _exponent(abs(max_) - step), _exponent(step)
    if math.isnan(e_max) or math.isnan(e_step):
        return math.nan
    return max(0.0, e_max - e_step) + 1


def _span_format(lo: float, hi: float, count: int, specifier: str | None, vega: bool) -> Callable[[float], str]:
    spec = _parse(",f" if specifier is None else specifier)
    step = tick_step(lo, hi, count)
    if spec.type == "s" and (spec.precision is None or not vega):
        value = max(abs(lo), abs(hi))
        precision = _precision_prefix(step, value)
        if spec.precision is None and not math.isnan(precision):
            spec = replace(spec, precision=int(precision))
        return _format_prefix(spec, value)
    if spec.precision is None:
        if spec.type in ("", "e", "g", "p", "r"):
            precision = _precision_round(step, max(abs(lo), abs(hi)))
            if not math.isnan(precision):
                spec = replace(spec, precision=int(precision) - (spec.type == "e"))
        elif spec.type in ("f", "%"):
            precision = _precision_fixed(step)
            if not math.isnan(precision):
                spec = replace(spec, precision=int(precision) - 2 * (spec.type == "%"))
    return _formatter(_parse(str(spec)))


def tick_format(lo: float, hi: float, count: int, specifier: str | None = None) -> Callable[[float], str]:
    """d3-scale's ``linear().domain([lo, hi]).tickFormat(count, specifier)``.

    The default specifier is ``",f"``; a specifier without precision gets the tick step's; an ``s`` specifier
    prints every tick in the SI unit of the larger end. Raises ValueError for a specifier d3 refuses.
    """
    return _span_format(lo, hi, count, specifier, vega=False)


def vega_tick_format(lo: float, hi: float, count: int, specifier: str | None = None) -> Callable[[float], str]:
    """Vega's ``formatSpan``, what labels a linear axis: :func:`tick_format`, except that an ``s`` specifier with
    a precision (``".2s"``) formats each tick by itself (``format``), not in the larger end's unit."""
    return _span_format(lo, hi, count, specifier, vega=True)


def axis_labels(lo: float, hi: float, count: int, specifier: str | None = None) -> list[tuple[float, str]]:
    """The ticks and label texts of a Vega linear axis over the domain [lo, hi] (already niced if the scale is).

    ``count`` is the axis's tick count (:func:`axis_tick_count` of its length by default).
    """
    fmt = vega_tick_format(lo, hi, count, specifier)
    return [(t, fmt(t)) for t in ticks(lo, hi, count)]
