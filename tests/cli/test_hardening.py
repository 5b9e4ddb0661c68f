"""Regression tests for every bad input of the hardening issue: one-line errors, exit code 2, no harm done."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch

from engine import MatchState, Position
from nets.evaluator import load_evaluator
from nets.model import new_evaluator
from nets.volnet import DEFAULT_VOLNET
from nets.weights import decode_weights
from tests.cli.helpers import assert_clean_error, run_cli
from training.config import CONTINUE_LEARNING_RATE
from weights import DEFAULT_WEIGHTS, SHIPPED_DIR, VOLATILITY_WEIGHTS

START = "4HPwATDgc/ABMA"
REPO = Path(__file__).resolve().parents[2]


def _nan_weights(tmp_path: Path) -> Path:
    """A tiny weights file with one NaN weight, patched into the bytes as a damaged file would have it."""
    data = bytearray(new_evaluator(hidden=(8,)).to_bytes())
    n = int.from_bytes(data[11:19], "little")
    entry = json.loads(data[19 : 19 + n])["tensors"]["contact.body.0.weight"]
    at = 19 + n + entry["offset"] + 4 * (3 * entry["shape"][1] + 7)
    data[at : at + 4] = np.array([np.nan], "<f4").tobytes()
    path = tmp_path / "nan.jgw"
    path.write_bytes(bytes(data))
    return path


def _match(**fields: object) -> str:
    """A match ID gnubg's key can hold but no game reaches."""
    return MatchState(**fields).id  # type: ignore[arg-type]


