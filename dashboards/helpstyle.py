"""Conventional help for every ``cardarena`` command: arguments as ``PATH``/``GAMES``, not ``{path}``.

typer 0.29's plain help writes a required argument as ``{directory}`` in the usage line, lists it as
``directory <path>``, and shows a repeatable option as ``--games <list[str]>``: Python spellings that
a user types nothing like.  :func:`conventional` walks the built click command tree once, before it
runs, and gives every argument the upper-case name the usage line shows (``DIRECTORY``, ``[SPEC]``,
``NAME...``) and every list-valued option a metavar named after the option (``--games GAMES``).
``tests/test_cli.py::test_usage_lines_show_conventional_metavars`` reads every command's help, so a
typer release that renders these otherwise fails there, not in front of a user.
"""
from __future__ import annotations

from typing import Any

from typer.core import TyperArgument, TyperOption


class ConventionalArgument(TyperArgument):
    """A typer argument shown as ``NAME`` (required), ``[NAME]`` (optional), ``NAME...`` (variadic)."""

    def _usage_display_name(self) -> str:
        name = self.display_name_raw.upper()
        name = name if self.required else f"[{name}]"
        return name + ("..." if self.nargs != 1 else "")

    def _rich_display_name(self) -> str:
        return self.display_name_raw.upper() + ("..." if self.nargs != 1 else "")

    def display_type_rich(self, ctx: Any) -> str | None:
        return None  # the upper-case name says what it is; its help line says the rest


def conventional(command: Any) -> Any:
    """Give every argument and list option of ``command`` and its subcommands conventional names (in
    place); returns ``command``."""
    for param in getattr(command, "params", ()):
        if type(param) is TyperArgument:
            param.__class__ = ConventionalArgument
        elif (isinstance(param, TyperOption) and param.metavar is None and param.multiple
              and param.opts):
            longest = max(param.opts, key=len)
            param.metavar = longest.lstrip("-").replace("-", "_").upper()
    for sub in getattr(command, "commands", {}).values():
        conventional(sub)
    return command
