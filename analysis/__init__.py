"""Analysis of whole games and matches, as GNU Backgammon's ``analyse match`` does: errors, luck, ratings.

:func:`analyse_file` reads a file (Jellyfish ``.mat``, gnubg's ``.sgf`` or this project's ``--save``
lines), replays every game through the rules and judges every decision in a few batched calls
(money under the cube model of ``--cube``, :mod:`analysis.cubemodel`; beyond 0 ply each distinct
board once, :mod:`analysis.deep`); the result is a
tree of dataclasses (:class:`~analysis.summary.FileAnalysis`) that :mod:`analysis.report` prints
as text or JSON and :mod:`analysis.html` as a page.
"""
