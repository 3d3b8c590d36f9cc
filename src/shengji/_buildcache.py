"""The install's build cache and progress lines (issue 29 item 12), used by setup.py.

Compiling the engine (mypyc) and the RL environment (Cython) is most of an install's
time, and pip rebuilds the package on every `pip install -e .` (adding an extra, say).
So setup.py keeps what it built in a persistent cache, keyed by everything the build
depends on: the content of the sources the compilers read (for mypyc, every module of
the package the compiled ones import, since their types shape the generated C), the
build recipe (modules, flags, compiler directives), the Python version and ABI, the
compiler and its flags, and the versions of the build tools. On a hit the extension
files are copied in place and nothing is compiled; a changed source changes the key.

The cache lives in `$SHENGJI_BUILD_CACHE` if set (`SHENGJI_BUILD_CACHE=off` turns it
off), else in `$XDG_CACHE_HOME/shengji/build` or `~/.cache/shengji/build`, one folder
per key, the few most recently used kept per group. A cache that cannot be read or
written is skipped with a message: the build then compiles as without one.

This module is loaded by setup.py on its own (standard library only, no package imports).
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import time
from collections.abc import Collection, Iterable, Mapping
from pathlib import Path
from typing import TextIO

#: the environment variable naming the cache folder (`off` disables the cache)
CACHE_ENV = "SHENGJI_BUILD_CACHE"

#: bump when the cache's layout or the build changes in a way the key does not see
FORMAT = 1

#: how many entries of each group (mypyc, cython) are kept, most recently used first
KEEP = 6

_ENTRY = "entry.json"


def cache_root() -> Path | None:
    """The cache folder, or None if `SHENGJI_BUILD_CACHE` turns the cache off."""
    value = os.environ.get(CACHE_ENV, "").strip()
    if value.lower() in ("0", "off", "no", "false", "none"):
        return None
    if value:
        return Path(value).expanduser()
    base = os.environ.get("XDG_CACHE_HOME", "").strip()
    return (Path(base) if base else Path.home() / ".cache") / "shengji" / "build"


def module_file(src: Path, name: str) -> Path | None:
    """The source of module `name` (`shengji.bots.heuristic`) under `src`, if it is there."""
    path = src.joinpath(*name.split("."))
    if (path / "__init__.py").is_file():
        return path / "__init__.py"
    if path.with_suffix(".py").is_file():
        return path.with_suffix(".py")
    return None


def import_closure(src: Path, modules: Iterable[str]) -> list[Path]:
    """The sources under `src` of `modules`, their parent packages and everything they
    import under `src`, transitively (every import statement counts, wherever it is: a
    type checker follows them all). Sorted; a module not under `src` is left out."""
    todo = list(modules)
    seen: dict[str, Path] = {}
    while todo:
        name = todo.pop()
        if not name or name in seen:
            continue
        path = module_file(src, name)
        if path is None:
            continue
        seen[name] = path
        parts = name.split(".")
        todo += [".".join(parts[:i]) for i in range(1, len(parts))]
        package = parts if path.name == "__init__.py" else parts[:-1]
        for node in ast.walk(ast.parse(path.read_bytes(), filename=str(path))):
            if isinstance(node, ast.Import):
                todo += [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package[: len(package) - node.level + 1]
                    module = ".".join([*base, *([node.module] if node.module else [])])
                else:
                    module = node.module or ""
                todo.append(module)  # `from pkg import sub` may name a submodule too
                todo += [f"{module}.{alias.name}" for alias in node.names]
    return sorted(set(seen.values()))


def tool_versions(distributions: Iterable[str]) -> dict[str, str]:
    """The installed version of each distribution (`absent` where it is not installed)."""
    out = {}
    for name in distributions:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            out[name] = "absent"
    return out


def compiler_identity() -> dict[str, str]:
    """What the C compiler is and the flags it is given: Python's build configuration,
    the environment's overrides and the compiler's own version line."""
    config = {
        k: str(sysconfig.get_config_var(k) or "")
        for k in ("CC", "CFLAGS", "CCSHARED", "LDSHARED", "EXT_SUFFIX", "SOABI")
    }
    config |= {f"env:{k}": os.environ.get(k, "") for k in ("CC", "CFLAGS", "CPPFLAGS",
                                                             "LDFLAGS", "LDSHARED")}
    config["platform"] = sysconfig.get_platform()
    cc = (os.environ.get("CC") or config["CC"] or "cc").split()
    try:
        done = subprocess.run([*cc, "--version"], capture_output=True, text=True, timeout=30)
        config["version"] = (done.stdout or done.stderr).strip().splitlines()[0]
    except (OSError, IndexError, subprocess.SubprocessError):
        config["version"] = "unknown"
    return config


def build_key(
    group: str,
    root: Path,
    files: Iterable[Path],
    recipe: Mapping[str, object],
    tools: Mapping[str, str],
    compiler: Mapping[str, str],
) -> str:
    """The cache key of one build group: `<group>-<hash>`, the hash over the content (and
    path under `root`) of `files`, the recipe, the tools' versions, the compiler and
    Python's version and ABI. The files' location on disk is not part of it."""
    h = hashlib.sha256()
    h.update(json.dumps({
        "format": FORMAT, "group": group, "python": sys.version,
        "implementation": sys.implementation.cache_tag, "recipe": recipe,
        "tools": dict(tools), "compiler": dict(compiler),
    }, sort_keys=True, default=repr).encode())
    for path in sorted(set(files)):
        rel = path.resolve().relative_to(root.resolve()).as_posix()
        h.update(f"\n{rel}\0{hashlib.sha256(path.read_bytes()).hexdigest()}".encode())
    return f"{group}-{h.hexdigest()[:32]}"


class BuildCache:
    """Built extension files by key, one folder per key under `root`."""

    def __init__(self, root: Path, progress: Progress | None = None) -> None:
        self.root = root
        self.progress = progress or Progress()

    def lookup(self, key: str, names: Collection[str]) -> dict[str, Path] | None:
        """The cached file of each extension of `names`, or None unless all are there."""
        entry = self.root / key
        try:
            files = json.loads((entry / _ENTRY).read_text())["files"]
            found = {name: entry / files[name] for name in names}
            if set(files) != set(names) or not all(p.is_file() for p in found.values()):
                return None
            os.utime(entry)  # most recently used: kept when older entries are pruned
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return found

    def store(self, key: str, built: Mapping[str, Path]) -> Path | None:
        """Keep the built file of each extension (`name -> path`) under `key`; the entry
        appears whole or not at all. Returns its folder, or None if it could not be written."""
        final = self.root / key
        tmp = self.root / f".tmp-{key}-{os.getpid()}"
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            shutil.rmtree(tmp, ignore_errors=True)
            tmp.mkdir()
            files = {}
            for name, path in built.items():
                files[name] = f"{name}--{path.name}"
                shutil.copy2(path, tmp / files[name])
            (tmp / _ENTRY).write_text(json.dumps({"files": files}, indent=1, sort_keys=True))
            if final.exists():  # another build stored the same key meanwhile
                shutil.rmtree(tmp, ignore_errors=True)
            else:
                os.rename(tmp, final)
            self.prune(key.split("-")[0])
        except OSError as e:
            shutil.rmtree(tmp, ignore_errors=True)
            self.progress.say(f"could not write the build cache {self.root} ({e}); continuing")
            return None
        return final

    def prune(self, group: str, keep: int = KEEP) -> None:
        """Remove all but the `keep` most recently used entries of `group`."""
        entries = [p for p in self.root.glob(f"{group}-*") if p.is_dir()]
        entries.sort(key=lambda p: p.stat().st_mtime, reverse=True)
        for old in entries[keep:]:
            shutil.rmtree(old, ignore_errors=True)


def restore(found: Path, dest: Path) -> None:
    """Copy a cached extension file to where the build puts it (`place`)."""
    place(found, dest)


def place(src: Path, dest: Path) -> None:
    """Copy `src` to `dest` by a rename over it, never by writing into it: a process that
    has the old extension loaded (a server, an arena, a test run while pip installs)
    keeps its mapped copy instead of crashing on a truncated file."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(f".{dest.name}.{os.getpid()}.tmp")
    try:
        shutil.copy2(src, tmp)
        os.replace(tmp, dest)
    finally:
        tmp.unlink(missing_ok=True)


