"""Writes terminal escape sequences (clear the screen, set the title, colours) to stdout and stderr,
then raises an exception whose message is made of them."""
import sys
from typing import Any

ESC = "\x1b[2J\x1b[H\x1b]0;pwned\x07\x1b[31m"


def act(observation: dict[str, Any]) -> str:
    print(ESC + "stdout" + "\x1b[0m\r\x08", flush=True)
    print(ESC + "stderr", file=sys.stderr, flush=True)
    raise RuntimeError(ESC + "red alert\x1b[0m\x00\x07")
