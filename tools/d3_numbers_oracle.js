// The oracle of costmodel/charts/svg/numbers.py: d3's own answers, frozen as Python literals in
// tests/charts/test_svg_numbers.py (the test needs no node).
//
// Regenerate (the versions vl-convert 1.9's Vega 6.2 bundles):
//   mkdir -p /tmp/d3 && cd /tmp/d3 && npm install --save-exact d3-array@3.2.4 d3-format@3.1.0 d3-scale@4.0.2
//   (exact: a caret range brings d3-format 3.1.3, whose zero and NaN handling differ)
//   NODE_PATH=/tmp/d3/node_modules node tools/d3_numbers_oracle.js tests/charts/test_svg_numbers.py
// It rewrites the tables between "# --- oracle tables" and "# --- end of oracle tables" in that file
// (without an argument it prints them). `... --random N` prints N random cases as JSON instead, for a wider
// one-off comparison.
"use strict";
const fs = require("fs");
const d3a = require("d3-array");
const d3f = require("d3-format");
const d3s = require("d3-scale");

// a double as a Python literal that reads back as the same double
function py(x) {
  if (Object.is(x, -0)) return "-0.0";
  if (Number.isNaN(x)) return "NAN";
  if (x === Infinity) return "INF";
  if (x === -Infinity) return "-INF";
  const s = String(x);
  return /[.e]/.test(s) ? s : s + ".0";
}
const pys = (s) => JSON.stringify(s).replace(/[\u0080-\uffff]/g, (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));
// vega-format 2's formatSpan, as vl-convert 1.9 bundles it (minified there): d3-scale's tickFormat, except that
// an "s" specifier with a precision is formatted by itself, not through formatPrefix
function vegaFormatSpan(start, stop, count, specifier) {
  specifier = d3f.formatSpecifier(specifier == null ? ",f" : specifier);
  const step = d3a.tickStep(start, stop, count), value = Math.max(Math.abs(start), Math.abs(stop));
  let precision;
  if (specifier.precision == null) {
    switch (specifier.type) {
      case "s": {
        if (!isNaN(precision = d3f.precisionPrefix(step, value))) specifier.precision = precision;
        return d3f.formatPrefix(specifier, value);
      }
      case "": case "e": case "g": case "p": case "r": {
        if (!isNaN(precision = d3f.precisionRound(step, value))) specifier.precision = precision - (specifier.type === "e");
        break;
      }
      case "f": case "%": {
        if (!isNaN(precision = d3f.precisionFixed(step))) specifier.precision = precision - (specifier.type === "%") * 2;
        break;
      }
    }
  }
  return d3f.format(specifier);
}
const pyl = (xs) => "[" + xs.map(py).join(", ") + "]";

const DOMAINS = [
  [0, 1], [0, 10], [0, 348.4], [0, 100000], [0, 0.9], [-71.48, 135807], [-1, 1], [0.001, 0.0097],
  [1e-9, 3e-9], [1e9, 5e9], [123456, 123789], [-0.0005, 0.0005], [5, 5], [10, 0], [348.4, 0], [-10, -3],
  [0.1, 0.30000000000000004], [1e15, 1e16], [1e20, 1e25], [-1e-20, 3e-20], [0.95, 1.05], [0, 115.7],
  [-3.3, 7.7], [0.0001, 0.00051], [0, 1e-4], [0, 2.5e-5], [17, 23], [0, 4.4e6], [-0.2, 0], [1e-300, 1e-299],
];
const COUNTS = [1, 2, 3, 5, 7, 10, 20];
const NUMBERS = [
  0, -0, 1, -1, 2, 0.1, 0.1 + 0.2, 1 / 3, 2 / 3, 1e-7, 1.5e-7, 1e-6, 1.234e-6, 123456789, 1e21, 9.999e20, 1e20,
  123456789012345680000, 1.7976931348623157e308, 5e-324, 2 ** 53, 2 ** 53 + 2, -1e-7, 1e300, 1e16, 1.2e16,
  NaN, Infinity, -Infinity, 4.35, 0.3, 1e22, 12345.678, -0.0005, 2.5, 0.125, 1 - 1e-16, 100, 0.000001234,
  -123.456, 7e-10, 3.0000000000000004, 0.07, 1.005, 98765.4321, 1e-5, 1e-4,
];
for (let k = -25; k <= 25; k += 2) NUMBERS.push(1.2345 * Math.pow(10, k), Math.pow(10, k));

const SPECS = [",.0f", ".0%", ".1f", ".1%", ",.2f", ".3~g", "~s", ",", ".2s", ",d", "", "f", "%", "d", "e", "g",
  "r", "s", "p", ".2e", ".3g", ".3r", ".2p", "$,.2f", "+.1f", "(.1f", " .1f", "08.2f", "010,.0f", "^10.1f",
  "*<8d", ".0f", ".2f", ".6~f", "~g", ".1s", ",.3s", "x", "#x", "b", "o", "X", "c", ",.12~g", "~e", "~%", ".20f"];
const VALUES = [0, -0, 1, -1, 0.5, 2.5, -2.5, 0.125, -0.0005, 0.1 + 0.2, 1e-7, 123456789, 1234.5678, -42,
  0.015, 0.00012345, 1e21, 1.5e22, 999.9996, NaN, Infinity, 3e-25, 7.5e26];

