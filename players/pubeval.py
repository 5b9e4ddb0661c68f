"""Tesauro's pubeval as a batched player (published weights, shipped in players/data)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from numba import njit

from engine.batch import children_batch, phases
from engine.position import GamePhase
from nets.lookahead import segment_argmax
from players.base import Player

WEIGHTS_FILE = Path(__file__).resolve().parent / "data" / "pubeval_weights.json"


def load_pubeval_weights() -> tuple[np.ndarray, np.ndarray]:
    """(race, contact) weight vectors of 122 floats each."""
    data = json.loads(WEIGHTS_FILE.read_text())
    return np.asarray(data["race_weights"], np.float64), np.asarray(data["contact_weights"], np.float64)


@njit(cache=True)
def pubeval_scores(kids: np.ndarray, race: np.ndarray, race_w: np.ndarray, contact_w: np.ndarray) -> np.ndarray:
    """pubeval score of each child (opponent's view, as move generation returns them) for the mover.

    ``race[i]`` picks the race or contact weights for child i, from the position before the move.
    """
    n = kids.shape[0]
    out = np.empty(n)
    for i in range(n):
        k = kids[i]
        # Mover's view: pos[p] = -k[25 - p]; mover's bar = -k[0]; opponent's bar = -k[25].
        own_total = 0
        for p in range(26):
            if k[p] < 0:
                own_total -= k[p]
        if own_total == 0:
            out[i] = 99999999.0
            continue
        s = 0.0
        w = race_w if race[i] else contact_w
        for j in range(1, 25):
            v = -k[j]  # pubeval's pos[25 - j] in the mover's view
            base = 5 * (j - 1)
            if v == -1:
                s += w[base]
            elif v == 1:
                s += w[base + 1]
            if v >= 2:
                s += w[base + 2]
            if v == 3:
                s += w[base + 3]
            if v >= 4:
                s += w[base + 4] * (v - 3) / 2.0
        opp_bar = k[25]  # the mover's opponent (on roll in k) has its bar at k[25]
        s += w[120] * opp_bar / 2.0
        s += w[121] * (15 - own_total) / 15.0
        out[i] = s
    return out


class PubevalPlayer(Player):
    """Chooses, for each (board, dice) pair, the child with the highest pubeval score; no cube of its own."""

    def __init__(self) -> None:
        super().__init__("pubeval")
        self.race, self.contact = load_pubeval_weights()

    def choose_moves(self, boards: np.ndarray, dice: np.ndarray) -> np.ndarray:
        """The chosen children (opponent's view), one per pair."""
        kids, offsets = children_batch(boards, dice)
        race = phases(boards) != GamePhase.CONTACT
        per_kid_race = np.repeat(race, np.diff(offsets))
        scores = pubeval_scores(kids, per_kid_race, self.race, self.contact)
        return kids[segment_argmax(scores, offsets)]
