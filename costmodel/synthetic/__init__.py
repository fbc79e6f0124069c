"""Generators with known truth, seeded and deterministic (tests, benchmarks, docs, the bundled example).

- ``shapes``: textbook warm-up shapes on a per-step throughput series (``generate``) and the bundled
  reference example (``reference_case``);
- ``training_logs``: training logs shaped like real ones, simulated step by step in seconds
  (``generate_realistic``, ``realistic_suite``: checkpoints, epoch stalls, drift, overshoot, two-tier caches);
- ``rank_logs``: one synchronous multi-rank job's rank logs (``generate_job``: stragglers, early stops).

Import the module you need (``from costmodel.synthetic.shapes import generate``).
"""
