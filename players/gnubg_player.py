"""GNU Backgammon in process (the ``gnubg`` package) as a player: its checker play, its probabilities, its cube.

Install the optional extra with ``pip install -e ".[gnubg]"``; without it :func:`make_gnubg_player`
raises :class:`InvalidSpec` saying so. Boards are this project's int8 (n, 26) arrays seen by the side
on roll; gnubg's board is ``(not on roll, on roll)``, each 25 counts from its own side (24 = bar).

Checker play (``plies`` 0, 1 or 2: gnubg's own n-ply, cubeless money evaluation, deterministic, no
noise, pruning nets on as in gnubg's default settings, and ``findbestmove``'s default move filters):
``gnubg.findbestmove`` gives gnubg's play as a tuple of single-die hops (1-based, 25 = bar). The
binding cuts that tuple at the first hop that bears a checker off (its "to" is negative, and it
stops at the first negative entry): a bear-off 6-5 taking two checkers off comes back as ``(6,)``.
So a tuple of odd length (it bears off) is never trusted; an even-length tuple is replayed on the
board and must give exactly one of :func:`engine.batch.children_batch`'s children. Otherwise the
child is chosen by gnubg's evaluation of every child: ``gnubg.evaluate`` of the child (the
opponent on roll) at the same plies, the child whose cubeless equity is lowest for the opponent,
that is best for the mover, wins; a child where the mover has borne off its last checker wins at
once (gnubg scores finished positions as single games, so it is not asked). Beyond 0-ply this
evaluates every child, without findbestmove's move filters.

Probabilities: ``gnubg.evaluate`` at ``plies``, cubeless, the first five outputs (win, win gammon,
win backgammon, lose gammon, lose backgammon; gammons include backgammons) for the side on roll;
any of this project's cube strategies can run on them (``jump-local`` cannot: no lookahead).

gnubg's own cube (cube spec ``gnubg``): the package's Python API gives no cubeful equity.
``gnubg.evaluate`` returns gnubg's ``OUTPUT_EQUITY`` (the *cubeless* equity) as its sixth value even
with a cubeful evalcontext (the cubeful one, ``OUTPUT_CUBEFUL_EQUITY``, is the seventh output and is
dropped: the value does not move when the cube changes hands), and ``gnubg.hint`` refuses cube
actions ("Hints for cube actions not yet implemented"). The extension module exports gnubg's C
engine, so this module calls, through :mod:`ctypes`, the functions gnubg's ``hint`` and its
external mode use for a cube decision:

1. ``SetCubeInfo``: a money cubeinfo with cube 1, the side on roll as player 1 (``fMove = 1``, the
   external mode's convention, since board[1] is on roll), the cube centred (owner -1) or owned by
   the side on roll (owner 1), Jacoby and beavers as passed (the binding's ``gnubg.cubeinfo``
   always sets Jacoby on and beavers off). With Jacoby and a centred cube gnubg prices gammons at 0.
2. ``GeneralCubeDecisionE``: the cubeful evaluation at ``plies`` (evalcontext cubeful, deterministic,
   pruning on) of two cube positions: as it is (no double), and the cube doubled to 2 and owned
   by the opponent (double, take).
3. ``FindCubeDecision``: the equities ``[optimal, no double, double take, double pass]`` and
   gnubg's cube decision code.

Normalisation: money equities are the side on roll's (the doubler's), per unit of the current cube:
no double is the cubeful equity with the cube as it is; double/take is twice the cubeful equity
with the doubled cube (``GeneralCubeDecisionE`` multiplies it by 2); double/pass is +1.0. The
cube's value therefore does not matter and 1 is used. gnubg's decision from them: double when
double/take and double/pass are both at least no double; then take when double/pass exceeds
double/take, else pass; too good when no double exceeds double/pass and gnubg sees gammon chances;
no double otherwise; beaver (beavers only) when double/take is between -2 and 0 and below double/pass
(see gnubg's ``FindBestCubeDecision``).

The decision codes become actions and responses as in gnubg's external mode (``external.c``),
the other backend this project uses: ``double_actions`` says double for (re)double-take,
(re)double-pass and double-beaver, too good for the too-good codes, no double otherwise; an
"optional" double (no double equal to the better of the double equities within 1e-5) is doubled
at 0-ply when the side on roll can still win (P(win) > 0.001), as gnubg does, and not doubled
deeper. ``double_responses`` asks the same question from the doubler's side (its board flipped,
its cube state): pass for every pass code, beaver for the beaver codes (only with beavers), take
otherwise. A side whose cube is unavailable is not asked and never doubles.

The C declarations below copy gnubg's structs (``cubeinfo``: eight ints, four floats, the variant;
``evalcontext``: bit fields cubeful:1, plies:4, prune:1, deterministic:1, then the noise). Before the
first decision the player checks them against the package itself (``SetCubeInfo`` against
``gnubg.cubeinfo``, ``GeneralEvaluationE`` against ``gnubg.evaluate`` at every ply, and the decision
codes against ``FindBestCubeDecision`` on chosen equities) and refuses to decide if anything
differs, rather than read garbage.
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from enum import IntEnum
from typing import Any

import numpy as np

from cube.match import MatchCube
from cube.states import CubeAction, CubeResponse, CubeState
from engine.batch import children_batch, flip_boards
from engine.errors import IllegalMove, InvalidSpec
from engine.notation import replay_hops
from players.base import CubeContext
from players.cube import AnyCubeSpec, make_decider
from players.strategic import StrategyPlayer

try:
    import gnubg
    from gnubg import _gnubg as gnubg_extension
except ImportError:  # the optional extra is not installed: make_gnubg_player says how to get it
    gnubg = None
    gnubg_extension = None

INSTALL_HINT = 'pip install "gnubg==1.1.0a16"'
MAX_PLIES = 2
NUM_ROLLOUT_OUTPUTS = 7  # gnubg's outputs: five probabilities, cubeless equity, cubeful equity
OUTPUT_CUBEFUL_EQUITY = 6
#: The side on roll is gnubg's player 1 (board[1]); the opponent is player 0.
ON_ROLL, OPPONENT, CENTRED = 1, 0, -1
OPTIONAL_DOUBLE_MIN_WIN = 0.001  # gnubg doubles an optional 0-ply double only while it can still win
CHECK_TOLERANCE = 1e-6


class CubeDecisionCode(IntEnum):
    """gnubg's ``cubedecision`` enum (eval.h), in its order."""

    DOUBLE_TAKE = 0
    DOUBLE_PASS = 1
    NODOUBLE_TAKE = 2
    TOOGOOD_TAKE = 3
    TOOGOOD_PASS = 4
    DOUBLE_BEAVER = 5
    NODOUBLE_BEAVER = 6
    REDOUBLE_TAKE = 7
    REDOUBLE_PASS = 8
    NO_REDOUBLE_TAKE = 9
    TOOGOODRE_TAKE = 10
    TOOGOODRE_PASS = 11
    NO_REDOUBLE_BEAVER = 12
    NODOUBLE_DEADCUBE = 13
    NO_REDOUBLE_DEADCUBE = 14
    NOT_AVAILABLE = 15
    OPTIONAL_DOUBLE_TAKE = 16
    OPTIONAL_REDOUBLE_TAKE = 17
    OPTIONAL_DOUBLE_BEAVER = 18
    OPTIONAL_DOUBLE_PASS = 19
    OPTIONAL_REDOUBLE_PASS = 20


