"""Fleet-size charts: a binned rank x step heatmap per job (Altair, rendered offline like the other families).

Cells are bounded (:data:`costmodel.jobs.report.HEAT_RANK_ROWS` x ``HEAT_STEP_COLS``) whatever the
number of ranks and steps, so the report's HTML stays small at 1,000 ranks.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .render import WIDTH, _alt, reusable


def rank_heatmap(job_id: str, bins: Any, bin_steps: int, stragglers: Any = ()) -> Any:
    """Heatmap of each rank's mean step time over the job median (1.0 = median), ranks down, steps
    across; ranks and steps binned; colour capped at +-20 % so one slow node stands out."""
    from ..jobs.report import (
        heat_matrix,  # lazy: `import costmodel.charts` stays free of the jobs package
    )

    alt = _alt()
    m = heat_matrix(bins, bin_steps)
    m = m.assign(rank=[f"{a}" if a == b else f"{a}-{b}" for a, b in zip(m["rank_lo"], m["rank_hi"], strict=False)],
                 excess_pct=(m["ratio"] - 1.0) * 100.0)
    order = list(dict.fromkeys(m.sort_values("rank_lo")["rank"]))
    flagged = ", ".join(str(s["rank"]) for s in list(stragglers)[:8])
    title = f"job {job_id}: step time per rank vs job median" + (f" (stragglers: {flagged})" if flagged else "")
    return alt.Chart(m).mark_rect().encode(
        x=alt.X("step_lo:Q", bin=False, title="step (bin start)"),
        x2="step_hi:Q",
        y=alt.Y("rank:O", sort=order, title="rank (binned)", axis=alt.Axis(labelOverlap=True)),
        color=alt.Color("excess_pct:Q", title="step time vs median (%)",
                        scale=alt.Scale(scheme="redblue", reverse=True, domain=[-20, 20], clamp=True)),
        tooltip=["rank:N", "step_lo:Q", "step_hi:Q", alt.Tooltip("excess_pct:Q", format=".1f")],
    ).properties(width=WIDTH, height=min(400, 10 * max(1, len(order))), title=title)


@reusable
def job_heatmaps(inputs: Any, max_jobs: int = 4) -> list[Any]:
    """Heatmaps for up to ``max_jobs`` jobs (those with stragglers first)."""
    jobs: list[Mapping[str, Any]] = sorted(getattr(inputs, "jobs", []), key=lambda j: (-len(j["stragglers"]), j["job_id"]))
    out = []
    for j in jobs[:max_jobs]:
        tabs = inputs.job_tables.get(f"{j.get('role', '')}:{j['job_id']}")
        if tabs is None or tabs.bins.empty:
            continue
        out.append(rank_heatmap(j["job_id"], tabs.bins, tabs.bin_steps, j["stragglers"]))
    return out
