"""The trial run: plan how long it must run, watch it as it runs, call warm-up and equivalence early.

Public API::

    from costmodel import trial
    ref = trial.reference_from_run(colocated_run)          # the co-located run, analysed once
    w = trial.Watcher(ref, trial.Settings(margin=0.05))
    events = w.look(remote_run_so_far)                      # state changes since the last look
    trial.final_call(w, remote_run)                         # the call at the end of input
    trial.plan_trial(ref, margin=0.05)                      # steps and minutes a trial needs
"""
from .boundary import mixture_factor as mixture_factor
from .boundary import one_sided_factor as one_sided_factor
from .levels import WindowLevel as WindowLevel
from .levels import window_level as window_level
from .reference import Reference as Reference
from .reference import reference_from_run as reference_from_run
from .replay import Replay as Replay
from .replay import replay as replay
from .watcher import Settings as Settings
from .watcher import Watcher as Watcher
from .watcher import call_of as call_of
from .watcher import final_call as final_call
