"""Which engine build is loaded: mypyc-compiled C extensions, or pure Python (issue 9).

An install compiles the engine's hot modules (setup.py `COMPILED`) unless it was
made with `SHENGJI_PURE=1`. At run time `SHENGJI_PURE=1` makes Python import the
pure-Python sources even where compiled extensions are installed, so one install
can run (and test) both; `shengji --version` says which one is in use.
"""

from __future__ import annotations

import copyreg
import dataclasses
import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

#: the modules setup.py compiles with mypyc: the engine's inner loop (card tables, trump
#: order, shapes, follow rules, trick resolution, declarations, scoring, the round's
#: records, the round state machine, views) and the heuristic bot with the knowledge it
#: keeps (the rollout policy of the expert's search), and the expert's rollout loop.
#: Modules that take input as it comes (actions, options) and the events stay
#: interpreted, so malformed input is refused with the engine's own errors.
COMPILED = (
    "cards", "trump", "shapes", "follow", "trick", "declare", "scoring", "results", "round",
    "views", "driver", "bots.knowledge", "bots.heuristic_base", "bots.heuristic_declare",
    "bots.heuristic_bury", "bots.heuristic_lead", "bots.heuristic_follow", "bots.heuristic",
    "bots.rollout", "bots.sampling",
)

#: the modules setup.py compiles with Cython (issue 12): the RL environment's table and
#: observer, which write single bytes and floats into buffers and call each other at every
#: step (C stores and C calls there; mypyc has no typed buffers), and the PettingZoo layer
#: over them (`shengji_v0`: its per-step `last`/`step` in a C stepper). Their C types are in the
#: `.pxd` beside each `.py`; the `.py` stays the one source of the logic. `env.arrays`
#: (the observation and mask arrays a step hands out) is built from its `.pyx`, over
#: numpy's C API, which pure-Python-mode Cython cannot reach; its `.py` is the reference.
CYTHONIZED = ("env.table", "env.observer", "env.arrays", "env.shengji_v0")

#: every module that has a compiled build
ACCELERATED = COMPILED + CYTHONIZED

_HERE = Path(__file__).resolve().parent


def pure_requested() -> bool:
    """True if the environment asks for the pure-Python engine (`SHENGJI_PURE=1`)."""
    return os.environ.get("SHENGJI_PURE", "") not in ("", "0")


class _SourceFirst(importlib.abc.MetaPathFinder):
    """Finds `shengji.<compiled module>` in its `.py` source, ignoring the extension."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        prefix = f"{__package__}."
        name = fullname[len(prefix):] if fullname.startswith(prefix) else ""
        if name not in ACCELERATED:
            return None
        source = _HERE / f"{_rel(name)}.py"
        if not source.is_file():
            return None
        loader = importlib.machinery.SourceFileLoader(fullname, str(source))
        return importlib.util.spec_from_file_location(fullname, source, loader=loader)


def install_pure_finder() -> None:
    """Make the engine modules load from source (idempotent; before they are imported)."""
    if not any(isinstance(f, _SourceFirst) for f in sys.meta_path):
        sys.meta_path.insert(0, _SourceFirst())


def engine_build(names: Sequence[str] = COMPILED) -> str:
    """`"compiled"` if the modules of `names` that are loaded are compiled extensions
    (by default the engine's, mypyc), `"pure"` if none is, else `"mixed"`."""
    loaded = [sys.modules.get(f"{__package__}.{name}") for name in names]
    compiled = [
        not str(getattr(m, "__file__", "")).endswith(".py") for m in loaded if m is not None
    ]
    if all(compiled):
        return "compiled"
    return "pure" if not any(compiled) else "mixed"


#: written by setup.py beside the compiled modules: the hash of each source it compiled
MANIFEST = "_compiled_sources.json"


def compiled_source(path: Path) -> Path:
    """What setup.py compiles for the module whose source is `path`: a Cython `.pyx`
    beside it if there is one (a C implementation of the same functions, the `.py`
    being the pure-Python reference), else the `.py` itself."""
    pyx = path.with_suffix(".pyx")
    return pyx if pyx.is_file() else path


def source_hash(path: Path) -> str:
    """The SHA-256 of a source file, as setup.py records it; for a module with a Cython
    `.pxd` or `.pyx` beside it, of those files too (what was compiled)."""
    h = hashlib.sha256(path.read_bytes())
    for extra in (path.with_suffix(".pxd"), path.with_suffix(".pyx")):
        if extra.is_file():
            h.update(extra.read_bytes())
    return h.hexdigest()


def stale_compiled(here: Path = _HERE, names: Sequence[str] = ACCELERATED) -> list[str]:
    """Compiled modules whose source differs from the one they were built from (a
    development checkout edited, or switched branch, without reinstalling)."""
    try:
        built = json.loads((here / MANIFEST).read_text())
    except (OSError, ValueError):
        built = {}
    out = []
    for name in names:
        source = here / f"{_rel(name)}.py"
        has_ext = any(
            (here / f"{_rel(name)}{s}").is_file() for s in importlib.machinery.EXTENSION_SUFFIXES
        )
        if has_ext and source.is_file() and built.get(name) != source_hash(source):
            out.append(name)
    return out


def choose_engine() -> None:
    """Called once by `shengji/__init__`: load the pure-Python engine if it is asked for
    (`SHENGJI_PURE=1`) or if the compiled one is older than its sources (with a warning:
    running stale compiled code would silently ignore the edits)."""
    if pure_requested():
        install_pure_finder()
        return
    stale = stale_compiled()
    if stale:
        warnings.warn(
            f"shengji: the compiled engine is older than its sources ({', '.join(stale)}); "
            "using the pure-Python engine. Reinstall (pip install -e .) to compile it again.",
            RuntimeWarning, stacklevel=3,
        )
        install_pure_finder()


def compiled_available(names: Sequence[str] = ACCELERATED) -> bool:
    """True if compiled extensions of every module of `names` are installed beside the
    sources (by default the engine's and the RL environment's)."""
    suffixes = importlib.machinery.EXTENSION_SUFFIXES
    return all(
        any((_HERE / f"{_rel(name)}{s}").is_file() for s in suffixes) for name in names
    )


def _rel(name: str) -> str:
    """`bots.heuristic` -> `bots/heuristic` (a module's path under the package)."""
    return name.replace(".", "/")


def _rebuild(cls: type, values: tuple[object, ...]) -> object:
    return cls(*values)


def _reduce_dataclass(obj: object) -> tuple[Callable[..., object], tuple[Any, ...]]:
    values = tuple(getattr(obj, f.name) for f in dataclasses.fields(obj))  # type: ignore[arg-type]
    return (_rebuild, (type(obj), values))


def picklable(*classes: type) -> None:
    """Pickle (and copy) these frozen dataclasses through their constructor.

    A frozen dataclass compiled by mypyc cannot be restored field by field (its
    fields refuse assignment), so its instances are rebuilt from their field values.
    """
    for cls in classes:
        copyreg.pickle(cls, _reduce_dataclass)
