"""Hypothesis profiles: CI replays a fixed, derandomized set of examples so a run never flakes.

Set HYPOTHESIS_PROFILE=explore to search far more examples with fresh randomness, as done before
each release.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("explore", max_examples=2000, deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
