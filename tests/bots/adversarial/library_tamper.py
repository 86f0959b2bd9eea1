"""Attacks the libraries the sandbox offers (issue 24 §11): tries to write, create, rename, remove
and chmod files in /sandbox/lib (numpy, numpy.libs, cardarena_rl and its tables), to import anything
else of the host's site-packages or of the project, and to reach the host folders they come from
(the observation's ``host_paths``, sent by the test), and to import from the interpreter's own
site-packages or the system's dist-packages (``site_dirs``);
uses numpy and cardarena_rl as a policy bot does.  Prints a ``REPORT`` line (JSON) at its first move,
then plays the first legal action."""
import importlib
import json
import os
import sys

LIB = "/sandbox/lib"
TRY_IMPORTS = ["numpy", "cardarena_rl", "pyarrow", "engine", "bots", "tournaments", "duckdb", "polars",
               "pettingzoo", "gymnasium", "ray", "pytest", "pip", "setuptools", "msgspec", "pyseccomp",
               "numpy.libs", "_tensors", "_actions", "cardarena_rl._secret"]


def _targets() -> list[str]:
    """/sandbox/lib, then up to 60 folders and files of each library it shows (its folders first)."""
    out = [LIB]
    for top in sorted(os.listdir(LIB)):
        mine: list[str] = []
        for root, _, files in os.walk(os.path.join(LIB, top)):
            mine.append(root)
            mine += [os.path.join(root, f) for f in files[:3]]
        out += mine[:60]
    return out


def _writes() -> list[str]:
    done = []
    for path in _targets():
        attempts = [("append", lambda p: open(p, "ab").close()),
                    ("chmod", lambda p: os.chmod(p, 0o777)),
                    ("utime", lambda p: os.utime(p, (0, 0))),
                    ("rename", lambda p: os.rename(p, p + ".x")),
                    ("remove", lambda p: os.remove(p) if os.path.isfile(p) else os.rmdir(p))]
        if os.path.isdir(path):
            attempts.append(("create", lambda p: open(os.path.join(p, "evil.py"), "w").close()))
            attempts.append(("mkdir", lambda p: os.mkdir(os.path.join(p, "evil"))))
        for what, fn in attempts:
            try:
                fn(path)
            except OSError:
                continue
            done.append(f"{what} {path}")
    return done


def _imports() -> dict[str, str]:
    out = {}
    for name in TRY_IMPORTS:
        try:
            importlib.import_module(name)
            out[name] = "ok"
        except Exception as e:   # any failure is the expected answer (ImportError, or the import failed)
            out[name] = type(e).__name__
    return out


def _site(dirs: list[str]) -> dict[str, object]:
    """The interpreter's and the system's package folders (``site_dirs``, sent by the test): what
    they list, whether a file can be made there, and what imports once they are on sys.path."""
    listed, made = {}, []
    for d in dirs:
        try:
            listed[d] = sorted(os.listdir(d))
        except OSError as e:
            listed[d] = type(e).__name__
        try:
            open(os.path.join(d, "evil.pth"), "w").close()
            made.append(d)
        except OSError:
            pass
    sys.path.extend(dirs)
    names = ["yaml", "IPython", "apt", "cryptography", "pytest", "_pytest", "attr", "hypothesis", "awscli",
             "pip", "setuptools", "six", "certifi", "requests"]
    imported = []
    for name in names:
        try:
            importlib.import_module(name)
            imported.append(name)
        except Exception:   # any failure is the expected answer
            pass
    return {"listed": listed, "made": made, "imported": imported}


def act(observation):
    if not getattr(act, "reported", False):
        act.reported = True
        path = list(sys.path)
        import numpy as np
        from cardarena_rl import action_space, observation_encoder
        report = {
            "writes": _writes(),
            "imports": _imports(),
            "lib": sorted(os.listdir(LIB)),
            "numpy": [np.__version__, np.__file__, float(np.arange(4.0) @ np.ones(4))],
            "ids": [action_space("hartenjagen").id("play 2C"), observation_encoder("hartenjagen").shape[0]],
            "tried": len(_targets()),
            "site": _site(observation.get("site_dirs", [])),
            "reachable": [p for p in observation.get("host_paths", []) if os.path.exists(p)],
            "sys_path": path,
        }
        print("REPORT " + json.dumps(report), flush=True)
    return observation["legal_actions"][0]