BAD_COMMANDS: list[tuple[list[str], str]] = [
    (["train", "--games", "10"], "--out"),
    (["train", "--out", "r.jgw", "--parallel", "0"], "--parallel"),
    (["train", "--out", "r.jgw", "--games", "0"], "--games"),
    (["train", "--out", "r.jgw", "--games", "-5"], "--games"),
    (["train", "--out", "r.jgw", "--hidden", "0"], "--hidden"),
    (["train", "--out", "r.jgw", "--hidden", "128,x"], "--hidden"),
    (["train", "--out", "r.jgw", "--exploration", "2"], "--exploration"),
    (["train", "--out", "r.jgw", "--lr", "nan"], "--lr"),
    (["train", "--out", "r.jgw", "--device", "bogus"], "--device"),
    (["train", "--out", "r.jgw", "--checkpoint-every", "0"], "--checkpoint-every"),
    (["tournament", "--a", "pubeval", "--b", "pubeval", "--games", "0"], "--games"),
    (["tournament", "--a", "pubeval", "--b", "pubeval", "--games", "-5"], "--games"),
    (["tournament", "--a", "pubeval", "--b", "pubeval", "--games", "7"], "--games"),
    (["tournament", "--a", "pubeval", "--b", "pubeval", "--block-pairs", "0"], "--block-pairs"),
    (["tournament", "--a", "pubeval", "--b", "net:nosuchfile.jgw@0", "--games", "2"], "nosuchfile.jgw"),
    (["tournament", "--a", "pubeval", "--b", "chess@1"], "chess@1"),
    (["tournament", "--a", "net@0", "--a-cube", "janowski:2", "--b", "pubeval"], "janowski:2"),
    (["tournament", "--a", "pubeval", "--b", "pubeval", "--save", "/proc/nope/g.jsonl"], "--save"),
    (["tournament", "--a", "pubeval", "--b", "pubeval", "--ray", "127.0.0.1:1"], "--ray"),
    (["bench", "movegen", "--games", "0"], "--games"),
    (["bench", "eval", "--repeats", "-1"], "--repeats"),
    (["bench", "cube-bearoff", "--sample", "0"], "--sample"),
    (["bench", "nothing"], "nothing"),
    (["eval", START, "--plies", "7"], "--plies"),
    (["eval", START, "--weights", "missing.jgw"], "missing.jgw"),
    (["hint", START], "--dice"),
    (["hint", START, "--dice", "0", "3"], "--dice"),
    (["cube", "--W", "1.4", "--L", "1", "--grid", "100000000"], "--grid"),
    (["cube", "--W", "inf", "--L", "1"], "--W"),
    (["nocommand"], "nocommand"),
    (["eval"], "POSITIONID"),
    (["eval", "AAAAAAAAAAAAAA"], "no checkers"),
    (["hint", "AAAAAAAAAAAAAA", "--dice", "3", "1"], "no checkers"),
    (["eval", f"{START}:{_match(match_length=5, score=(5, 2))}"], "score 5-2"),
    (["eval", f"{START}:{_match(match_length=5, score=(1, 7))}"], "score 1-7"),
    (["eval", f"{START}:{_match(cube=32768)}"], "cube 32768"),
    (["eval", f"{START}:{_match(doubled=True, dice=(3, 1))}"], "dice (3, 1)"),
    (["eval", f"{START}:{_match(match_length=7, score=(2, 3), crawford=True)}"], "crawford"),
    (["eval", f"{START}:{_match(match_length=7, cube=16, cube_owner=0)}"], "cube 16"),
    (["eval", f"{START}:{_match(match_length=7, cube=2)}"], "centred cube 2"),
    (["hint", f"{START}:{_match(match_length=3, score=(3, 0))}", "--dice", "3", "1"], "score 3-0"),
    (["show", f"{START}:{_match(cube=32768)}"], "cube 32768"),
    (["train", "--out", str(SHIPPED_DIR / "sub" / "r.jgw"), "--games", "2"], "shipped weights folder"),
    (["eval", f"{START}:{_match(game_state=2)}"], "the game is over"),
    (["hint", f"{START}:{_match(resigned=1)}", "--dice", "3", "1"], "a resignation is pending"),
    (["rollout", "t20DAGDbtgMAYA", "--trials", "2"], "neither side can ever move"),
    (["ubgi", "--met", "bogus"], "'bogus'"),  # refused before the handshake, not "sorry" to every cube question
    (["weights", "info", str(DEFAULT_WEIGHTS), "--write"], "unrecognized arguments: --write"),  # was ignored
    (["weights", "info", str(DEFAULT_WEIGHTS), "--games", "10"], "unrecognized arguments: --games"),  # was ignored
    (["weights", "info", str(DEFAULT_WEIGHTS), "--shipped", str(DEFAULT_WEIGHTS)], "unrecognized arguments: --shipped"),
    # an option of the other action was ignored: a fit started from the shipped net, not --weights
    (["supervised", "fit", "--data", "d", "--out", "c.jgw", "--weights", str(DEFAULT_WEIGHTS)], "unrecognized"),
    (["supervised", "fit", "--data", "d", "--out", "c.jgw", "--shards", "9"], "unrecognized arguments: --shards"),
    (["supervised", "generate", "--data", "d", "--out", "c.jgw"], "unrecognized arguments: --out"),
    (["eval", "board:You:gnubg:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0"], "is a FIBS board"),
    (["bench", "arena", "--games", "3"], "give an even number"),  # it played 4
    (["weights", "promote", str(DEFAULT_WEIGHTS), "--to", "x.jgw", "--write"], "not both"),
    # options a rollout would not read were ignored
    (["rollout", START, "--trials", "36", "--beavers"], "--beavers needs a cube in play"),
    (["rollout", START, "--trials", "36", "--filter-plies", "2"], "--filter-plies needs --plays"),
    (["rollout", START, "--trials", "36", "--late-plies", "1"], "--late-plies needs --late-after"),
    (["rollout", START, "--trials", "36", "--cube-plies", "1"], "--cube-plies needs a cube"),
    (["rollout", START, "--trials", "36", "--truncate-plies", "1"], "--truncate-plies needs --truncate"),
    # an empty path read as '.'; an empty table name as the default; a numpy repr; a text file as a pickle
    (["train", "--out", "", "--games", "2"], "argument --out: '' is an empty path"),
    (["met", "--met", ""], "unknown match equity table ''"),
    (
        ["cube", "--W", "1.2", "--L", "1.1", "--alpha", "0.1", "--at", "nan"],
        "--at value 'nan': P must be finite, got nan",
    ),
    (["bench", "moves", "--data", str(REPO / "README.md")], "is not an .npz archive"),
    # --to wrote over the shipped nets without the rule or the archive; and made missing folders anywhere
    (["weights", "promote", str(DEFAULT_WEIGHTS), "--to", str(SHIPPED_DIR / "volatility.jgw")], "shipped weights"),
    (["weights", "promote", str(DEFAULT_WEIGHTS), "--to", "/nonexistent-jg/x.jgw"], "does not exist"),
    (["weights", "promote", str(DEFAULT_WEIGHTS), "--to", str(DEFAULT_WEIGHTS)], "the candidate itself"),
]


