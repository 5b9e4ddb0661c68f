"""Arguments and argparse types shared by the subcommands; every bad value names its option."""

from __future__ import annotations

import argparse
import math
import tempfile
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from cube.met import DEFAULT_MET, PUBLISHED_METS
from engine.match import MatchState


def int_range(low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse type for an integer in [low, high] (no upper bound when ``high`` is None)."""
    span = f"from {low} to {high}" if high is not None else f"{low} or more"

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer {span}, got {text!r}") from None
        if value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"expected an integer {span}, got {text!r}")
        return value

    parse.__name__ = "integer"
    return parse


def float_range(low: float, high: float, *, low_open: bool = False, high_open: bool = False) -> Callable[[str], float]:
    """An argparse type for a finite number in the interval from ``low`` to ``high`` (ends open as asked)."""
    span = f"{'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number in {span}, got {text!r}") from None
        inside = math.isfinite(value) and (value > low if low_open else value >= low)
        inside = inside and (value < high if high_open else value <= high)
        if not inside:
            raise argparse.ArgumentTypeError(f"expected a number in {span}, got {text!r}")
        return value

    parse.__name__ = "number"
    return parse


def path_arg(text: str) -> Path:
    """An argparse type for a file or folder to write or read: any path but an empty one (which reads as '.')."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"{text!r} is an empty path")
    return Path(text)


def existing_file(text: str) -> Path:
    """An argparse type for a path that must name an existing regular file."""
    path = Path(text)
    if not path.is_file():
        raise argparse.ArgumentTypeError(f"{text!r} is not an existing file")
    return path


def check_output_file(path: Path | None, option: str, make_folder: bool = False) -> None:
    """Refuse, before any work, an output file ``option`` names that is a folder or (unless the command makes its
    folder, ``make_folder``) lies in a missing folder."""
    if path is None:
        return
    if path.is_dir():
        raise ValueError(f"{option} {str(path)!r} is a folder")
    if not make_folder and not path.parent.is_dir():
        raise ValueError(f"{option} {str(path)!r}: folder {str(path.parent)!r} does not exist")
    folder = path.parent
    while not folder.is_dir() and folder != folder.parent:
        if folder.exists():  # a file where a folder must be (or be made): writing would fail at the end
            raise ValueError(f"{option} {str(path)!r}: {str(folder)!r} is a file, not a folder")
        folder = folder.parent
    try:  # a probe: a long run must not end in a file it cannot write (a folder made read-only, /proc)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".jumpgammon-probe-"):
            pass
    except OSError as error:
        raise ValueError(f"{option} {str(path)!r}: cannot write in {str(folder)!r} ({error.strerror})") from None


def torch_device(text: str) -> str:
    """An argparse type for a torch device this machine has: ``cpu``, or ``cuda``/``cuda:N`` with CUDA."""
    kind, _, index = text.partition(":")
    if text == "cpu":
        return text
    if kind != "cuda" or (index and not index.isdigit()):
        raise argparse.ArgumentTypeError(f"device {text!r} is not cpu, cuda or cuda:N")
    import torch  # only the commands that evaluate take --device, and they load torch anyway

    if not torch.cuda.is_available():
        raise argparse.ArgumentTypeError(f"device {text!r}: this machine has no CUDA device")
    if index and int(index) >= torch.cuda.device_count():
        raise argparse.ArgumentTypeError(f"device {text!r}: only {torch.cuda.device_count()} CUDA devices")
    return text


PLIES = int_range(0, 2)

# One rule for every command with cube specs (tournament, rollout, train): naming a cube strategy is asking for
# play with the cube. ``--cubeful`` is then needed only to play with the cube while every spec is ``none``.
CUBE_SPEC_RULE = "any cube spec but none plays with the cube, as --cubeful does"


def plays_cubeful(cubeful: bool, *cubes: str | None) -> bool:
    """Whether a command plays with the cube: ``--cubeful`` given, or a cube spec other than ``none`` (unset: None)."""
    return cubeful or any(cube is not None and cube.strip() != "none" for cube in cubes)


#: How commands that take a position name it: a gnubg ID (with its match ID) or an XGID.
ID_METAVAR = "POSITIONID[:MATCHID]|XGID"


def add_json_argument(p: argparse.ArgumentParser) -> None:
    """Add ``--json``: one JSON object on stdout, errors as ``{"error": ...}``."""
    p.add_argument("--json", action="store_true", help="machine-readable output (one JSON object on stdout)")


def add_met_argument(p: argparse.ArgumentParser) -> None:
    """Add ``--met NAME``: the match equity table for match IDs at a score (published name or gnubg .xml)."""
    p.add_argument(
        "--met",
        metavar="NAME",
        default=DEFAULT_MET,
        help=f"match equity table at a match score: {', '.join(PUBLISHED_METS)} or a gnubg .xml file "
        f"(default {DEFAULT_MET})",
    )


def check_met_is_read(args: argparse.Namespace, match: MatchState | None) -> None:
    """Refuse ``--met`` (other than the default) for a money position: it would be ignored."""
    if args.met != DEFAULT_MET and (match is None or match.match_length == 0):
        raise ValueError(f"--met {args.met!r}: {args.id!r} is a money game, which no match equity table enters")


def add_evaluation_arguments(p: argparse.ArgumentParser) -> None:
    """Add the position ID, ``--plies``, ``--weights`` and ``--json`` arguments."""
    p.add_argument("id", metavar=ID_METAVAR)
    p.add_argument("--plies", type=PLIES, default=0, help="lookahead depth, 0-2")
    p.add_argument("--weights", type=existing_file, default=None, help="weights file (default: the shipped net)")
    add_json_argument(p)


def given_options(args: argparse.Namespace, names: Iterable[str]) -> list[str]:
    """The options among ``names`` (argparse dests whose default is None or False) given on the command line, as
    flags (``--gnubg-games``), sorted: a subcommand that does not read them refuses them rather than ignore them."""
    return sorted(f"--{name.replace('_', '-')}" for name in names if getattr(args, name) not in (None, False))


def fill_defaults(args: argparse.Namespace, defaults: Mapping[str, Any]) -> None:
    """Set each option of ``defaults`` left at None (not given) to its default."""
    for name, default in defaults.items():
        if getattr(args, name) is None:
            setattr(args, name, default)
