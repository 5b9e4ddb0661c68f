"""A tournament's ledger: finished blocks on disk, one JSON line each, so a long run resumes where it stopped.

The first line records what the tournament is (players, cube specs, seed, rules, block size); a
ledger is only ever continued by the same tournament. A net player is recorded by the digest of
its weights (``nets``), not by the file's name: ``net@0`` is a different player once another net
is promoted, and ``net:FILE@0`` the same player as ``net@0`` when FILE holds the shipped net.
The number of games is not part of that identity: pair ``k`` is the same two games in a
tournament of any length, so a ledger of 20,000 games is continued by the same command with
``--games 100000`` (and a shorter run uses the blocks it needs from a longer one). Each finished
block is appended and flushed to disk at once, so a run killed at any moment loses at most the
blocks in flight; a last line cut short by the kill is ignored. Blocks are played from their own
dice, so the blocks a resumed run adds are exactly those an uninterrupted run would have played.

A ``jump-net`` cube is recorded by its volatility net's digest (``cube_nets``), so a
resumed run never mixes two cube players; a ledger written before that continues as it was.
A match tournament's identity adds the match length and the table (``match_length``, ``met``);
its lines are match blocks (:class:`arena.matches.MatchBlockResult`). A luck-adjusted one records
the luck net by its digest too (``luck_net``), so its luck is never judged by two nets; a ledger
written before that (no ``luck_net``) is continued as it was written.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any

import numpy as np

from arena.games import BlockResult
from arena.matches import MatchBlockResult
from engine.errors import InvalidSpec
from nets.weights import write_atomic
from players.specs import checker_identity, cube_net_identity, weights_identity
from weights import DEFAULT_WEIGHTS

Block = BlockResult | MatchBlockResult


_OPTIONAL = ("luck_seat0",)  # arrays a block may lack: written only when present


def _arrays(kind: type[BlockResult] | type[MatchBlockResult]) -> list[str]:
    return [f.name for f in fields(kind) if f.name not in ("first_pair", "records")]


def describe(cfg: Any) -> dict[str, Any]:
    """The JSON identity of a tournament config (what must match to continue its ledger)."""
    spec_a, net_a = checker_identity(cfg.a.spec)
    spec_b, net_b = checker_identity(cfg.b.spec)
    identity = {
        "a": [spec_a, cfg.a.cube],
        "b": [spec_b, cfg.b.cube],
        "nets": {"a": net_a, "b": net_b},
        "seed": cfg.seed,
        "rules": asdict(cfg.rules),
        "block_pairs": cfg.block_pairs,
        "compare_cube": cfg.compare_cube,
    }
    if not cfg.match_length:  # a jump-net cube decides by its volatility net: pinned by content, as the nets are
        cube_nets = {"a": cube_net_identity(cfg.a.cube), "b": cube_net_identity(cfg.b.cube)}
        if any(cube_nets.values()):  # ledgers of other cubes keep the identity they had
            identity["cube_nets"] = cube_nets
    if cfg.luck_weights is not None:  # ledgers without the luck adjustment keep the identity they had
        identity["luck_weights"] = cfg.luck_weights
        luck_net = Path(cfg.luck_weights) if cfg.luck_weights else DEFAULT_WEIGHTS  # "": the shipped net
        identity["luck_net"] = weights_identity(luck_net, f"--luck {cfg.luck_weights!r}")
    if cfg.luck_screen is not None:  # nor do ledgers whose luck judges every play
        identity["luck_screen"] = cfg.luck_screen
    if cfg.match_length:  # money ledgers keep the identity they had before matches
        identity.update(match_length=cfg.match_length, met=cfg.met)
        if cfg.luck_weights is not None:  # match luck judged an opening roll against all 21 rolls before this
            identity["opening_luck"] = "the 15 non-doubles"
    return identity


def same_tournament(found: Any, cfg: Any) -> bool:
    """Whether a ledger header's ``tournament`` entry is ``cfg``'s identity (a ledger from before luck digests
    matches without one)."""
    expected = describe(cfg)
    for legacy in ("luck_net", "cube_nets"):  # recorded since: a ledger from before either continues as written
        if isinstance(found, dict) and legacy not in found:
            expected.pop(legacy, None)
    return found == expected


def _nets_text(nets: Any) -> str:
    """``A sha256:..., B none`` for a ledger's ``nets`` entry, as an error message shows it."""
    if not isinstance(nets, dict):
        return repr(nets)
    return ", ".join(f"{side.upper()} {nets.get(side) or 'none'}" for side in ("a", "b"))


def block_to_json(block: Block) -> dict[str, Any]:
    """A block's outcomes as JSON (the game records are not kept)."""
    out: dict[str, Any] = {"first_pair": block.first_pair}
    out.update(
        {
            name: np.asarray(getattr(block, name)).tolist()
            for name in _arrays(type(block))
            if getattr(block, name) is not None  # a block played without the luck adjustment has no luck
        }
    )
    return out


