"""training.volnet: fitting a volatility net on synthetic targets, the game-grouped split and the frozen copy."""

from __future__ import annotations

import numpy as np
import torch

from nets.volnet import PHASE_NETS
from training.volnet import VolTrainSettings, fit_phase, train_volatility_net

INPUTS = 12


def _synthetic(rows: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Inputs, a smooth positive target of two of them (what a net of one hidden layer can learn), game numbers."""
    rng = np.random.default_rng(seed)
    x = rng.random((rows, INPUTS), dtype=np.float32)
    y = (0.02 + 0.1 * x[:, 0] * x[:, 1] + 0.03 * x[:, 2]).astype(np.float32)
    return x, y, np.repeat(np.arange(rows // 10), 10)  # ten positions a game


SETTINGS = VolTrainSettings(hidden=(16,), epochs=30, batch_size=64, learning_rate=1e-2, validation_share=0.2, seed=3)


def test_the_fit_beats_the_constant_it_starts_from_on_held_out_games() -> None:
    x, y, games = _synthetic(2000, 1)
    net, record = fit_phase(x, y, games, SETTINGS)
    history = record["history"]
    best = min(h["validation_rmse"] for h in history)
    # the last bias starts at the training targets' mean: epoch 0 would be about their standard deviation
    assert best < 0.5 * float(y.std()) and record["best_epoch"] == 1 + [h["validation_rmse"] for h in history].index(
        best
    )
    assert record["validation_rows"] == 400  # 40 of the 200 games, whole
    with torch.inference_mode():
        restored = float(torch.nn.functional.mse_loss(net(torch.from_numpy(x)), torch.from_numpy(y)).sqrt())
    assert restored < 0.5 * float(y.std())  # the best epoch's weights are the ones kept


def test_a_games_positions_stay_on_one_side_of_the_split() -> None:
    x, y, games = _synthetic(500, 2)
    _, record = fit_phase(x, y, games, VolTrainSettings(hidden=(4,), epochs=1, validation_share=0.3, seed=5))
    assert record["validation_rows"] % 10 == 0 and record["validation_rows"] == 150  # 15 whole games of 50


def test_the_frozen_net_gives_the_torch_nets_volatility() -> None:
    data = {phase: _synthetic(600, seed) for seed, phase in enumerate(PHASE_NETS)}
    settings = VolTrainSettings(hidden=(8,), epochs=3, seed=7)
    frozen, records = train_volatility_net(
        {p: d[0] for p, d in data.items()},
        {p: d[1] for p, d in data.items()},
        {p: d[2] for p, d in data.items()},
        settings,
    )
    for phase, (x, y, games) in data.items():
        twin, _ = fit_phase(x, y, games, settings)  # the same seed: the same net
        with torch.inference_mode():
            expected = twin(torch.from_numpy(x)).numpy()
        np.testing.assert_allclose(frozen.phase_volatility(x, phase), expected, rtol=1e-5, atol=1e-6)
        assert records[phase]["rows"] == 600
    assert frozen.run["settings"]["hidden"] == [8]
