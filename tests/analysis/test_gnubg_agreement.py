"""``jumpgammon analyse`` against GNU Backgammon 1.07's ``analyse match`` on 26 files (tests/analysis/agreement.py).

The nets differ (and gnubg analysed at 2 ply, this test at 0 ply), so the checks are statistical
bounds, set below the figures measured when the fixture was made (docs/analysis.md): a broken unit,
sign or alignment drops a correlation far below them.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.analysis.agreement import Agreement, agreement


@pytest.fixture(scope="module")
def found() -> Agreement:
    result = agreement(0)
    print(
        f"\nagreement at 0 ply: {result.unforced} unforced moves; bad or very bad: gnubg {result.marked_gnubg}, "
        f"ours {result.marked_ours}, both {result.marked_both} (overlap {result.overlap:.2f}); "
        f"errors r={result.errors.r:.3f}, luck r={result.luck.r:.3f}, player rates r={result.rates.r:.3f} "
        f"(in MWC r={result.mwc_rates.r:.3f}) "
        f"(mean gap {result.mean_rate_gap:.1f} mEMG); cube {result.cube}; close {result.close_cube}; "
        f"no double r={result.cube_no_double.r:.3f}, margin r={result.cube_margin.r:.3f}, "
        f"same verdict {result.cube_same_double:.3f}"
    )
    return result


@pytest.mark.slow
def test_every_file_and_move_is_compared(found: Agreement) -> None:
    assert found.files == 26 and found.moves > 3000 and found.unforced > 2000


def test_moves_marked_bad_mostly_agree(found: Agreement) -> None:
    # measured 312 of gnubg's 395 (0.790, binomial SE 0.020) and of our 404 (0.772, SE 0.021), overlap 312 of 487
    # (0.64, SE 0.022): each floor is 3 SEs below
    assert found.marked_both >= 0.73 * found.marked_gnubg  # we find most of gnubg's bad moves
    assert found.marked_both >= 0.71 * found.marked_ours  # and most of ours are gnubg's too
    assert found.overlap > 0.57


def test_per_move_errors_correlate(found: Agreement) -> None:
    assert found.errors.low > 0.85
    assert 0.7 < found.errors.slope < 1.3


def test_per_roll_luck_correlates(found: Agreement) -> None:
    assert found.luck.low > 0.95
    assert 0.85 < found.luck.slope < 1.15


def test_an_opening_rolls_luck_is_judged_as_gnubg_judges_it(found: Agreement) -> None:
    """gnubg's LuckFirst counts winning the opening roll as luck: averaged over the 30 ways the opening can go, not
    over the winner's 15 rolls alone, which put ours about 0.04 below gnubg's on every game's first roll."""
    assert abs(found.opening_luck_gap) < 0.01


def test_player_error_rates_side_by_side(found: Agreement) -> None:
    assert found.rates.n >= 50 and found.rates.low > 0.95
    gaps = np.array([abs(p.gnubg - p.ours) for p in found.players])
    assert found.mean_rate_gap == pytest.approx(gaps.mean())
    # measured 5.8 mEMG a move: held within 3 SEs (of the mean over the players) of that
    assert found.mean_rate_gap < 5.8 + 3 * gaps.std(ddof=1) / np.sqrt(len(gaps))


def test_player_error_rates_in_mwc_side_by_side(found: Agreement) -> None:
    """gnubg's bracketed rates at a match score: MWC per unforced move (0-ply: r 0.989, slope 1.01)."""
    assert found.mwc_rates.n >= 40 and found.mwc_rates.low > 0.95
    assert 0.85 < found.mwc_rates.slope < 1.15


def test_cube_error_classes_are_counted_alike(found: Agreement) -> None:
    gnubg_total = sum(g for g, _ in found.cube.values())
    ours_total = sum(o for _, o in found.cube.values())
    # counts of errors differ by chance as two Poisson counts would, SE sqrt(g + o) (measured 161 and 174 in all;
    # 51 and 73 missed doubles below the cash point, the widest, 2.0 SEs apart): 3 SEs at most
    assert abs(ours_total - gnubg_total) <= 3 * np.sqrt(ours_total + gnubg_total)
    for kind, (g, o) in found.cube.items():
        assert abs(o - g) <= 3 * np.sqrt(g + o), kind
    assert abs(found.close_cube[1] - found.close_cube[0]) <= 3 * np.sqrt(sum(found.close_cube))  # 483 and 505


def test_rating_bands_are_gnubgs(found: Agreement) -> None:
    same, total = found.ratings_match_gnubg
    assert total > 100 and same == total


def test_cube_decisions_agree(found: Agreement) -> None:
    assert found.cube_no_double.n > 1500 and found.cube_no_double.low > 0.97
    assert found.cube_margin.low > 0.95  # how far doubling is from right, the figure that decides
    # measured 0.964 over some 1,900 decisions (binomial SE 0.0043): 3 SEs below
    assert found.cube_same_double > 0.95
