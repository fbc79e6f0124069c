"""Where the tests find the repository, the bundled example, the real fixtures and their artefacts."""
from __future__ import annotations

import os
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
REPO = TESTS.parent
EXAMPLES = REPO / "costmodel" / "data" / "examples"
#: Real benchmark outputs written by other people (../shared/fixtures/real), never copied into the repo.
REAL_DIR = Path(os.environ.get("COSTMODEL_REAL_FIXTURES", REPO.parent / "shared" / "fixtures" / "real"))
#: Real SkyPilot catalog rows (../shared/fixtures/prices/skypilot_catalog, SOURCES.md there), never copied.
SKYPILOT_DIR = Path(os.environ.get("COSTMODEL_SKYPILOT_FIXTURES",
                                   REAL_DIR.parent / "prices" / "skypilot_catalog"))
#: Public excerpts committed with the tests (see SOURCES.md in each folder).
TEST_DATA = TESTS / "data"
ARTIFACTS = TESTS / "artifacts"
