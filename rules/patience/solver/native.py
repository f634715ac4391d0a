"""The solver's hot modules compiled to C by mypyc: the speed path of the search.

``build()`` (``make compiled``) compiles the modules of :data:`MODULES` together, with
mypyc and the system's C compiler, into ``compiled/`` beside them (git-ignored), with
the SHA-256 of each source it compiled. The package puts
that folder first on its search path (``search_path``, called by ``__init__``), so that
the compiled modules are imported in place of the Python ones, only when:

- the speed paths are on (``PATIENCE_SPEED_PATHS`` is not off, as for the engine), and
- every compiled module is there, built for this Python, from the sources as they are
  now (a source edited since the build turns the whole build off, never a part of it).

Otherwise, or where no C compiler was found, the Python modules run: they are the
reference, and tests/solver/test_native.py holds the compiled ones to the same verdicts,
lines and positions entered on every game.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

# the modules of the search's inner loop (hints, outlook and the rest stay Python)
MODULES = ("model", "safe_moves", "pruning", "dead_ends", "policy", "search")
PACKAGE = Path(__file__).resolve().parent
BUILD = PACKAGE / "compiled"
STAMP = BUILD / "sources.json"
SPEED_PATHS = "PATIENCE_SPEED_PATHS"
# The modules are compiled together (calls between them stay in C), with their shared
# library in the package as `patience.solver.hot__mypyc`, found through the search path
# like the modules themselves.
GROUP = "hot"
_SETUP = f"""
from setuptools import setup
from mypyc.build import mypycify

paths = [f"patience/solver/{{name}}.py" for name in {MODULES!r}]
modules = mypycify(paths, group_name="patience.solver.{GROUP}")
setup(name="patience-solver-compiled", ext_modules=modules)
"""
_OFF = frozenset({"0", "off", "false", "no", "n", "f"})


def speed_paths_on(environ: Mapping[str, str] = os.environ) -> bool:
    return environ.get(SPEED_PATHS, "on").strip().lower() not in _OFF


def fingerprints(package: Path = PACKAGE) -> dict[str, str]:
    """The SHA-256 of each module's source."""
    return {
        name: hashlib.sha256((package / f"{name}.py").read_bytes()).hexdigest() for name in MODULES
    }


def extension_suffix() -> str:
    """The file name ending of a compiled module for the Python running."""
    return importlib.machinery.EXTENSION_SUFFIXES[0]


def usable(build: Path = BUILD, package: Path = PACKAGE) -> bool:
    """Whether the build in ``build`` is complete, for this Python, and of the sources
    in ``package`` as they are now."""
    try:
        stamp = json.loads((build / STAMP.name).read_text())
    except (OSError, ValueError):
        return False
    if stamp.get("suffix") != extension_suffix() or stamp.get("sources") != fingerprints(package):
        return False
    names = (*MODULES, f"{GROUP}__mypyc")
    return all((build / f"{name}{extension_suffix()}").is_file() for name in names)


def search_path(path: list[str], environ: Mapping[str, str] = os.environ) -> list[str]:
    """The package's search path: the build first where it is to be used."""
    if speed_paths_on(environ) and usable():
        return [str(BUILD), *path]
    return path


def compiled() -> bool:
    """Whether the solver imported here runs the compiled modules."""
    from . import search

    return not str(search.__file__).endswith(".py")


def build(build: Path = BUILD) -> int:
    """Compiles every module into ``build``; 0 on success, else the failing status
    (the build folder then holds no usable build)."""
    if shutil.which("cc") is None and shutil.which("gcc") is None:
        print("no C compiler: the solver runs its Python modules", file=sys.stderr)
        return 1
    shutil.rmtree(build, ignore_errors=True)
    sources = fingerprints()
    with tempfile.TemporaryDirectory() as scratch:
        # a copy of the package to compile in, so that nothing is ever written beside
        # the sources (a compiled module there would be imported whatever the switch)
        shutil.copytree(
            PACKAGE.parent, Path(scratch, "patience"), ignore=shutil.ignore_patterns("compiled")
        )
        done = subprocess.run(
            [sys.executable, "-c", _SETUP, "build_ext", "--inplace"],
            cwd=scratch,
            stdout=subprocess.DEVNULL,
        )
        if done.returncode:
            return done.returncode
        build.mkdir(parents=True)
        for name in (*MODULES, f"{GROUP}__mypyc"):
            shutil.copy(Path(scratch, "patience", "solver", f"{name}{extension_suffix()}"), build)
    stamp = {"suffix": extension_suffix(), "sources": sources}
    (build / STAMP.name).write_text(json.dumps(stamp, indent=1) + "\n")
    return 0