@pytest.mark.parametrize("as_json", [False, True])
@pytest.mark.parametrize(("argv", "needle"), BAD_COMMANDS)
def test_bad_input_is_one_clean_line(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
    needle: str,
    as_json: bool,
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(capsys, *argv, *(["--json"] if as_json else []))
    assert_clean_error(code, out, err, needle, as_json)
    assert not (tmp_path / "r.jgw").exists()  # nothing half-written
    assert not (SHIPPED_DIR / "sub").exists()


def test_cuda_device_without_cuda_is_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA, so --device cuda is valid here")
    code, out, err = run_cli(capsys, "train", "--out", str(tmp_path / "r.jgw"), "--device", "cuda", "--json")
    assert_clean_error(code, out, err, "no CUDA device", as_json=True)


def test_weights_with_nan_are_refused_everywhere(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bad = str(_nan_weights(tmp_path))
    for argv in (
        ["hint", START, "--dice", "3", "1", "--weights", bad],
        ["tournament", "--a", f"net:{bad}@0", "--b", "pubeval"],
    ):
        code, out, err = run_cli(capsys, *argv, "--json")
        assert_clean_error(code, out, err, "NaN or infinite", as_json=True)


@pytest.mark.parametrize(
    "out",
    [
        lambda tmp: str(DEFAULT_WEIGHTS),
        lambda tmp: str(DEFAULT_WEIGHTS.parent / "new.jgw"),
        lambda tmp: str(tmp),  # a folder
        lambda tmp: "/proc/no/such/dir/r.jgw",  # cannot be created, even by root
    ],
)
def test_train_refuses_the_shipped_folder_and_unwritable_outputs(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, out: object
) -> None:
    before = hashlib.sha256(DEFAULT_WEIGHTS.read_bytes()).hexdigest()
    target = out(tmp_path)  # type: ignore[operator]
    code, stdout, err = run_cli(capsys, "train", "--out", target, "--games", "4", "--parallel", "2", "--json")
    assert_clean_error(code, stdout, err, "--out", as_json=True)
    assert hashlib.sha256(DEFAULT_WEIGHTS.read_bytes()).hexdigest() == before
    assert sorted(
        p.name for p in DEFAULT_WEIGHTS.parent.iterdir() if p.suffix != ".py" and p.name != "__pycache__"
    ) == ["default.jgw", "volatility.jgw"]


def _train(capsys: pytest.CaptureFixture[str], out: Path, *extra: str) -> tuple[int, dict, str]:
    code, stdout, err = run_cli(
        capsys,
        "train",
        "--out",
        str(out),
        "--parallel",
        "8",
        "--hidden",
        "8",
        "--no-bearoff",
        "--checkpoint-every",
        "8",
        "--threads",
        "1",
        *extra,
        "--json",
    )
    return code, (json.loads(stdout) if code == 0 else {}), err


@pytest.mark.slow
def test_games_is_the_run_total_and_resuming_says_so(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "run.jgw"
    code, js, err = _train(capsys, out, "--games", "12")
    assert code == 0 and js["games"] >= 12 and err.splitlines()[0].startswith(f"starting {out}")
    first = out.read_bytes()
    code, js2, err = _train(capsys, out, "--games", "12")  # the same command again: nothing left to do
    assert code == 0 and js2["games"] == js["games"] and out.read_bytes() == first
    assert err.splitlines()[0] == f"resuming {out} at {js['games']:,} games (target 12)"
    code, js3, err = _train(capsys, out, "--games", "30", "--lr", "0.0005")
    assert code == 0 and js3["games"] >= 30
    assert "resuming" in err and "learning_rate 0.001 -> 0.0005" in err


@pytest.mark.slow
def test_changed_architecture_or_seed_on_resume_is_an_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "run.jgw"
    assert _train(capsys, out, "--games", "8")[0] == 0
    saved = out.read_bytes()
    for extra, needle in ((["--hidden", "16"], "--hidden 16"), (["--seed", "9"], "--seed 9")):
        code, stdout, err = run_cli(capsys, "train", "--out", str(out), "--games", "16", *extra, "--json")
        assert_clean_error(code, stdout, err, needle, as_json=True)
    code, stdout, err = run_cli(capsys, "train", "--out", str(out), "--games", "16", "--hidden", "8", "--parallel", "4")
    assert_clean_error(code, stdout, err, "--parallel 4", as_json=False)
    assert out.read_bytes() == saved


def test_a_run_can_start_from_weights_and_keeps_them(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    start = DEFAULT_WEIGHTS  # a net that plays sensible, short games, unlike a random one that cannot learn at 1e-9
    out = tmp_path / "run.jgw"
    base = ["train", "--out", str(out), "--parallel", "8", "--no-bearoff", "--threads", "1"]
    code, stdout, err = run_cli(capsys, *base, "--games", "8", "--start", str(start), "--lr", "1e-9", "--json")
    assert code == 0 and err.splitlines()[0].startswith(f"starting {out}: from {start}")
    began, trained = _tensors(start), _tensors(out)
    for weight in ("contact.body.0.weight", "race.body.4.bias"):
        assert trained[weight].shape == began[weight].shape
        assert np.abs(trained[weight] - began[weight]).max() < 1e-5  # a learning rate of 1e-9 barely moves them
    assert {k for k in trained if not k.startswith("train.")} == set(began)  # the start's nets and layers
    saved = out.read_bytes()
    other = tmp_path / "other.jgw"
    new_evaluator(hidden=(8,), seed=4).save(other)
    for extra, needle in (
        (["--start", str(other)], "--start"),  # a run keeps its initial nets
        (["--start", str(start), "--hidden", "8"], "--hidden"),
    ):
        code, stdout, err = run_cli(capsys, *base, "--games", "16", *extra, "--json")
        assert_clean_error(code, stdout, err, needle, as_json=True)
    assert out.read_bytes() == saved
    code, stdout, err = run_cli(capsys, *base, "--games", "16", "--start", str(start), "--lr", "1e-9", "--json")
    assert code == 0 and err.splitlines()[0].startswith(f"resuming {out} at ")  # the same start: it resumes
    fresh = tmp_path / "fresh.jgw"
    missing = tmp_path / "missing.jgw"
    code, stdout, err = run_cli(capsys, "train", "--out", str(fresh), "--start", str(missing), "--json")
    assert_clean_error(code, stdout, err, str(missing), as_json=True)
    assert not fresh.exists()


def test_stray_temporary_files_are_cleaned_up(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "run.jgw"
    stray = tmp_path / "run.jgw.x1y2z3.tmp"
    stray.write_bytes(b"half a checkpoint")
    other = tmp_path / "other.jgw.abc.tmp"
    other.write_bytes(b"not ours")
    assert _train(capsys, out, "--games", "8")[0] == 0
    assert not stray.exists() and other.exists()


def _tensors(path: Path) -> dict[str, np.ndarray]:
    return decode_weights(path.read_bytes())[1]


# Cubeful: the dead cube doubles at any edge, so the first cube turn after the resume surely has doubles to get right.
CUBEFUL = ["--cube", "dead,jump:0.10:linear", "--parallel", "32"]


@pytest.mark.slow  # two training runs and a killed one: about a minute each
@pytest.mark.parametrize("cube", [[], CUBEFUL], ids=["cubeless", "cubeful"])
def test_resume_after_kill_9_is_bit_for_bit_equal(tmp_path: Path, cube: list[str]) -> None:
    """A run killed at a random moment and started again ends exactly where an uninterrupted one does.

    Cubeful, the games in flight keep their cubes and the cube counters carry on: the logs agree too.
    """
    common = [
        "--games",
        "160",
        "--parallel",
        "16",
        "--hidden",
        "16",
        "--no-bearoff",
        "--checkpoint-every",
        "16",
        "--threads",
        "1",
        "--seed",
        "5",
        *cube,
        "--json",
    ]
    whole, cut = tmp_path / "whole.jgw", tmp_path / "cut.jgw"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    cmd = [sys.executable, "-c", "import sys; from cli.main import main; sys.exit(main(sys.argv[1:]))", "train"]
    logs = {path: ["--log", str(path.with_suffix(".log"))] for path in (whole, cut)}
    done = subprocess.run(
        [*cmd, "--out", str(whole), *logs[whole], *common], check=True, capture_output=True, env=env, timeout=240
    )
    proc = subprocess.Popen(
        [*cmd, "--out", str(cut), *logs[cut], *common], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    )
    deadline = time.time() + 240
    while time.time() < deadline and proc.poll() is None:
        if cut.exists():
            games = decode_weights(cut.read_bytes())[0]["run"]["state"]["games"]
            if games >= 48:
                break
        time.sleep(0.02)
    assert proc.poll() is None, "the run ended before it could be killed; give it more games"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    killed_at = decode_weights(cut.read_bytes())[0]["run"]["state"]["games"]
    assert 48 <= killed_at < 160
    resumed = subprocess.run(
        [*cmd, "--out", str(cut), *logs[cut], *common], check=True, capture_output=True, env=env, timeout=240
    )
    assert f"resuming {cut} at {killed_at:,} games" in resumed.stderr.decode()
    a, b = _tensors(whole), _tensors(cut)
    assert set(a) == set(b) and any(k.startswith("train.cube.") for k in a) == bool(cube)
    for key in a:
        assert np.array_equal(a[key], b[key]), key
    whole_result, cut_result = json.loads(done.stdout), json.loads(resumed.stdout)
    assert whole_result.get("cube") == cut_result.get("cube") and ("cube" in whole_result) == bool(cube)

    def records(path: Path) -> list[dict]:
        lines = [json.loads(line) for line in path.with_suffix(".log").read_text().splitlines()]
        return [{k: v for k, v in r.items() if k != "seconds"} for r in lines]

    whole_log, cut_log = records(whole), records(cut)
    # a record is logged after its checkpoint is saved: a kill between the two loses that one record
    assert all(r in whole_log for r in cut_log) and len(cut_log) >= len(whole_log) - 1
    assert ("cube" in whole_log[0]) == bool(cube)
    assert not list(tmp_path.glob("*.tmp"))


def test_finished_game_is_evaluated_as_finished_and_has_no_moves(capsys: pytest.CaptureFixture[str]) -> None:
    board = np.zeros(26, np.int8)
    board[19] = -3  # the side on roll is off; the opponent still has three checkers in its home board
    finished = Position(board)
    code, out, _ = run_cli(capsys, "eval", finished.id, "--json")
    js = json.loads(out)
    assert code == 0 and js["probabilities"]["win"] == 1.0 and js["cubeless_equity"] == 1.0
    lost = finished.flip()
    code, out, _ = run_cli(capsys, "eval", lost.id, "--json", "--plies", "2")
    assert code == 0 and json.loads(out)["probabilities"]["win"] == 0.0
    code, out, err = run_cli(capsys, "hint", finished.id, "--dice", "3", "1", "--json")
    assert_clean_error(code, out, err, "game is over", as_json=True)


def test_promote_is_the_only_way_into_weights(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    run_file = tmp_path / "run.jgw"
    assert _train(capsys, run_file, "--games", "8")[0] == 0
    target = tmp_path / "shipped" / "default.jgw"
    target.parent.mkdir()  # --to makes no folder (it made missing folders anywhere)
    code, out, _ = run_cli(capsys, "weights", "promote", str(run_file), "--to", str(target), "--json")
    assert code == 0 and json.loads(out)["promoted_to"] == str(target)
    header, tensors = decode_weights(target.read_bytes())
    assert not any(k.startswith("train.") for k in tensors)
    assert "rng" not in header["run"] and header["run"]["state"]["games"] >= 8
    code, out, _ = run_cli(capsys, "weights", "info", str(target), "--json")
    assert code == 0 and json.loads(out)["run_state_saved"] is False


def test_wheel_ships_the_default_weights(tmp_path: Path) -> None:
    """A built wheel carries the shipped nets (default and volatility) beside the code, and no results."""
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
            str(REPO),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (wheel,) = tmp_path.glob("jumpgammon-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "weights/default.jgw" in names and "weights/__init__.py" in names
    assert zipfile.ZipFile(wheel).read("weights/default.jgw") == DEFAULT_WEIGHTS.read_bytes()
    assert zipfile.ZipFile(wheel).read("weights/volatility.jgw") == VOLATILITY_WEIGHTS.read_bytes()
    assert DEFAULT_VOLNET == VOLATILITY_WEIGHTS  # jump-net reads the packaged file, not one in a checkout
    assert not [n for n in names if n.startswith("results/") or n.endswith((".ledger.jsonl", ".npz", ".png"))]


@pytest.mark.parametrize("as_json", [False, True])
def test_experiments_refuse_a_bad_net_and_another_nets_ledger(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, as_json: bool
) -> None:
    """--weights must be a net; a ledger played by another net is named with both digests, exit 2."""
    flags = ["--json"] if as_json else []
    not_a_net = tmp_path / "notes.txt"
    not_a_net.write_text("hello")
    code, stdout, err = run_cli(
        capsys, "experiment", "ladder", "--report", "--out", str(tmp_path), "--weights", str(not_a_net), *flags
    )
    assert_clean_error(code, stdout, err, "notes.txt", as_json=as_json)
    other = tmp_path / "other.jgw"
    data = bytearray(DEFAULT_WEIGHTS.read_bytes())
    data[-1] ^= 1  # the shipped net but for one bit: another net
    other.write_bytes(bytes(data))
    (tmp_path / "ladder").mkdir()
    committed = Path(__file__).resolve().parents[2] / "results" / "experiments" / "ladder"
    for ledger_file in committed.glob("*.ledger.jsonl"):
        (tmp_path / "ladder" / ledger_file.name).write_bytes(ledger_file.read_bytes())
    code, stdout, err = run_cli(
        capsys, "experiment", "ladder", "--report", "--out", str(tmp_path), "--weights", str(other), *flags
    )
    assert_clean_error(code, stdout, err, "other nets", as_json=as_json)


@pytest.mark.parametrize("json_flag", [[], ["--json"]])
def test_a_reader_that_leaves_ends_the_command_quietly(json_flag: list[str]) -> None:
    """``jumpgammon ... | head``: once stdout's reader has gone, the command stops with 141 and says nothing."""
    command = [sys.executable, "-m", "cli.main", "show", "4HPwATDgc/ABMA", *json_flag]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=Path(__file__).parents[2])
    assert proc.stdout is not None
    proc.stdout.close()  # before the command has imported anything, so its first write finds no reader
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 141 and err == b""


def test_unusable_files_are_named_before_any_work(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """An output that is a folder, an input that is not text: one line naming the option, before any trial."""
    folder, garbage = tmp_path / "folder", tmp_path / "garbage.bin"
    folder.mkdir()
    garbage.write_bytes(b"\xfe\xff\x00garbage")
    cases = [
        (["rollout", START, "--trials", "2", "--save", str(folder)], "--save"),
        # a file where the folder must be: refused before the trials, not after them (it ended in [Errno 17])
        (["rollout", START, "--trials", "2", "--save", str(garbage / "x.npz")], "is a file, not a folder"),
        (["rollout", START, "--trials", "2", "--save", str(tmp_path / "r.json")], "ending in .npz"),
        (["train", "--out", str(tmp_path / "r.jgw"), "--games", "2", "--log", str(folder)], "--log"),
        (["rollout", "--file", str(garbage), "--trials", "2"], "is not a text file"),
        (["tournament", "--a", "pubeval", "--b", "pubeval", "--games", "2", "--checkpoint", str(garbage)], "not text"),
    ]
    for argv, needle in cases:
        code, out, err = run_cli(capsys, *argv)
        assert_clean_error(code, out, err, needle, as_json=False)
    assert not (tmp_path / "r.jgw").exists()


def test_a_run_from_trained_weights_starts_with_a_small_learning_rate(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Adam's first steps move every weight by about the rate: 1e-3 from trained nets damaged them (docs/net-card)."""
    out = tmp_path / "run.jgw"
    argv = ["train", "--out", str(out), "--parallel", "2", "--no-bearoff", "--threads", "1", "--games", "2"]
    code, _, _ = run_cli(capsys, *argv, "--start", str(DEFAULT_WEIGHTS), "--json")
    assert code == 0
    assert load_evaluator(out, bearoff=False).header["run"]["config"]["learning_rate"] == CONTINUE_LEARNING_RATE
    code, _, err = run_cli(capsys, *argv[:-1], "4", "--json")  # resumed without --start: it keeps its own rate
    assert code == 0 and "changed" not in err
    assert load_evaluator(out, bearoff=False).header["run"]["config"]["learning_rate"] == CONTINUE_LEARNING_RATE
    fresh = tmp_path / "fresh.jgw"
    code, _, _ = run_cli(capsys, "train", "--out", str(fresh), "--parallel", "2", "--games", "2", "--hidden", "8")
    assert code == 0 and load_evaluator(fresh, bearoff=False).header["run"]["config"]["learning_rate"] == 1e-3


def test_a_refused_run_leaves_no_folders_behind(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """``train --out new/deep/run.jgw`` makes its folders only once the run's options are known good."""
    out = tmp_path / "new" / "deep" / "run.jgw"
    argv = ["train", "--out", str(out), "--games", "2", "--start", str(DEFAULT_WEIGHTS), "--hidden", "8"]
    code, stdout, err = run_cli(capsys, *argv)
    assert_clean_error(code, stdout, err, "--hidden and --start", as_json=False)
    assert not (tmp_path / "new").exists()
    code, _, _ = run_cli(capsys, "train", "--out", str(out), "--parallel", "2", "--games", "2", "--hidden", "8")
    assert code == 0 and out.is_file()
