"""Player specs: ``net[:WEIGHTS]@PLY``, ``pubeval``, ``random[:SEED]``, ``gnubg@PLY``, ``ubgi:COMMAND``; cube specs."""

from __future__ import annotations

from pathlib import Path

from cube.met import MatchEquityTable
from engine.errors import InvalidSpec
from nets.evaluator import Evaluator, load_evaluator
from nets.weights import weights_digest
from players.base import Player
from players.cube import parse_cube_spec
from players.net import NetPlayer
from players.pubeval import PubevalPlayer
from players.random_player import RandomPlayer
from players.ubgi import SPEC_PREFIX as UBGI_PREFIX
from players.ubgi import make_ubgi_player
from weights import DEFAULT_WEIGHTS

PLAYER_SPECS = "net[:WEIGHTS]@PLY, pubeval, random[:SEED], gnubg@PLY, ubgi:COMMAND"
MAX_PLIES = 2


def _plies(text: str, spec: str) -> int:
    if not text.isdigit() or not 0 <= int(text) <= MAX_PLIES:
        raise InvalidSpec(f"player spec {spec!r}: ply {text!r} is not 0 to {MAX_PLIES}")
    return int(text)


def same_checker_play(a: str, b: str) -> bool:
    """True when specs ``a`` and ``b`` name the same net at the same depth, so both choose the same move everywhere.

    Net players move deterministically by cubeless equity whatever their cube strategy.
    """
    return isinstance(a, str) and isinstance(b, str) and a.strip() == b.strip() and a.strip().startswith("net")


def net_spec(plies: int, weights: str | Path | None = None) -> str:
    """The spec of a net player at ``plies``: ``net@PLY`` for the shipped net, else ``net:WEIGHTS@PLY``."""
    return f"net@{plies}" if weights is None else f"net:{weights}@{plies}"


def weights_identity(path: Path, label: str) -> str:
    """The SHA-256 digest (``sha256:...``) of the weights file ``path``; InvalidSpec naming ``label`` and the file when
    it cannot be read. A ledger or a saved rollout names its nets by this, not by file name."""
    try:
        return weights_digest(path)
    except OSError as error:
        raise InvalidSpec(f"{label}: cannot read weights {str(path)!r} ({error.strerror})") from None


def checker_identity(spec: str) -> tuple[str, str | None]:
    """``(spec, digest)`` naming what plays a spec's checkers by content rather than by file name.

    A net spec (``net@PLY`` or ``net:WEIGHTS@PLY``) becomes ``net@PLY`` with the SHA-256 digest of
    the weights it plays, so a ledger played with one net is never continued, or reprinted, with
    another, even under the same spec; any other spec comes back stripped, with digest None.
    Raises InvalidSpec for a net whose weights file cannot be read.
    """
    text = spec.strip()
    body, at, ply_text = text.rpartition("@")
    kind, colon, weights = body.partition(":")
    if not at or kind != "net":
        return text, None
    return f"net@{ply_text}", weights_identity(Path(weights) if colon else DEFAULT_WEIGHTS, f"player spec {spec!r}")


def cube_net_identity(cube: str) -> str | None:
    """The SHA-256 digest of the volatility net a money cube spec decides with (``jump-net``), else None.

    Raises InvalidSpec naming the spec when it is not a cube spec or its net cannot be read.
    """
    volatility_net = parse_cube_spec(cube).volatility_net
    return None if volatility_net is None else weights_identity(volatility_net, f"cube spec {cube!r}")


def make_player(
    spec: str, cube: str = "none", evaluators: dict[str, Evaluator] | None = None, met: MatchEquityTable | None = None
) -> Player:
    """The player a spec names, with the cube strategy ``cube``; raises InvalidSpec (or InvalidWeights) naming it.

    ``evaluators`` caches loaded weights by path, so two players on the same net share it. With
    ``met`` the player plays matches: ``cube`` is a match cube spec (:mod:`players.match_cube`)
    deciding with that table.
    """
    if not isinstance(spec, str):
        raise InvalidSpec(f"player spec must be a string, got {spec!r}")
    cube_spec = parse_cube_spec(cube, met)
    cubeless = cube_spec.cubeless
    text = spec.strip()
    if text.startswith(UBGI_PREFIX):  # an external engine; its cube spec: none, or gnubg for the engine's own
        return make_ubgi_player(text, cube)
    if text in ("pubeval", "random") or text.startswith("random:"):
        if not cubeless:
            raise InvalidSpec(f"player {text!r} has no probabilities, so it cannot use cube strategy {cube!r}")
        if text == "pubeval":
            return PubevalPlayer()
        seed_text = text.partition(":")[2] or "0"
        if not seed_text.isdigit():
            raise InvalidSpec(f"player spec {spec!r}: seed {seed_text!r} is not a non-negative integer")
        return RandomPlayer(int(seed_text))
    body, at, ply_text = text.rpartition("@")
    if not at:
        raise InvalidSpec(f"player spec {spec!r} is not one of {PLAYER_SPECS}")
    plies = _plies(ply_text, spec)
    kind, colon, weights = body.partition(":")
    if kind == "gnubg" and not colon:
        from players.gnubg_player import make_gnubg_player

        return make_gnubg_player(plies, cube_spec)
    if kind != "net":
        raise InvalidSpec(f"player spec {spec!r} is not one of {PLAYER_SPECS}")
    key = str(Path(weights)) if colon else ""
    cache = evaluators if evaluators is not None else {}
    if key not in cache:
        cache[key] = load_evaluator(weights if colon else None)
    name = f"net{':' + weights if colon else ''}@{plies}" + ("" if cubeless else f" [{cube}]")
    return NetPlayer(cache[key], plies, cube_spec, name)
