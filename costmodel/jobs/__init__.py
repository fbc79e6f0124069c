"""Multi-node jobs: rank logs grouped into jobs, a job-level series per step, stragglers.

See docs/jobs.md. Modules: :mod:`.discover` (ranks and jobs from names and content),
:mod:`.aggregate` (job-level series, pandas engine), :mod:`.stragglers`, :mod:`.fleet` (DuckDB
out-of-core engine, extra ``fleet``), :mod:`.distributed` (Dask, extra ``distributed``),
:mod:`.storage` (s3/gs/az inputs, extra ``cloud``), :mod:`.load` (one side of a comparison),
:mod:`.generate` (realistic rank logs with known truth).
"""
from .discover import JobSpec, group_runs, parse_job_spec, rank_from_name
from .load import Side, finish_job, load_side

__all__ = ["JobSpec", "Side", "finish_job", "group_runs", "load_side", "parse_job_spec", "rank_from_name"]
