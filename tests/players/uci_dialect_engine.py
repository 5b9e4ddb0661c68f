"""A test double of an engine speaking the UCI-like UBGI dialect of wildbg's engine, moving as ``net@0``.

Run as a script: ``python tests/players/uci_dialect_engine.py [--ids]``. It answers ``ubgi`` with
its id and ``ubgiok``, ``isready`` with ``readyok``; takes ``position gnubgid ID`` and ``dice A B``;
answers ``go`` with an ``info`` line and ``bestmove MOVE`` (``pass`` for none), or with ``--ids``
``bestmoveid ID`` (the position after the move); ``go role cube`` and anything else get ``error ...``
lines, as that engine answers them. Written from the protocol as wildbg's engine documents it in
its source, not from its code.
"""

from __future__ import annotations

import sys

import numpy as np

from engine.errors import JumpgammonError
from engine.position import Position
from nets.evaluator import load_evaluator
from nets.lookahead import best_children_plies
from players.ubgi import format_move


def main() -> int:
    """Serve stdin until ``quit``; returns 0."""
    ids = "--ids" in sys.argv[1:]
    evaluator = None
    position: Position | None = None
    dice: tuple[int, int] | None = None
    for raw in sys.stdin:
        cmd = raw.strip()
        out: list[str] = []
        if cmd == "ubgi":
            out = ["id name uci-dialect-double", "id author tests", "option name Threads type spin default 1", "ubgiok"]
        elif cmd == "isready":
            evaluator = evaluator or load_evaluator()
            out = ["readyok"]
        elif cmd in ("newgame", "") or cmd.startswith(("setoption ", "setturn ", "setscore ", "setcube ")):
            out = []
        elif cmd.startswith("position gnubgid "):
            try:
                position = Position.from_id(cmd.split()[2])
            except (JumpgammonError, IndexError):
                out = ["error bad_argument invalid_position"]
        elif cmd.startswith("dice "):
            parts = cmd.split()[1:]
            if len(parts) == 2 and all(p in {"1", "2", "3", "4", "5", "6"} for p in parts):
                dice = (int(parts[0]), int(parts[1]))
            else:
                out = ["error bad_argument dice"]
        elif cmd in ("go", "go role chequer"):
            if position is None or dice is None:
                out = ["error missing_context position" if position is None else "error missing_context dice"]
            else:
                evaluator = evaluator or load_evaluator()
                chosen = best_children_plies(evaluator, position.array[None], np.array([dice]), 0)[0]
                move = next(m for m, child in position.plays(dice) if np.array_equal(child.array, chosen))
                text = format_move(move) or "pass"
                best = f"bestmoveid {Position(chosen).id}" if ids else f"bestmove {text}"
                out = [f"info role chequer pv {text}", best]
        elif cmd.startswith("go role cube"):
            out = ["error unsupported_feature role_cube"]
        elif cmd == "quit":
            return 0
        else:
            out = ["error unknown_command"]
        for line in out:
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
