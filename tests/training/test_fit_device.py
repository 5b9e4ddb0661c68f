"""``supervised fit --device``: where the fit runs is a setting that is honoured and recorded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from cli.main import main
from nets.evaluator import load_evaluator
from nets.model import PhaseNet
from training.supervised.data import GenerateConfig, generate
from training.supervised.fit import Device, FitConfig, fit

TINY = dict(shard_games=3, parallel_games=2, keep=0.3, keep_race=0.6, plies=0)


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("dev") / "data"
    generate(GenerateConfig(data=folder, shards=1, **TINY), progress=False)  # type: ignore[arg-type]
    return folder


def test_a_cpu_fit_runs_every_batch_on_the_cpu_and_records_it(
    tmp_path: Path, data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: set[str] = set()
    forward = PhaseNet.forward

    def spy(self: PhaseNet, x: torch.Tensor) -> torch.Tensor:
        seen.add(x.device.type)
        seen.add(self.device.type)
        return forward(self, x)

    monkeypatch.setattr(PhaseNet, "forward", spy)
    out = tmp_path / "cpu.jgw"
    fit(FitConfig(data=(data,), out=out, nets=("race",), max_epochs=1, validation=0.5, device=Device.CPU), False)
    assert seen == {"cpu"}
    assert load_evaluator(out, bearoff=False).header["run"]["config"]["device"] == "cpu"


def test_cuda_without_a_gpu_is_one_line_and_exit_2(
    tmp_path: Path, data: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    out = tmp_path / "gpu.jgw"
    argv = ["supervised", "fit", "--data", str(data), "--out", str(out), "--device", "cuda", "--epochs", "1"]
    assert main([*argv, "--json"]) == 2
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 1 and "--device cuda" in json.loads(lines[0])["error"]
    assert not out.exists()
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--device cuda" in err[0]
