"""The jump-model paper's self-play experiments, reproduced with this engine and taken further.

Each experiment is one command with a seed (``jumpgammon experiment NAME``), resumable (every
tournament keeps a ledger under the output folder), and writes ``result.json`` and a PNG plot
there. :mod:`benchmarks.experiments.sweep` plays the points of a cube-strategy sweep to a
standard-error target; :mod:`benchmarks.experiments.fit` locates a sweep's optimum with a
confidence interval; :mod:`benchmarks.experiments.cube_sweeps` defines the Janowski and
constant-volatility sweeps; :mod:`benchmarks.experiments.remote` measures remote jump
volatility from cubeless self-play.
"""
