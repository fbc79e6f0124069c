"""Today's date, for every figure that depends on it (the age of a price row, an ADR's date).

``COSTMODEL_TODAY=YYYY-MM-DD`` fixes it, so that a record rendered on another day gives the same bytes
(CI jobs that compare records, the golden snapshot in ``tests/golden/``); unset, it is the real date (UTC).
"""
from __future__ import annotations

import datetime as dt
import os

from .errors import CostmodelError

#: The environment variable that fixes today's date (ISO ``YYYY-MM-DD``).
TODAY_ENV = "COSTMODEL_TODAY"


def today() -> dt.date:
    """The date figures are computed for: ``$COSTMODEL_TODAY`` when set, else today's UTC date.

    Raises CostmodelError (exit 2) when the variable is set but is not a date ``YYYY-MM-DD``.
    """
    text = os.environ.get(TODAY_ENV, "").strip()
    if text:
        try:
            return dt.date.fromisoformat(text)
        except ValueError:
            raise CostmodelError(f"{TODAY_ENV}={text!r} is not a date; expected YYYY-MM-DD") from None
    return dt.datetime.now(dt.timezone.utc).date()
