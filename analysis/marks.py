"""GNU Backgammon's words for the size of an error, of a roll's luck and of a player's rate of error.

The thresholds are those GNU Backgammon 1.07 analyses with by default (``show analysis``): a
play or cube decision that costs at least 0.03 normalised equity (EMG) is doubtful, 0.06 bad,
0.12 very bad (gnubg's manual and older versions give 0.04, 0.08 and 0.16); a roll worth at
least +0.3 is lucky and +0.6 very lucky, -0.3 and -0.6 unlucky and very unlucky. A player's
rating band follows the error rate in thousandths of EMG per unforced decision (mEMG), with
gnubg's bands from "Supernatural" (under 2) to "Awful!" (35 or more); the PR convention of
eXtreme Gammon is 500 times the error per unforced decision, here in EMG.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = [
    "CLOSE_CUBE",
    "CubeError",
    "LuckMark",
    "Rating",
    "Skill",
    "luck_mark",
    "performance_rating",
    "rating_of",
    "skill_of",
]

#: A cube decision "close" enough to count (gnubg): doubling costs less than a very bad error.
CLOSE_CUBE = 0.16
#: Points of PR per EMG of error per decision (PR = 500 x the error per unforced decision).
PR_PER_EMG = 500.0


class Skill(StrEnum):
    """gnubg's mark of a checker play or cube decision by the equity it cost (EMG)."""

    NONE = ""
    DOUBTFUL = "doubtful"
    BAD = "bad"
    VERY_BAD = "very bad"


SKILL_THRESHOLDS: tuple[tuple[Skill, float], ...] = ((Skill.VERY_BAD, 0.12), (Skill.BAD, 0.06), (Skill.DOUBTFUL, 0.03))


def skill_of(error: float) -> Skill:
    """gnubg's mark of an error of ``error`` EMG (a non-negative cost to the player who chose)."""
    for skill, threshold in SKILL_THRESHOLDS:
        if error >= threshold:
            return skill
    return Skill.NONE


class LuckMark(StrEnum):
    """gnubg's mark of a roll's luck for the side that rolled."""

    VERY_UNLUCKY = "very unlucky"
    UNLUCKY = "unlucky"
    NONE = ""
    LUCKY = "lucky"
    VERY_LUCKY = "very lucky"


LUCKY = 0.3
VERY_LUCKY = 0.6


def luck_mark(luck: float) -> LuckMark:
    """gnubg's mark of a roll worth ``luck`` EMG to the side that rolled."""
    if luck >= VERY_LUCKY:
        return LuckMark.VERY_LUCKY
    if luck >= LUCKY:
        return LuckMark.LUCKY
    if luck <= -VERY_LUCKY:
        return LuckMark.VERY_UNLUCKY
    if luck <= -LUCKY:
        return LuckMark.UNLUCKY
    return LuckMark.NONE


class CubeError(StrEnum):
    """gnubg's classes of cube errors (its statistics' rows), the doubler's four and the taker's two."""

    MISSED_DOUBLE_BELOW_CP = "missed double below cash point"  # no double where double, take was right
    MISSED_DOUBLE_ABOVE_CP = "missed double above cash point"  # no double where double, pass was right
    WRONG_DOUBLE_BELOW_DP = "wrong double below double point"  # doubled where no double, take was right
    WRONG_DOUBLE_ABOVE_TG = "wrong double above too-good point"  # doubled where too good to double was right
    WRONG_TAKE = "wrong take"
    WRONG_PASS = "wrong pass"


class Rating(StrEnum):
    """gnubg's rating bands of an error rate, best first."""

    SUPERNATURAL = "Supernatural"
    WORLD_CLASS = "World class"
    EXPERT = "Expert"
    ADVANCED = "Advanced"
    INTERMEDIATE = "Intermediate"
    CASUAL = "Casual player"
    BEGINNER = "Beginner"
    AWFUL = "Awful!"


#: Upper bounds (mEMG per unforced decision, exclusive) of each band but the last.
RATING_BOUNDS: tuple[tuple[Rating, float], ...] = (
    (Rating.SUPERNATURAL, 2.0),
    (Rating.WORLD_CLASS, 5.0),
    (Rating.EXPERT, 8.0),
    (Rating.ADVANCED, 12.0),
    (Rating.INTERMEDIATE, 18.0),
    (Rating.CASUAL, 26.0),
    (Rating.BEGINNER, 35.0),
)


class LuckRating(StrEnum):
    """gnubg's rating of a player's luck per move (its manual's "Luck ratings"), unluckiest first."""

    GO_TO_BED = "Go to bed"
    BAD_DICE = "Bad dice, man!"
    NONE = "None"
    GOOD_DICE = "Good dice, man!"
    GO_TO_LAS_VEGAS = "Go to Las Vegas"


def luck_rating_of(luck_per_move_emg: float) -> LuckRating:
    """gnubg's luck rating of a luck rate in EMG per move (above +0.06, above +0.03, between, below -0.03, -0.06)."""
    if luck_per_move_emg > 0.06:
        return LuckRating.GO_TO_LAS_VEGAS
    if luck_per_move_emg > 0.03:
        return LuckRating.GOOD_DICE
    if luck_per_move_emg < -0.06:
        return LuckRating.GO_TO_BED
    if luck_per_move_emg < -0.03:
        return LuckRating.BAD_DICE
    return LuckRating.NONE


def rating_of(error_rate_memg: float) -> Rating:
    """gnubg's band of an error rate in mEMG per unforced decision."""
    for rating, bound in RATING_BOUNDS:
        if error_rate_memg < bound:
            return rating
    return Rating.AWFUL


def performance_rating(error_emg: float, decisions: int) -> float | None:
    """PR: 500 times the EMG lost per unforced decision; None without a decision."""
    return PR_PER_EMG * error_emg / decisions if decisions else None
