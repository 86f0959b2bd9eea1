"""Start-up cost of the command line, as a ratio to ``python -c "import typer, rich"``.

    python bench/startup.py [--runs 15]

Each command is a fresh process of the project's interpreter; the runs of all commands are
interleaved, so that each round sees the same load, and for each command the median over the rounds
of its time divided by the baseline's time in the same round is printed (and the best time of each).
``typer floor`` is a one-command typer app with one ``--json`` flag: what typer itself costs to run a
command with an option (its parameter coercion imports pydantic), which no command of ours can go
below.  Exit 1 when ``--help`` or ``games`` is over ``--target`` (default 3) times the baseline.
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

FLOOR = """
import typer
app = typer.Typer(add_completion=False)
@app.command()
def games(as_json: bool = typer.Option(False, "--json")) -> None:
    print("x")
@app.command()
def other() -> None:
    pass
app()
"""

COMMANDS: dict[str, list[str]] = {
    "import typer, rich": ["-c", "import typer, rich"],
    "typer floor": ["-c", FLOOR, "games", "--json"],
    "cardarena --help": ["-m", "dashboards", "--help"],
    "cardarena games": ["-m", "dashboards", "games"],
    "cardarena games --json": ["-m", "dashboards", "games", "--json"],
    "cardarena bots --help": ["-m", "dashboards", "bots", "--help"],
}
TARGETS = ("cardarena --help", "cardarena games")


def once(args: list[str]) -> float:
    t = time.perf_counter()
    subprocess.run([sys.executable, *args], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=True)
    return time.perf_counter() - t


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--target", type=float, default=3.0)
    a = ap.parse_args()
    times: dict[str, list[float]] = {k: [] for k in COMMANDS}
    for args in COMMANDS.values():   # warm the file cache once
        once(args)
    for _ in range(a.runs):
        for name, args in COMMANDS.items():
            times[name].append(once(args))
    base = times["import typer, rich"]
    print(f"{'command':26} {'best ms':>8} {'median ms':>10} {'ratio (median of rounds)':>26}")
    worst = 0.0
    for name, ts in times.items():
        ratio = statistics.median(t / b for t, b in zip(ts, base, strict=True))
        if name in TARGETS:
            worst = max(worst, ratio)
        print(f"{name:26} {min(ts) * 1e3:8.0f} {statistics.median(ts) * 1e3:10.0f} {ratio:25.2f}x")
    print(f"target: {', '.join(TARGETS)} within {a.target:g}x of the baseline: "
          + ("met" if worst <= a.target else f"NOT met ({worst:.2f}x)"))
    return 0 if worst <= a.target else 1


if __name__ == "__main__":
    sys.exit(main())
