"""Average the nets of weight files fitted from the same start (a "model soup") into one candidate.

usage: python -m tools.supervised.soup OUT.jgw A.jgw B.jgw [...]

Every input must hold the same nets with the same shapes; the output keeps the first file's
header, with a ``soup`` record naming the inputs. Loading the result checks it like any weights file.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from nets.evaluator import load_evaluator
from nets.weights import decode_weights, encode_weights, write_atomic


def soup(out: Path, sources: list[Path]) -> None:
    """Write to ``out`` the element-wise mean of the tensors of ``sources`` (same names and shapes)."""
    decoded = [decode_weights(p.read_bytes(), str(p)) for p in sources]
    header, first = decoded[0]
    for path, (_, tensors) in zip(sources[1:], decoded[1:], strict=True):
        if set(tensors) != set(first) or any(tensors[k].shape != first[k].shape for k in first):
            raise ValueError(f"{path}: other nets or shapes than {sources[0]}")
    mean = {k: np.mean([t[k] for _, t in decoded], axis=0).astype(first[k].dtype) for k in first}
    header = dict(header, soup=[str(p) for p in sources])
    write_atomic(out, encode_weights(header, mean))
    load_evaluator(out, bearoff=False)  # refuses a file that does not load


if __name__ == "__main__":
    if len(sys.argv) < 4:
        print("usage: python -m tools.supervised.soup OUT.jgw A.jgw B.jgw [...]", file=sys.stderr)
        sys.exit(2)
    soup(Path(sys.argv[1]), [Path(a) for a in sys.argv[2:]])