class Progress:
    """Short progress lines of the build, each with the seconds since it started.

    pip shows a build's output only with `-v` (and when it fails), so the lines go to the
    terminal (`/dev/tty`) when there is one, else to stderr; `SHENGJI_BUILD_PROGRESS=0`
    keeps them on stderr only.
    """

    def __init__(self) -> None:
        self.start = time.monotonic()
        self._out: TextIO | None = None
        self._lines = 0

    def _stream(self) -> TextIO:
        if self._out is None:
            self._out = sys.stderr
            if os.environ.get("SHENGJI_BUILD_PROGRESS", "") != "0" and not sys.stderr.isatty():
                with contextlib.suppress(OSError):  # no terminal: stderr
                    self._out = open("/dev/tty", "w")  # noqa: SIM115 (kept for the build)
        return self._out

    def say(self, message: str) -> None:
        """Print one line: `shengji build [12s]: message`."""
        out = self._stream()
        try:
            line = f"shengji build [{time.monotonic() - self.start:3.0f}s]: {message}"
            if out is sys.stderr:
                out.write(f"{line}\n")
            else:  # the first line leaves pip's spinner line; the spinner then turns on a
                # line of its own, which the next line overwrites
                out.write(("\r" if self._lines else "\n") + f"{line}\n  ")
            self._lines += 1
            out.flush()
        except OSError:
            pass
