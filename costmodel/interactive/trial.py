"""The watched trial in JupyterLab: the same state as ``costmodel watch``, drawn as a chart that is redrawn
from the file as it grows (offline SVG; no widget library needed)."""
from __future__ import annotations

import time
from typing import Any


def trial_figure(watcher: Any, run: Any) -> Any:
    """The chart of a watcher's state over the log so far (``run``): throughput, warm-up call, the band."""
    from ..charts.trial import throughput_points, trial_chart
    from ..warmup import prepare

    s = prepare(run, watcher.ref.metric)
    return trial_chart(throughput_points(s.step, s.w, s.d), watcher.history, watcher.settings.margin,
                       reference_level=watcher.ref.level, warmup_end_step=watcher.warmup_end_step,
                       title=f"trial: {watcher.phase}" + (f" ({watcher.call})" if watcher.call else ""))


def watch_view(log: str, colocated: str, margin: float = 0.05, *, replay_rows: int | None = None,
               poll_s: float = 1.0, idle_timeout_s: float = 60.0, redraw_s: float = 2.0,
               until_decided: bool = False, show: bool = True) -> tuple[Any, dict[str, Any]]:
    """Follow ``log`` (or replay it ``replay_rows`` rows at a time, a finished log) against ``colocated``;
    redraw the chart in place at most every ``redraw_s`` seconds. Returns (watcher, the end event)."""
    from ..charts.render import SVGFigure, to_svg
    from ..ingest import IngestOptions, load
    from ..trial import Settings, Watcher, final_call, reference_from_run
    from ..trial.follow import Follower, parse_parts
    from ..trial.watcher import prefix

    ref = reference_from_run(load(colocated, IngestOptions(role="colocated"))[0])
    w = Watcher(ref, Settings(margin=margin))
    handle = None
    if show:
        from IPython.display import display

        handle = display(SVGFigure("<svg xmlns='http://www.w3.org/2000/svg'/>", "trial"), display_id=True)
    last_draw = 0.0
    run = None

    def draw(force: bool = False) -> None:
        nonlocal last_draw
        if handle is None or run is None or (not force and time.monotonic() - last_draw < redraw_s):
            return
        handle.update(SVGFigure(to_svg(trial_figure(w, run)), "trial"))
        last_draw = time.monotonic()

    f = Follower(log, poll_s=poll_s, idle_timeout_s=idle_timeout_s, follow=replay_rows is None)
    for _up in f.updates():
        p = parse_parts(f.parts, f.name, IngestOptions(role="remote"), ended=f.ended)
        if p.run is None:
            continue
        if replay_rows is not None:
            if not f.ended:
                continue
            n = len(p.run.table)
            for k in [*range(replay_rows, n, replay_rows), n]:
                run = prefix(p.run, k)
                w.look(run)
                if until_decided and w.call is not None:
                    break
            break
        run = p.run
        w.look(run)
        draw()
        if until_decided and w.call is not None:
            break
    draw(force=True)
    end = final_call(w, run, final_analysis=w.call is None) if run is not None else {"call": "undecided"}
    return w, end
