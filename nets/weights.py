"""Versioned weights files: a JSON header plus raw little-endian tensors; no code is executed.

Layout: the magic ``b"JGWEIGHTS1\\n"``, an 8-byte little-endian header length, the UTF-8 JSON
header, then the tensor bytes. The header names the format version, the input encoding, each
net's architecture, the training run, and every tensor's dtype, shape and byte range.

Reading validates everything before it trusts anything: the header must be a JSON object of
bounded size, every tensor entry well formed with its byte range inside the file and its size
equal to its shape's, every float finite. Nothing is allocated from a size the header claims:
arrays are views of bytes already read, so a file can never make the loader ask for more
memory than the file itself holds.
"""

from __future__ import annotations

import glob
import hashlib
import io
import json
import math
import os
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from engine.errors import InvalidWeights, JumpgammonError

MAGIC = b"JGWEIGHTS1\n"
FORMAT_VERSION = 1
_DTYPES = {"float32": "<f4", "float64": "<f8", "int64": "<i8", "int8": "<i1"}
MAX_HEADER_BYTES = 1 << 22  # 4 MiB of JSON is far more than any run writes
MAX_TENSOR_DIMS = 4
MAX_DIMENSION = 1 << 20


def encode_weights(header: dict[str, Any], tensors: dict[str, np.ndarray]) -> bytes:
    """Serialise ``tensors`` (name -> array) with ``header`` (JSON-ready) into bytes."""
    entries = {}
    blobs = []
    offset = 0
    for name, arr in tensors.items():
        dtype = str(arr.dtype)
        if dtype not in _DTYPES:
            raise InvalidWeights(f"tensor {name!r} has unsupported dtype {dtype}")
        raw = np.ascontiguousarray(arr, dtype=_DTYPES[dtype]).tobytes()
        entries[name] = {"dtype": dtype, "shape": list(arr.shape), "offset": offset, "nbytes": len(raw)}
        blobs.append(raw)
        offset += len(raw)
    full = dict(header)
    full["format_version"] = FORMAT_VERSION
    full["tensors"] = entries
    head = json.dumps(full, sort_keys=True, allow_nan=False).encode("utf-8")
    return MAGIC + len(head).to_bytes(8, "little") + head + b"".join(blobs)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _tensor(name: str, entry: Any, body: bytes, source: str) -> np.ndarray:
    """The array one header entry describes, checked against the body; raises InvalidWeights."""
    if not isinstance(entry, dict) or set(entry) != {"dtype", "shape", "offset", "nbytes"}:
        raise InvalidWeights(f"{source}: tensor {name!r} needs exactly dtype, shape, offset and nbytes")
    dtype, shape, start, nbytes = entry["dtype"], entry["shape"], entry["offset"], entry["nbytes"]
    if not isinstance(dtype, str) or dtype not in _DTYPES:  # a list or an object is not hashable
        raise InvalidWeights(f"{source}: tensor {name!r} has unknown dtype {dtype!r}")
    if (
        not isinstance(shape, list)
        or len(shape) > MAX_TENSOR_DIMS
        or not all(_is_int(d) and 0 <= d <= MAX_DIMENSION for d in shape)
    ):
        raise InvalidWeights(
            f"{source}: tensor {name!r} has shape {shape!r} (up to {MAX_TENSOR_DIMS} sizes 0-{MAX_DIMENSION})"
        )
    if not (_is_int(start) and _is_int(nbytes)) or start < 0 or nbytes < 0 or start + nbytes > len(body):
        raise InvalidWeights(f"{source}: tensor {name!r} is out of range (offset {start!r}, {nbytes!r} bytes)")
    itemsize = np.dtype(_DTYPES[dtype]).itemsize
    if nbytes != math.prod(shape) * itemsize:
        raise InvalidWeights(f"{source}: tensor {name!r} has {nbytes} bytes for shape {shape} of {dtype}")
    arr = np.frombuffer(body, dtype=_DTYPES[dtype], count=nbytes // itemsize, offset=start).reshape(shape)
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        raise InvalidWeights(f"{source}: tensor {name!r} holds NaN or infinite values")
    return arr.astype(dtype)


def decode_weights(data: bytes, source: str = "<bytes>") -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """Parse bytes from :func:`encode_weights`; returns (header, tensors); raises InvalidWeights naming ``source``."""
    if not data.startswith(MAGIC):
        raise InvalidWeights(f"{source}: not a jumpgammon weights file (bad magic)")
    pos = len(MAGIC)
    if len(data) < pos + 8:
        raise InvalidWeights(f"{source}: truncated header")
    n = int.from_bytes(data[pos : pos + 8], "little")
    pos += 8
    if n > MAX_HEADER_BYTES or pos + n > len(data):
        raise InvalidWeights(f"{source}: header length {n} runs past the file ({len(data)} bytes) or the limit")
    try:
        header = json.loads(data[pos : pos + n].decode("utf-8"), parse_constant=_refuse_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise InvalidWeights(f"{source}: header is not valid JSON ({exc})") from None
    if not isinstance(header, dict):
        raise InvalidWeights(f"{source}: header is a JSON {type(header).__name__}, not an object")
    if header.get("format_version") != FORMAT_VERSION:
        raise InvalidWeights(f"{source}: format version {header.get('format_version')!r}, expected {FORMAT_VERSION}")
    entries = header.get("tensors")
    if not isinstance(entries, dict):
        raise InvalidWeights(f"{source}: header has no tensor table")
    body = data[pos + n :]
    tensors = {str(name): _tensor(str(name), e, body, source) for name, e in entries.items()}
    return header, tensors


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not allowed in a weights header")


def sha256_hex(path: str | Path) -> str:
    """The full hex SHA-256 of the file's bytes (OSError if unreadable): how data-set manifests name a weights file."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def weights_digest(path: str | Path) -> str:
    """``"sha256:"`` and the first 16 hex digits of the SHA-256 of the file's bytes (OSError if unreadable)."""
    return "sha256:" + sha256_hex(path)[:16]


def write_atomic(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file beside it and a rename."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)  # mkstemp makes it private; these are ordinary shared files
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def arrays_to_npz(arrays: dict[str, Any]) -> bytes:
    """Named arrays as the bytes of one uncompressed ``.npz`` archive (for :func:`write_atomic`)."""
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


def read_npz_arrays(path: str | os.PathLike[str], names: tuple[str, ...], kind: str) -> dict[str, np.ndarray]:
    """The arrays ``names`` of the ``.npz`` file ``path``, read without pickles.

    Raises JumpgammonError naming the file as not a ``kind`` when it cannot be read or lacks one of them.
    """
    if os.path.isfile(path) and not zipfile.is_zipfile(path):  # else numpy reads it as a pickle and says so
        raise JumpgammonError(f"{path}: not a {kind} (not an .npz archive)")
    try:
        with np.load(path, allow_pickle=False) as z:
            return {name: z[name] for name in names}
    except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile) as exc:
        raise JumpgammonError(f"{path}: not a {kind} ({exc})") from None


def remove_stale_temporaries(path: str | Path) -> list[Path]:
    """Delete the temporary files an interrupted :func:`write_atomic` of ``path`` left; returns them."""
    path = Path(path)
    if not path.parent.is_dir():
        return []
    stale = [p for p in path.parent.glob(f"{glob.escape(path.name)}.*.tmp") if p.is_file()]
    for p in stale:
        p.unlink(missing_ok=True)
    return stale