C = CubeDecisionCode
DOUBLING_CODES = frozenset({C.DOUBLE_TAKE, C.DOUBLE_PASS, C.DOUBLE_BEAVER, C.REDOUBLE_TAKE, C.REDOUBLE_PASS})
TOO_GOOD_CODES = frozenset({C.TOOGOOD_TAKE, C.TOOGOOD_PASS, C.TOOGOODRE_TAKE, C.TOOGOODRE_PASS})
OPTIONAL_CODES = frozenset(
    {
        C.OPTIONAL_DOUBLE_TAKE,
        C.OPTIONAL_REDOUBLE_TAKE,
        C.OPTIONAL_DOUBLE_BEAVER,
        C.OPTIONAL_DOUBLE_PASS,
        C.OPTIONAL_REDOUBLE_PASS,
    }
)
PASS_CODES = frozenset(
    {C.DOUBLE_PASS, C.TOOGOOD_PASS, C.REDOUBLE_PASS, C.TOOGOODRE_PASS, C.OPTIONAL_DOUBLE_PASS, C.OPTIONAL_REDOUBLE_PASS}
)
BEAVER_CODES = frozenset({C.DOUBLE_BEAVER, C.NODOUBLE_BEAVER, C.NO_REDOUBLE_BEAVER, C.OPTIONAL_DOUBLE_BEAVER})


