"""Bot-supplied text, made safe at the boundary (standard library only).

Every string a bot controls (a fault reason, a traceback excerpt, its stdout and stderr, the action
text quoted in an illegal-move reason, its ``GAMES`` entries) passes through :func:`clean_text`
before the match, the logs or a terminal see it:

* lone surrogates are dropped (they cannot be encoded as UTF-8: Parquet and ``print`` fail on them);
* ANSI and other terminal escape sequences (CSI ``ESC [ ... m``, OSC ``ESC ] ... BEL``, the C1
  forms, two-character ``ESC x``) are removed, so a bot cannot repaint the terminal;
* control characters are removed, except a newline where the text may be multi-line (a tab becomes
  a space); in one-line text a newline becomes a space; Unicode bidirectional overrides are removed;
* the length is capped, with a note of how much was cut.

>>> clean_text("ValueError: \\ud800 \\x1b[2J\\x1b[31mred\\x1b[0m\\x07")
'ValueError:  red'
>>> clean_text("a\\nb", multiline=True), clean_text("a\\nb")
('a\\nb', 'a b')
>>> clean_text("x" * 20, limit=10)
'xxxxxxxxxx... (10 more characters)'
"""
from __future__ import annotations

import re

REASON_CHARS = 1000
"""Longest one-line text kept from a bot (a fault reason, an action)."""
TRACEBACK_CHARS = 8000
"""Longest multi-line text kept from a bot (a traceback excerpt, its output excerpt)."""

_ESCAPES = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?"        # CSI ... final byte (a cut-off one too)
    r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])"  # OSC, DCS, SOS, PM, APC ... up to BEL or ST
    r"[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[ -/]*[0-~]?"                         # two-character (and nF) escapes, or a lone ESC
)
_SURROGATES = re.compile("[\ud800-\udfff]")
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]")


def clean_text(text: str, limit: int = REASON_CHARS, multiline: bool = False) -> str:
    """``text`` without surrogates, escape sequences and control characters, at most ``limit``
    characters plus a note of the cut (a non-string is shown by its ``repr``)."""
    s = _SURROGATES.sub("", text if isinstance(text, str) else repr(text))
    s = _ESCAPES.sub("", s)
    s = s.replace("\r\n", "\n").replace("\r", "\n").replace("\t", " ")
    if not multiline:
        s = s.replace("\n", " ")
    s = _CONTROLS.sub("", s)
    if len(s) > limit:
        s = s[:limit] + f"... ({len(s) - limit} more characters)"
    return s


def clean_lines(text: str, limit: int = TRACEBACK_CHARS) -> str:
    """Multi-line bot text (a traceback or output excerpt), cleaned and capped."""
    return clean_text(text, limit, multiline=True)


__all__ = ["REASON_CHARS", "TRACEBACK_CHARS", "clean_lines", "clean_text"]
