#!/usr/bin/env bash
# Draw a rendered report with headless Chromium (no network) and save a PNG for the README and the docs.
# Usage: tools/screenshot.sh REPORT.html OUT.png [WIDTHxHEIGHT]
set -euo pipefail
html="$(realpath "$1")"; out="$2"; size="${3:-1100,1500}"
browser="$(command -v chromium || command -v chromium-browser)" || { echo "screenshot: chromium not found (apt-get install -y chromium)" >&2; exit 2; }
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
"$browser" --headless --no-sandbox --disable-gpu --disable-background-networking --hide-scrollbars \
  --user-data-dir="$tmp/profile" --window-size="$size" --screenshot="$tmp/shot.png" "file://$html" >/dev/null 2>&1
# Quantise to a 64-colour palette when Pillow is there (keeps the committed PNG well under 300 KB).
python3 - "$tmp/shot.png" "$out" <<'PY' 2>/dev/null || cp "$tmp/shot.png" "$out"
import sys
from PIL import Image
Image.open(sys.argv[1]).convert("RGB").quantize(colors=64).save(sys.argv[2], optimize=True)
PY
echo "screenshot: $out ($(stat -c %s "$out") bytes)"