def _require_gnubg(what: str) -> None:
    """Raise InvalidSpec naming ``what`` and the install command when the package is missing."""
    if gnubg is None:
        raise InvalidSpec(f"{what} needs the gnubg package, which is not installed: {INSTALL_HINT}")


def c_boards(boards: np.ndarray) -> np.ndarray:
    """gnubg's board for each int8 (n, 26) board (side on roll's view) as uint32 (n, 2, 25), C's ``TanBoard``.

    Row 0 is the side not on roll, row 1 the side on roll, each from its own side (24 = bar).
    """
    b = np.asarray(boards, dtype=np.int64).reshape(-1, 26)
    out = np.zeros((len(b), 2, 25), np.uint32)
    out[:, 1, :24] = np.clip(b[:, 1:25], 0, None)
    out[:, 1, 24] = b[:, 25]
    out[:, 0, :24] = np.clip(-b[:, 24:0:-1], 0, None)  # the opponent's point i + 1 is our point 24 - i
    out[:, 0, 24] = -b[:, 0]
    return out


def gnubg_boards(boards: np.ndarray) -> list[tuple[list[int], list[int]]]:
    """gnubg's Python board ``(not on roll, on roll)`` for each int8 (n, 26) board (side on roll's view)."""
    both = c_boards(boards)
    return list(zip(both[:, 0].tolist(), both[:, 1].tolist(), strict=True))


# --- gnubg's C engine, for the cube ------------------------------------------------------------


class _CubeInfo(ctypes.Structure):
    """gnubg's ``cubeinfo`` (eval.h)."""

    _fields_ = [
        ("nCube", ctypes.c_int),
        ("fCubeOwner", ctypes.c_int),
        ("fMove", ctypes.c_int),
        ("nMatchTo", ctypes.c_int),
        ("anScore", ctypes.c_int * 2),
        ("fCrawford", ctypes.c_int),
        ("fJacoby", ctypes.c_int),
        ("fBeavers", ctypes.c_int),
        ("arGammonPrice", ctypes.c_float * 4),
        ("bgv", ctypes.c_int),
    ]


class _EvalContext(ctypes.Structure):
    """gnubg's ``evalcontext`` (eval.h): bit fields in one unsigned int, then the noise."""

    _fields_ = [
        ("fCubeful", ctypes.c_uint, 1),
        ("nPlies", ctypes.c_uint, 4),
        ("fUsePrune", ctypes.c_uint, 1),
        ("fDeterministic", ctypes.c_uint, 1),
        ("padding", ctypes.c_uint, 25),
        ("rNoise", ctypes.c_float),
    ]


_Outputs = ctypes.c_float * NUM_ROLLOUT_OUTPUTS
_Outputs2 = _Outputs * 2
_Equities = ctypes.c_float * 4
# PYFUNCTYPE keeps the GIL during the call, as the binding's own functions do (gnubg is not thread-safe).
_CUBE_DECISION_FN = ctypes.PYFUNCTYPE(
    ctypes.c_int,
    ctypes.POINTER(_Outputs2),
    ctypes.c_void_p,
    ctypes.POINTER(_CubeInfo),
    ctypes.POINTER(_EvalContext),
    ctypes.c_void_p,
)
_EVALUATION_FN = ctypes.PYFUNCTYPE(
    ctypes.c_int, ctypes.POINTER(_Outputs), ctypes.c_void_p, ctypes.POINTER(_CubeInfo), ctypes.POINTER(_EvalContext)
)


