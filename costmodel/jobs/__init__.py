"""Multi-node jobs: rank logs grouped into jobs, a job-level series per step, stragglers.

See docs/jobs.md. Modules: :mod:`.discover` (ranks and jobs from names and content),
:mod:`.aggregate` (job-level series, pandas engine), :mod:`.stragglers`, :mod:`.fleet` (DuckDB
out-of-core engine, extra ``fleet``; its pyarrow + numpy fast path in :mod:`.arrowscan`), :mod:`.distributed` (Dask,
extra ``distributed``),
:mod:`.storage` (s3/gs/az inputs, extra ``cloud``), :mod:`.load` (one side of a comparison),
:mod:`.generate` (realistic rank logs with known truth).
"""
from .discover import JobSpec as JobSpec
from .discover import group_runs as group_runs
from .discover import parse_job_spec as parse_job_spec
from .discover import rank_from_name as rank_from_name
from .load import Side as Side
from .load import finish_job as finish_job
from .load import load_side as load_side
