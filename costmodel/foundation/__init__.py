"""The foundation every other room stands on: no costmodel import reaches above it.

One module per job, imported directly (``from costmodel.foundation.errors import ScenarioError``; this
package deliberately has no face, so that importing one helper does not import pandas or pyarrow):

- ``errors``: the one error hierarchy (``CostmodelError`` and its kinds, with their exit codes);
- ``schema``: the Timeline, the one tidy table every reader produces (columns with SI units, ``Run``,
  ``Rejection``); ``timeline``: Timeline Parquet files (several runs, metadata in the Parquet schema);
- ``units``: the one table of units; ``units_fmt``: figures with units for people;
- ``util``: atomic writes, hashes, strict JSON, optional dependencies named by their extra;
- ``safeio``: the one input-file helper and OS errors as one line; ``safeyaml``: the one bounded YAML loader;
- ``signals``: SIGINT/SIGTERM/SIGHUP as one cleanup path; ``resources``: where the packaged files are;
- ``equivalence``: the one vocabulary of "is the remote run as fast" (equivalent, different, ...).
"""
