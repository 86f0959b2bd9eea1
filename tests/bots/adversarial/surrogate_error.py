"""Raises an exception whose message is a lone surrogate (it cannot be encoded as UTF-8: it broke
the Parquet log and ``bots validate``), after printing one to stdout."""
import sys
from typing import Any


def act(observation: dict[str, Any]) -> str:
    sys.stdout.buffer.write(b"\xed\xa0\x80 bad bytes\n")
    sys.stdout.flush()
    raise ValueError("\ud800")
