"""Typed contracts between costmodel's stages: the input files and the results, as pydantic models,
and the JSON Schema published from them (``docs/schema/``; ``costmodel schema --write docs/schema --force`` rewrites it)."""
from __future__ import annotations
