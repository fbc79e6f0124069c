"""Helpers shared by the tests: ``from support.x import ...`` (``tests/`` is on pytest's ``pythonpath``).

Tests never import from another test file; what several need lives here (data and helper functions)
or in ``tests/conftest.py`` (fixtures, e.g. ``cli``).
"""
