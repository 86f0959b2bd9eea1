"""docs/rl.md: its examples run (with small episode counts) and its generated tables are current."""
from __future__ import annotations

import re
import runpy
from pathlib import Path

import pytest

from bots import obsdoc

DOC = Path(__file__).resolve().parents[2] / "docs" / "rl.md"
SMALL = {"EPISODES": 3, "MATCHES": 1}
"""The examples' loop counts, made small for the test."""


def examples() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)


def test_the_generated_tables_are_current() -> None:
    current = DOC.read_text()
    assert obsdoc.splice(current, obsdoc.render_rl(), obsdoc.RL_BEGIN, obsdoc.RL_END, DOC) == current


def test_the_doc_has_its_four_examples() -> None:
    codes = examples()
    assert len(codes) == 4
    assert any("REINFORCE" in DOC.read_text() and "np.savez" in c for c in codes)


@pytest.mark.parametrize("index", range(4))
def test_an_example_runs(index: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                         capsys: pytest.CaptureFixture[str]) -> None:
    code = examples()[index]
    if "pettingzoo" in code:
        pytest.importorskip("pettingzoo")
    if "pyspiel" in code:
        pytest.importorskip("pyspiel")
    for name, n in SMALL.items():
        code = re.sub(rf"^{name} = \d+$", f"{name} = {n}", code, flags=re.M)
    monkeypatch.chdir(tmp_path)
    script = tmp_path / "example.py"
    script.write_text(code)
    runpy.run_path(str(script), run_name="__main__")
    out = capsys.readouterr().out
    if "np.savez" in code:
        assert (tmp_path / "policy.npz").exists()
    else:
        assert out.strip()


def test_the_doc_is_linked() -> None:
    root = DOC.parents[1]
    assert "docs/rl.md" in (root / "README.md").read_text()
    assert "(rl.md)" in (root / "docs" / "bots.md").read_text()