class GnubgEngine:
    """gnubg's cube functions from the extension module, with their declarations checked against the package."""

    def __init__(self) -> None:
        _require_gnubg("gnubg's cube")
        assert gnubg_extension is not None
        self.lib = ctypes.PyDLL(gnubg_extension.__file__)
        self.lib.SetCubeInfo.argtypes = [
            ctypes.POINTER(_CubeInfo),
            ctypes.c_int,
            ctypes.c_int,
            ctypes.c_int,
            ctypes.c_int,
            ctypes.POINTER(ctypes.c_int),
            ctypes.c_int,
            ctypes.c_int,
            ctypes.c_int,
            ctypes.c_int,
        ]
        self.lib.SetCubeInfo.restype = ctypes.c_int
        for name in ("FindCubeDecision", "FindBestCubeDecision"):
            fn = getattr(self.lib, name)
            fn.argtypes = [ctypes.POINTER(_Equities), ctypes.POINTER(_Outputs2), ctypes.POINTER(_CubeInfo)]
            fn.restype = ctypes.c_int
        self._check_declarations()

    # gnubg calls these through function pointers that point at the locking or non-locking
    # variant; reading the pointer at each call follows whichever the package has set.
    def _pointer(self, name: str) -> int:
        """The address gnubg's function pointer ``name`` holds; raises RuntimeError when unset."""
        address = ctypes.c_void_p.in_dll(self.lib, name).value
        if address is None:
            raise RuntimeError(f"gnubg's {name} is not set (was the engine initialised?)")
        return address

    def _cube_decision_fn(self) -> Any:
        return _CUBE_DECISION_FN(self._pointer("GeneralCubeDecisionE"))

    def _evaluation_fn(self) -> Any:
        return _EVALUATION_FN(self._pointer("GeneralEvaluationE"))

    def cube_info(self, owner: int, jacoby: bool, beavers: bool, cube: int = 1) -> _CubeInfo:
        """A money cubeinfo with the side on roll as player 1 (``owner``: -1 centred, 1 on roll, 0 opponent)."""
        info = _CubeInfo()
        score = (ctypes.c_int * 2)(0, 0)
        if self.lib.SetCubeInfo(ctypes.byref(info), cube, owner, ON_ROLL, 0, score, 0, int(jacoby), int(beavers), 0):
            raise ValueError(f"gnubg refused the cube (value {cube}, owner {owner})")
        return info

    @staticmethod
    def eval_context(plies: int, cubeful: bool) -> _EvalContext:
        """A deterministic, noiseless evalcontext at ``plies`` with gnubg's pruning nets on."""
        return _EvalContext(fCubeful=int(cubeful), nPlies=plies, fUsePrune=1, fDeterministic=1, padding=0, rNoise=0.0)

    def cube_decisions(
        self, boards: np.ndarray, owners: np.ndarray, plies: int, jacoby: bool, beavers: bool
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """gnubg's decision code, ``[no double, double take, double pass]`` and P(win) per board (side on roll).

        ``owners``: -1 centred or 1 (the side on roll owns the cube). Equities are money, per unit
        of the current cube, from the side on roll's view (see the module notes).
        """
        tan_boards = c_boards(boards)
        codes = np.empty(len(tan_boards), np.int64)
        equities = np.empty((len(tan_boards), 3))
        win = np.empty(len(tan_boards))
        context = self.eval_context(plies, cubeful=True)
        decide = self._cube_decision_fn()
        infos = {owner: self.cube_info(owner, jacoby, beavers) for owner in (CENTRED, ON_ROLL, OPPONENT)}
        outputs, doubled = _Outputs2(), _Equities()
        base = tan_boards.ctypes.data
        for i in range(len(tan_boards)):
            info = infos[int(owners[i])]
            if decide(
                ctypes.byref(outputs), base + i * tan_boards.strides[0], ctypes.byref(info), ctypes.byref(context), None
            ):
                raise RuntimeError(f"gnubg's cube evaluation failed for board {np.asarray(boards)[i].tolist()}")
            codes[i] = self.lib.FindCubeDecision(ctypes.byref(doubled), ctypes.byref(outputs), ctypes.byref(info))
            equities[i] = doubled[1], doubled[2], doubled[3]
            win[i] = outputs[0][0]
        return codes, equities, win

    def match_cube_decision(
        self,
        board: np.ndarray,
        plies: int,
        cube: int,
        owner: int,
        length: int,
        score: tuple[int, int],
        crawford: bool,
    ) -> tuple[int, list[float], list[list[float]]]:
        """gnubg's cube decision for one board (side on roll) at a match score.

        ``owner``: -1 centred, 1 the side on roll, 0 the opponent; ``score``: (side on roll,
        opponent). Returns the decision code, ``[optimal, no double, double take, double pass]``
        in normalised money equity at the current cube, and gnubg's two output rows (no double,
        double take): five probabilities, the cubeless equity and the cubeful MWC.
        """
        info = _CubeInfo()
        anscore = (ctypes.c_int * 2)(int(score[1]), int(score[0]))  # gnubg's player 1 is on roll
        if self.lib.SetCubeInfo(ctypes.byref(info), cube, owner, ON_ROLL, length, anscore, int(crawford), 0, 0, 0):
            raise ValueError(f"gnubg refused the cube {cube} (owner {owner}) at {score} to {length}")
        outputs, doubled = _Outputs2(), _Equities()
        context = self.eval_context(plies, cubeful=True)
        c_board = c_boards(board)
        if self._cube_decision_fn()(
            ctypes.byref(outputs), c_board.ctypes.data, ctypes.byref(info), ctypes.byref(context), None
        ):
            raise RuntimeError(f"gnubg's cube evaluation failed for board {np.asarray(board).tolist()}")
        code = self.lib.FindCubeDecision(ctypes.byref(doubled), ctypes.byref(outputs), ctypes.byref(info))
        return int(code), list(doubled), [list(outputs[0]), list(outputs[1])]

    def evaluate_c(self, board: np.ndarray, plies: int, cubeful: bool, owner: int = CENTRED) -> list[float]:
        """gnubg's seven outputs (probabilities, cubeless and cubeful equity) for one board (side on roll)."""
        c_board = c_boards(board)
        outputs = _Outputs()
        info, context = self.cube_info(owner, False, False), self.eval_context(plies, cubeful)
        if self._evaluation_fn()(ctypes.byref(outputs), c_board.ctypes.data, ctypes.byref(info), ctypes.byref(context)):
            raise RuntimeError("gnubg's evaluation failed")
        return list(outputs)

    def _check_declarations(self) -> None:
        """Raise InvalidSpec unless the ctypes declarations read the package's C engine as its Python API does."""
        problems = []
        for owner, jacoby in ((CENTRED, True), (CENTRED, False), (ON_ROLL, True), (OPPONENT, False)):
            info = self.cube_info(owner, jacoby, True, cube=2)
            seen = (info.nCube, info.fCubeOwner, info.fMove, info.nMatchTo, info.fCrawford, info.fJacoby, info.fBeavers)
            price = 0.0 if jacoby and owner == CENTRED else 1.0
            expected = gnubg.cubeinfo(2, owner, ON_ROLL, 0, (0, 0), 0)
            if seen != (2, owner, ON_ROLL, 0, 0, int(jacoby), 1) or list(info.arGammonPrice) != [price] * 4:
                problems.append(f"cubeinfo reads {seen} {list(info.arGammonPrice)}")
            if (expected["cube"], expected["cubeowner"], expected["move"]) != seen[:3]:
                problems.append(f"gnubg.cubeinfo gives {expected}, SetCubeInfo {seen}")
        board = np.zeros(26, np.int8)
        board[[6, 8, 13, 24]] = [5, 3, 5, 2]
        board[[19, 17, 12, 1]] = [-5, -3, -5, -2]
        board[[6, 5, 24, 22]] += [-1, 1, -1, 1]  # 24/22 6/5: not symmetric, so swapped sides would show
        for plies in range(MAX_PLIES + 1):
            via_c = self.evaluate_c(board, plies, cubeful=False)[:6]
            via_python = gnubg.evaluate(
                gnubg_boards(board)[0],
                gnubg.cubeinfo(1, -1, ON_ROLL, 0, (0, 0), 0),
                gnubg.evalcontext(0, plies, 1, 1, 0.0),
            )
            if not np.allclose(via_c, via_python, atol=CHECK_TOLERANCE):
                problems.append(f"{plies}-ply evaluation reads {via_c}, gnubg.evaluate gives {list(via_python)}")
        for equities, gammons, expected_code in (
            ((0.3, 0.5, 1.0), 0.1, C.DOUBLE_TAKE),
            ((0.3, 1.2, 1.0), 0.1, C.DOUBLE_PASS),
            ((0.3, 0.2, 1.0), 0.1, C.NODOUBLE_TAKE),
            ((1.3, 1.2, 1.0), 0.3, C.TOOGOOD_PASS),
        ):
            outputs, arrays = _Outputs2(), _Equities(0.0, *equities)
            for side in range(2):
                outputs[side][0], outputs[side][1] = 0.7, gammons
            code = self.lib.FindBestCubeDecision(
                ctypes.byref(arrays), ctypes.byref(outputs), ctypes.byref(self.cube_info(CENTRED, False, False))
            )
            if code != expected_code:
                problems.append(f"equities {equities} give decision code {code}, not {expected_code.name}")
        if problems:
            raise InvalidSpec(
                "cube spec 'gnubg': this gnubg package's C engine does not match the declarations "
                "in players/gnubg_player.py: " + "; ".join(problems)
            )


_ENGINE: GnubgEngine | None = None


def gnubg_engine() -> GnubgEngine:
    """The shared, checked :class:`GnubgEngine` (built on first use)."""
    global _ENGINE
    if _ENGINE is None:
        _ENGINE = GnubgEngine()
    return _ENGINE


# --- the player --------------------------------------------------------------------------------


class GnubgPlayer(StrategyPlayer):
    """GNU Backgammon at ``plies`` (0-2) in process: its checker play and probabilities, its cube or any strategy."""

    def __init__(self, plies: int, cube: AnyCubeSpec, name: str | None = None) -> None:
        _require_gnubg(f"player gnubg@{plies}")
        if not 0 <= plies <= MAX_PLIES:
            raise InvalidSpec(f"player gnubg@{plies}: ply {plies} is not 0 to {MAX_PLIES}")
        # ``gnubg`` (own): the engine's own cube, money or match; any other strategy on its probabilities
        decider = None if cube.own else make_decider(cube, self.probabilities)
        label = name or f"gnubg@{plies}" + ("" if cube.cubeless else f" [{cube.text}]")
        super().__init__(label, cube, decider)
        self.plies = plies
        self.engine = gnubg_engine() if cube.own else None
        # Money, centred cube; with a cubeless evalcontext gnubg's money equity ignores the cube.
        self.cube_info = gnubg.cubeinfo(1, CENTRED, ON_ROLL, 0, (0, 0), 0)
        self.context = gnubg.evalcontext(0, plies, 1, 1, 0.0)  # cubeless, deterministic, pruning on, no noise
        self.tuple_moves = 0  # plays taken from findbestmove's tuple
        self.evaluated_moves = 0  # plays chosen by evaluating every child (bear-offs, unmapped tuples)

    # --- checker play -----------------------------------------------------------------------
    def choose_moves(self, boards: np.ndarray, dice: np.ndarray) -> np.ndarray:
        """gnubg's play of each (board, dice) pair: one of ``children_batch``'s children (opponent's view)."""
        boards = np.ascontiguousarray(boards, dtype=np.int8)
        dice = np.asarray(dice, dtype=np.int64)
        children, offsets = children_batch(boards, dice)
        chosen = np.empty((len(boards), 26), np.int8)
        for i, (board, gnubg_board) in enumerate(zip(boards, gnubg_boards(boards), strict=True)):
            kids = children[offsets[i] : offsets[i + 1]]
            if len(kids) == 1:  # a forced play (or none): gnubg has nothing to choose
                chosen[i] = kids[0]
                continue
            move = gnubg.findbestmove(gnubg_board, self.cube_info, self.context, (int(dice[i, 0]), int(dice[i, 1])))
            index = self._child_of_tuple(board, tuple(move), kids)
            if index is None:
                index = self.best_child_by_evaluation(kids)
                self.evaluated_moves += 1
            else:
                self.tuple_moves += 1
            chosen[i] = kids[index]
        return chosen

    @staticmethod
    def _child_of_tuple(board: np.ndarray, move: tuple[int, ...], kids: np.ndarray) -> int | None:
        """Index in ``kids`` of the child findbestmove's tuple leads to; None when the tuple cannot be trusted.

        An odd length means the binding cut the tuple at a bear-off; a tuple that does not replay,
        or leads to no child or to several, is not trusted either.
        """
        if not move or len(move) % 2:
            return None
        hops = [(move[k], move[k + 1]) for k in range(0, len(move), 2)]
        if any(not (1 <= src <= 25 and 1 <= dst <= 24) for src, dst in hops):
            return None
        try:
            after, _ = replay_hops(board, hops, strict_text=str(move))
        except IllegalMove:
            return None
        child = -after[::-1]
        matches = np.flatnonzero((kids == child).all(axis=1))
        return int(matches[0]) if len(matches) == 1 else None

    def best_child_by_evaluation(self, kids: np.ndarray) -> int:
        """Index of the child best for the mover by gnubg's cubeless equity at this player's plies.

        A child where the mover has no checker left is a win and is taken at once (gnubg would
        score it as a single game).
        """
        finished = np.flatnonzero(~(kids < 0).any(axis=1))
        if len(finished):
            return int(finished[0])
        return int(np.argmax(self.mover_equities(kids)))

    def mover_equities(self, kids: np.ndarray) -> np.ndarray:
        """gnubg's cubeless money equity at this player's plies of each child for the side that just moved.

        Children are seen by the opponent (on roll there), so this is minus gnubg's equity of each.
        """
        return -np.asarray([gnubg.evaluate(b, self.cube_info, self.context)[5] for b in gnubg_boards(kids)])

    # --- probabilities ------------------------------------------------------------------------
    def probabilities(self, boards: np.ndarray) -> np.ndarray:
        """Cubeless probabilities (n, 5) of each board's side on roll at this player's plies (gnubg's order)."""
        rows = [gnubg.evaluate(b, self.cube_info, self.context)[:5] for b in gnubg_boards(boards)]
        return np.asarray(rows, dtype=np.float64).reshape(-1, 5)

    # --- gnubg's own cube ---------------------------------------------------------------------
    def cube_analysis(
        self, boards: np.ndarray, cube_states: np.ndarray, jacoby: bool, beavers: bool
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """gnubg's decision codes (n,), equities (n, 3: no double, double take, double pass) and P(win) (n,).

        Boards and cube states are the side on roll's (the would-be doubler's); money equities
        per unit of the current cube. A board whose cube is unavailable gets NOT_AVAILABLE.
        """
        engine = self.engine or gnubg_engine()
        states = np.asarray(cube_states, dtype=str)
        owners = np.where(states == CubeState.CENTERED, CENTRED, np.where(states == CubeState.OWNED, ON_ROLL, OPPONENT))
        return engine.cube_decisions(
            np.asarray(boards, dtype=np.int8).reshape(-1, 26), owners, self.plies, jacoby, beavers
        )

    def double_actions(self, boards: np.ndarray, context: CubeContext) -> np.ndarray:
        """Per board (side on roll, before rolling): gnubg's own double / no double / too good, or the strategy's.

        At a match score gnubg's own match cube action.
        """
        if not self.cube.own:
            return super().double_actions(boards, context)
        if context.cubes is not None:
            return self._match_double_actions(boards, context.cubes)
        states = np.asarray(context.states, dtype=str)
        actions = np.full(len(boards), CubeAction.NO_DOUBLE, dtype=object)
        may = np.flatnonzero(states != CubeState.UNAVAILABLE)
        if len(may):
            codes, _, win = self.cube_analysis(np.asarray(boards)[may], states[may], context.jacoby, context.beavers)
            actions[may] = [self._action(int(code), float(p)) for code, p in zip(codes, win, strict=True)]
        return np.asarray(actions.astype(str))

    def _action(self, code: int, win: float) -> CubeAction:
        """The action for gnubg's decision code, as gnubg's external mode maps it."""
        if code in DOUBLING_CODES:
            return CubeAction.DOUBLE
        if code in TOO_GOOD_CODES:
            return CubeAction.TOO_GOOD
        if code in OPTIONAL_CODES and self.plies == 0 and win > OPTIONAL_DOUBLE_MIN_WIN:
            return CubeAction.DOUBLE
        return CubeAction.NO_DOUBLE

    def double_responses(self, boards: np.ndarray, doubler: CubeContext) -> np.ndarray:
        """Per board seen by the doubled side: gnubg's take / pass / beaver (its decision from the doubler's side).

        At a match score gnubg's own match take / pass.
        """
        if not self.cube.own:
            return super().double_responses(boards, doubler)
        if len(boards) == 0:
            return np.asarray([], dtype=str)
        if doubler.cubes is not None:
            return self._match_double_responses(boards, doubler.cubes)
        beavers = doubler.beavers
        codes, _, _ = self.cube_analysis(flip_boards(np.asarray(boards)), doubler.states, doubler.jacoby, beavers)
        responses = [
            CubeResponse.PASS
            if code in PASS_CODES
            else CubeResponse.BEAVER
            if code in BEAVER_CODES and beavers
            else CubeResponse.TAKE
            for code in codes
        ]
        return np.asarray([str(r) for r in responses])

    # --- gnubg's own match cube ---------------------------------------------------------------
    def match_cube_codes(self, boards: np.ndarray, cubes: Sequence[MatchCube]) -> tuple[np.ndarray, np.ndarray]:
        """gnubg's match decision code and P(win) per board (side on roll) at its match cube (gnubg's own MET).

        gnubg reads a score only as the points each side still needs, so the match length given
        to it is the larger of the two.
        """
        engine = self.engine or gnubg_engine()
        codes = np.empty(len(cubes), np.int64)
        win = np.empty(len(cubes))
        owner_of = {CubeState.CENTERED: CENTRED, CubeState.OWNED: ON_ROLL, CubeState.UNAVAILABLE: OPPONENT}
        for i, (board, cube) in enumerate(zip(np.asarray(boards, dtype=np.int8).reshape(-1, 26), cubes, strict=True)):
            s = cube.score
            length = max(s.away, s.opp_away)
            code, _, outputs = engine.match_cube_decision(
                board,
                self.plies,
                cube.value,
                owner_of[cube.state],
                length,
                (length - s.away, length - s.opp_away),
                s.crawford,
            )
            codes[i], win[i] = code, outputs[0][0]
        return codes, win

    def _match_double_actions(self, boards: np.ndarray, cubes: Sequence[MatchCube]) -> np.ndarray:
        """Per board (side on roll): gnubg's own match cube action."""
        actions = np.full(len(boards), str(CubeAction.NO_DOUBLE), dtype=object)
        may = np.flatnonzero([cube.can_double for cube in cubes])
        if len(may):
            codes, win = self.match_cube_codes(np.asarray(boards)[may], [cubes[int(i)] for i in may])
            actions[may] = [str(self._action(int(code), float(p))) for code, p in zip(codes, win, strict=True)]
        return np.asarray(actions.astype(str))

    def _match_double_responses(self, boards: np.ndarray, doubler_cubes: Sequence[MatchCube]) -> np.ndarray:
        """Per board seen by the doubled side: gnubg's own match take / pass (its decision from the doubler's side)."""
        codes, _ = self.match_cube_codes(flip_boards(np.asarray(boards)), doubler_cubes)
        return np.asarray([str(CubeResponse.PASS if code in PASS_CODES else CubeResponse.TAKE) for code in codes])


def make_gnubg_player(plies: int, cube: AnyCubeSpec) -> GnubgPlayer:
    """GNU Backgammon at ``plies`` with cube spec ``cube`` (money, or a match spec in matches); raises InvalidSpec."""
    _require_gnubg(f"player gnubg@{plies}")
    return GnubgPlayer(plies, cube)
