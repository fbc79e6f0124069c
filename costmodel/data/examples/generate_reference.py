"""Regenerate the bundled reference example (a SYNTHETIC RECONSTRUCTION, not measured data).

Writes ``colocated_steps.csv`` and ``remote_steps.csv`` beside this script from the published
ranges of the reference case (see README.md in this folder), with a fixed seed, by calling
:func:`costmodel.synthetic.shapes.reference_case`. Run: ``.venv/bin/python data/examples/generate_reference.py``.
"""
from __future__ import annotations

from pathlib import Path

from costmodel.foundation.util import write_text_atomic
from costmodel.synthetic.shapes import reference_case

HERE = Path(__file__).resolve().parent
SEED = 20260925  # the publication date of the validation


def main() -> None:
    for role in ("colocated", "remote"):
        df = reference_case(role, n=2000, seed=SEED)
        write_text_atomic(HERE / f"{role}_steps.csv", df.to_csv(index=False, na_rep=""))
        print(f"wrote {HERE / f'{role}_steps.csv'} ({len(df)} steps)")


if __name__ == "__main__":
    main()
