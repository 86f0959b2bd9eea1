"""The sandbox's message codec: JSON lines both ways, msgspec's codec where it is installed.

Both ends encode and decode with msgspec's JSON codec where it is installed (a project dependency:
5 µs a Hartenjagen observation against 22 µs for the standard library's ``json``): the sandbox binds
only msgspec's own package folder, read-only, at ``/sandbox/codec/msgspec`` (:func:`codec_dir`), and
the runner imports it before the bot's code runs.  Where msgspec is absent, or cannot be imported
inside the sandbox, that end uses ``json`` on the same bytes (:data:`CODEC` here; the runner names its
own in its ready message).  Whatever comes back, malformed, truncated, nested too deep or not an
object, is the bot's ``illegal`` move, never an error of this process.
"""
from __future__ import annotations

import json
import os
from functools import cache
from typing import Any

try:
    import msgspec
except ImportError:  # pragma: no cover - msgspec is a dependency; json reads and writes the same bytes
    msgspec = None  # type: ignore[assignment]

CODEC_INSIDE = "/sandbox/codec"
"""Where the sandbox shows the codec's package (``/sandbox/codec/msgspec``)."""


def _json_encode(obj: Any) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode()


if msgspec is not None:
    CODEC = "msgspec"
    _ENC = msgspec.json.Encoder().encode
    _DEC = msgspec.json.Decoder().decode

    def encode_message(obj: Any) -> bytes:
        """One message as JSON (no newline)."""
        try:
            return _ENC(obj)
        except (UnicodeEncodeError, msgspec.EncodeError, OverflowError, TypeError):
            return _json_encode(obj)   # what msgspec refuses (a lone surrogate): json writes it escaped

    def decode_message(line: bytes) -> Any:
        """One message; what msgspec refuses is read as ``json`` reads it (a ``\\ud800`` escape that
        json wrote, ``NaN``), so both codecs accept exactly the same lines."""
        try:
            return _DEC(line)
        except msgspec.DecodeError:
            return json.loads(line)
else:  # pragma: no cover
    CODEC = "json"
    encode_message = _json_encode
    decode_message = json.loads

CODECS = ("msgspec", "json")

DECODE_ERRORS = (ValueError, RecursionError)
"""What decoding a line may raise (msgspec's ``DecodeError`` and json's errors are ``ValueError``s;
both raise ``RecursionError`` on a deeply nested line)."""


@cache
def codec_dir() -> str | None:
    """The folder of msgspec's package, bound into the sandbox for the runner (None: not installed,
    or not a plain folder: the runner then uses ``json``)."""
    if msgspec is None:
        return None
    where = os.path.dirname(os.path.realpath(msgspec.__file__))
    return where if os.path.basename(where) == "msgspec" and os.path.isdir(where) else None


def show(msg: Any, limit: int = 80) -> str:
    """A short text of a decoded reply, for a fault's reason (never fails, whatever its nesting)."""
    import reprlib

    r = reprlib.Repr()
    r.maxlevel, r.maxstring, r.maxother = 3, limit, limit
    return r.repr(msg)[:limit]

