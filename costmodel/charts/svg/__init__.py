"""Charts drawn to SVG in Python: the subset of Vega-Lite the report uses, in Vega's look."""
