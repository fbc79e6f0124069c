"""One module per CLI verb; see :mod:`costmodel.cli` for the contract."""