const TICK_FORMATS = [
  [0, 348.4, 10], [0, 100000, 5], [0, 0.9, 10], [-100, 140000, 8], [0, 1, 5], [0.001, 0.0097, 5], [1e9, 5e9, 4],
  [123456, 123789, 5], [-0.0005, 0.0005, 5], [10, 0, 5], [0, 115.7, 12], [0, 2.5e-5, 5], [0, 4.4e6, 10],
  [-3.3, 7.7, 10], [5, 5, 5], [0, 0.3, 3],
];
const TICK_SPECS = [null, "", ",.0f", ".0%", "%", "s", "~s", ".2s", "e", "g", "r", "p", "$,", ",d", "~f", ".1f"];

function tables() {
  const out = [];
  out.push("JS_NUMBER = [");
  for (const x of NUMBERS) out.push(`    (${py(x)}, ${pys(String(x))}),`);
  out.push("]");
  out.push("POW10 = [  # V8's Math.pow(10, k) for k from -330 to 310");
  for (let k = -330; k <= 310; k += 6) {
    const row = [];
    for (let j = k; j < Math.min(k + 6, 311); j++) row.push(py(Math.pow(10, j)));
    out.push("    " + row.join(", ") + ",");
  }
  out.push("]");
  out.push("TICKS = [");
  for (const [a, b] of DOMAINS) for (const c of COUNTS) out.push(`    (${py(a)}, ${py(b)}, ${c}, ${pyl(d3a.ticks(a, b, c))}),`);
  out.push("]");
  out.push("TICK_INCREMENT_STEP = [  # start, stop, count, tickIncrement (start <= stop), tickStep");
  for (const [a, b] of DOMAINS) for (const c of [1, 3, 5, 10, 20]) {
    const [s, t] = a <= b ? [a, b] : [b, a];
    out.push(`    (${py(a)}, ${py(b)}, ${c}, ${py(d3a.tickIncrement(s, t, c))}, ${py(d3a.tickStep(a, b, c))}),`);
  }
  out.push("]");
  out.push("NICE = [");
  for (const [a, b] of DOMAINS) for (const c of [1, 3, 5, 10, 20]) {
    out.push(`    (${py(a)}, ${py(b)}, ${c}, ${pyl(d3s.scaleLinear().domain([a, b]).nice(c).domain())}),`);
  }
  out.push("]");
  out.push("FORMAT = [");
  // NaN and infinities through "s" are left out: d3 appends the SI prefix of the last number an "s" format printed
  for (const s of SPECS) for (const v of VALUES) if (isFinite(v) || !/s$/.test(s)) out.push(`    (${pys(s)}, ${py(v)}, ${pys(d3f.format(s)(v))}),`);
  out.push("]");
  out.push("TICK_FORMAT = [  # lo, hi, count, specifier, values, d3-scale tickFormat labels, Vega formatSpan labels");
  for (const [a, b, c] of TICK_FORMATS) for (const s of TICK_SPECS) {
    const values = [...d3a.ticks(a, b, c), a, b, -0, -1.5];
    const f = d3s.scaleLinear().domain([a, b]).tickFormat(c, s === null ? undefined : s);
    const g = vegaFormatSpan(a, b, c, s);
    out.push(`    (${py(a)}, ${py(b)}, ${c}, ${s === null ? "None" : pys(s)}, ${pyl(values)},`);
    out.push(`     [${values.map((v) => pys(f(v))).join(", ")}],`);
    out.push(`     [${values.map((v) => pys(g(v))).join(", ")}]),`);
  }
  out.push("]");
  return out.join("\n");
}

function random(n) {
  let seed = 12345;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const cases = [];
  for (let i = 0; i < n; i++) {
    const scale = Math.pow(10, Math.floor(rnd() * 40) - 20);
    const a = (rnd() - 0.3) * scale * (rnd() < 0.5 ? 1 : 1000), b = a + rnd() * scale * (rnd() < 0.1 ? 1e-6 : 1);
    const c = 1 + Math.floor(rnd() * 20);
    const v = (rnd() - 0.5) * scale;
    const s = SPECS[Math.floor(rnd() * SPECS.length)], ts = TICK_SPECS[Math.floor(rnd() * TICK_SPECS.length)];
    const tv = d3a.ticks(a, b, c);
    const f = d3s.scaleLinear().domain([a, b]).tickFormat(c, ts === null ? undefined : ts);
    cases.push({a: String(a), b: String(b), c, v: String(v), s, ts, ticks: tv.map(String),
      nice: d3s.scaleLinear().domain([a, b]).nice(c).domain().map(String), fmt: d3f.format(s)(v),
      labels: tv.map(f), str: String(v)});
  }
  return JSON.stringify(cases);
}

const args = process.argv.slice(2);
if (args[0] === "--random") {
  console.log(random(+args[1] || 1000));
} else if (args.length) {
  const text = fs.readFileSync(args[0], "utf8");
  const start = text.indexOf("# --- oracle tables\n"), end = text.indexOf("# --- end of oracle tables");
  if (start < 0 || end < 0) throw new Error(`no oracle markers in ${args[0]}`);
  fs.writeFileSync(args[0], text.slice(0, start) + "# --- oracle tables\n" + tables() + "\n" + text.slice(end));
} else {
  console.log(tables());
}
