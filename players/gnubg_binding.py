"""GNU Backgammon's engine in process: the ``gnubg`` package, its boards, and its C cube functions through ctypes.

The binding layer under :mod:`players.gnubg_player` (no player here). Install the optional extra
with ``pip install -e ".[gnubg]"``; without it :data:`gnubg` is None and :func:`require_gnubg`
raises :class:`InvalidSpec` saying how to get it. Boards are this project's int8 (n, 26) arrays
seen by the side on roll; gnubg's board is ``(not on roll, on roll)``, each 25 counts from its own
side (24 = bar): :func:`gnubg_boards` for the Python API, :func:`c_boards` for the C engine.

The package is gnubg after 1.07: at 0 and 1 ply its cubeful evaluation uses a cube life of 0.76 in
contact and crashed positions and 0.0025 * pips + 0.60 (within [0.6, 0.8]) in races (gnubg commit
4975982b), not 1.07's 0.68 and 0.00125 * pips + 0.55 that :mod:`cube.gnubg_model` reproduces; 2 ply
and bear-offs are unchanged. Its 0-ply double/take is up to about 0.07 lower, and about 2.4% of its
double decisions differ from the ``gnubg`` cube spec's (docs/experiments.md).

gnubg's own cube: the package's Python API gives no cubeful equity. ``gnubg.evaluate`` returns
gnubg's ``OUTPUT_EQUITY`` (the *cubeless* equity) as its sixth value even with a cubeful
evalcontext (the cubeful one, ``OUTPUT_CUBEFUL_EQUITY``, is the seventh output and is dropped: the
value does not move when the cube changes hands), and ``gnubg.hint`` refuses cube actions ("Hints
for cube actions not yet implemented"). The extension module exports gnubg's C engine, so
:class:`GnubgEngine` calls, through :mod:`ctypes`, the functions gnubg's ``hint`` and its external
mode use for a cube decision:

1. ``SetCubeInfo``: a money cubeinfo with cube 1, the side on roll as player 1 (``fMove = 1``, the
   external mode's convention, since board[1] is on roll), the cube centred (owner -1) or owned by
   the side on roll (owner 1), Jacoby and beavers as passed (the binding's ``gnubg.cubeinfo``
   always sets Jacoby on and beavers off). With Jacoby and a centred cube gnubg prices gammons at 0.
2. ``GeneralCubeDecisionE``: the cubeful evaluation at ``plies`` (evalcontext cubeful, deterministic,
   pruning on) of two cube positions: as it is (no double), and the cube doubled to 2 and owned
   by the opponent (double, take).
3. ``FindCubeDecision``: the equities ``[optimal, no double, double take, double pass]`` and
   gnubg's cube decision code (:class:`CubeDecisionCode`).

Normalisation: money equities are the side on roll's (the doubler's), per unit of the current cube:
no double is the cubeful equity with the cube as it is; double/take is twice the cubeful equity
with the doubled cube (``GeneralCubeDecisionE`` multiplies it by 2); double/pass is +1.0. The
cube's value therefore does not matter and 1 is used. gnubg's decision from them: double when
double/take and double/pass are both at least no double; then take when double/pass exceeds
double/take, else pass; too good when no double exceeds double/pass and gnubg sees gammon chances;
no double otherwise; beaver (beavers only) when double/take is between -2 and 0 and below double/pass
(see gnubg's ``FindBestCubeDecision``).

The C declarations below copy gnubg's structs (``cubeinfo``: eight ints, four floats, the variant;
``evalcontext``: bit fields cubeful:1, plies:4, prune:1, deterministic:1, then the noise). Before the
first decision :class:`GnubgEngine` checks them against the package itself (``SetCubeInfo`` against
``gnubg.cubeinfo``, ``GeneralEvaluationE`` against ``gnubg.evaluate`` at every ply, and the decision
codes against ``FindBestCubeDecision`` on chosen equities) and refuses to decide if anything
differs, rather than read garbage.
"""

from __future__ import annotations

import ctypes
from enum import IntEnum
from typing import Any

import numpy as np

from engine.errors import InvalidSpec

try:
    import gnubg
    from gnubg import _gnubg as gnubg_extension
except ImportError:  # the optional extra is not installed: require_gnubg says how to get it
    gnubg = None
    gnubg_extension = None

INSTALL_HINT = 'pip install "gnubg==1.1.0a16"'
MAX_PLIES = 2  # the deepest evaluation the binding offers (and checks)
NUM_ROLLOUT_OUTPUTS = 7  # gnubg's outputs: five probabilities, cubeless equity, cubeful equity
OUTPUT_CUBEFUL_EQUITY = 6
#: The side on roll is gnubg's player 1 (board[1]); the opponent is player 0.
ON_ROLL, OPPONENT, CENTRED = 1, 0, -1
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


def require_gnubg(what: str) -> None:
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


# --- gnubg's C engine, for the cube -----------------------------------------------------------


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
        require_gnubg("gnubg's cube")
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
                "in players/gnubg_binding.py: " + "; ".join(problems)
            )


_ENGINE: GnubgEngine | None = None


def gnubg_engine() -> GnubgEngine:
    """The shared, checked :class:`GnubgEngine` (built on first use)."""
    global _ENGINE
    if _ENGINE is None:
        _ENGINE = GnubgEngine()
    return _ENGINE