def block_from_json(data: dict[str, Any], matches: bool = False) -> Block:
    """Inverse of :func:`block_to_json` (``matches``: a match block)."""
    kind = MatchBlockResult if matches else BlockResult
    names = [name for name in _arrays(kind) if name in data or name not in _OPTIONAL]
    arrays: dict[str, Any] = {name: np.asarray(data[name]) for name in names}
    return kind(first_pair=int(data["first_pair"]), **arrays)


def load(
    path: Path, cfg: Any, option: str = "--checkpoint", remedy: str = "play its nets with net:WEIGHTS@PLY"
) -> list[Block]:
    """The finished blocks in ``path`` (none if it does not exist); InvalidSpec for another tournament's ledger.

    An error names the ledger as ``option`` does (``--checkpoint``, or an experiment's ``ledger``)
    and, for a ledger of other nets, says what to do instead: ``remedy``, in that command's options.
    """
    if not path.exists():
        return []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError:
        raise InvalidSpec(f"{option} {str(path)!r} is not a ledger (not text)") from None
    try:
        header = json.loads(lines[0]) if lines else None
    except json.JSONDecodeError:
        header = None
    if isinstance(header, dict) and isinstance(header.get("tournament"), dict):
        header["tournament"].pop("games", None)  # ledgers written before the length left the identity
    expected = describe(cfg)
    found = header.get("tournament") if isinstance(header, dict) else None
    if not same_tournament(found, cfg):
        if isinstance(found, dict) and "nets" not in found:
            raise InvalidSpec(
                f"{option} {str(path)!r} records no digests of its nets (written before ledgers did): "
                "start a new ledger"
            )
        if isinstance(found, dict) and found.get("nets") != expected["nets"]:
            raise InvalidSpec(
                f"{option} {str(path)!r} was played with other nets ({_nets_text(found.get('nets'))}; "
                f"these are {_nets_text(expected['nets'])}): start a new ledger, or {remedy}"
            )
        if isinstance(found, dict) and found.get("cube_nets", expected.get("cube_nets")) != expected.get("cube_nets"):
            raise InvalidSpec(
                f"{option} {str(path)!r} was played with other volatility nets ({_nets_text(found['cube_nets'])}; "
                f"these are {_nets_text(expected.get('cube_nets'))}): start a new ledger, or give jump-net the "
                "volatility net it was played with"
            )
        if isinstance(found, dict) and found.get("luck_weights") != expected.get("luck_weights"):
            kept, asked = ("luck-adjusted" if d.get("luck_weights") is not None else "raw" for d in (found, expected))
            if kept != asked:
                raise InvalidSpec(
                    f"{option} {str(path)!r} holds {kept} games and these are {asked}: "
                    f"{'add' if kept == 'luck-adjusted' else 'drop'} --luck, or start a new ledger"
                )
        if isinstance(found, dict) and found.get("luck_net", expected.get("luck_net")) != expected.get("luck_net"):
            raise InvalidSpec(
                f"{option} {str(path)!r} was luck-adjusted by another net ({found['luck_net']}; this luck net is "
                f"{expected.get('luck_net')}): start a new ledger, or give --luck the weights it was played with"
            )
        if isinstance(found, dict) and found.get("luck_screen") != expected.get("luck_screen"):
            kept_screen = found.get("luck_screen") or 0
            raise InvalidSpec(
                f"{option} {str(path)!r} holds games whose luck was judged with --luck-screen {kept_screen} "
                f"and these ask {expected.get('luck_screen') or 0}: give --luck-screen {kept_screen}, "
                "or start a new ledger"
            )
        raise InvalidSpec(f"{option} {str(path)!r} belongs to another tournament (or is not a ledger)")
    blocks = []
    for k, line in enumerate(lines[1:], start=1):
        try:
            blocks.append(block_from_json(json.loads(line), matches=bool(cfg.match_length)))
        except (json.JSONDecodeError, KeyError, TypeError, ValueError):
            if k == len(lines) - 1:  # the last line, cut short by a kill: that block is played again
                break
            raise InvalidSpec(f"{option} {str(path)!r}: line {k + 1} is damaged") from None
    return blocks


def start(path: Path, cfg: Any, kept: Sequence[Block]) -> None:
    """Rewrite ``path`` with the header and the ``kept`` blocks (dropping a cut-short last line)."""
    text = json.dumps({"tournament": describe(cfg)}) + "\n"
    text += "".join(json.dumps(block_to_json(b)) + "\n" for b in kept)
    write_atomic(path, text.encode())


def append(path: Path, block: Block) -> None:
    """Add one finished block to the ledger, on disk before this returns."""
    with path.open("a") as f:
        f.write(json.dumps(block_to_json(block)) + "\n")
        f.flush()
        os.fsync(f.fileno())
