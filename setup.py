"""Build hook: compile the engine's hot modules with mypyc (issue 9), and the RL
environment's table, observer, arrays and AEC layer with Cython (issue 12).

`pip install .` / `pip install -e .` compile the modules in `COMPILED` (mypyc) and
`CYTHONIZED` (Cython, typed by the `.pxd` beside each) into C extensions next to their
sources. Set `SHENGJI_PURE=1` while installing to skip
compiling (a pure-Python install); at run time `SHENGJI_PURE=1` makes an
installed compiled build load the pure-Python sources instead
(see `shengji._build`). Metadata lives in pyproject.toml.

Issue 29 item 12 (install time): the C is generated only when build_ext runs (pip
evaluates this file three times per install), the extensions compile in parallel (one
job per core, `SHENGJI_BUILD_JOBS=N` to choose), and what was built is kept in a
content-keyed cache (`shengji._buildcache`): an install whose sources, recipe, Python,
compiler and build tools are unchanged copies the extension files and compiles nothing.
"""

from __future__ import annotations

import gc
import importlib.util
import json
import os
import time
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from pathlib import Path
from types import ModuleType
from typing import Any

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent  # pip may run this from any directory
SRC = ROOT / "src"
PKG = SRC / "shengji"


def load(name: str) -> ModuleType:
    """src/shengji/<name>.py, loaded alone (no package imports)."""
    spec = importlib.util.spec_from_file_location(f"_shengji{name}", PKG / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


build = load("_build")  # the lists of modules to compile and the source hash
cache = load("_buildcache")  # the build cache's key and store, the progress lines

# The build recipe: every option below is part of the cache key.
# The modules compiled are type-checked with what they import; the optional parts
# they may reach (learn/ needs torch, env/ numpy) need not be installed to build.
MYPY_FLAGS = ["--follow-imports=silent", "--ignore-missing-imports"]
# One C file for the whole group (multi_file=False): gcc inlines across the engine's
# modules; on 2 cores it builds as fast as multi_file, the Cython modules filling the
# other core.
MYPYC_OPTIONS: dict[str, Any] = {"opt_level": "3", "strict_dunder_typing": False}
# Cython reads the types from the .pxd; the .py annotations stay Python's (a numpy
# integer is a valid action). Indexes stay bounds-checked: a bad one raises
# IndexError as in Python, never writes outside a buffer.
CYTHON_DIRECTIVES = {"language_level": 3, "annotation_typing": False}
CYTHON_MACROS = [("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")]
# No debug information in the Cython modules: a third of their compile time, and
# the same machine code (-O3 as Python's flags give).
CYTHON_CFLAGS = ["-g0"] if os.name == "posix" else []
MYPYC_TOOLS = ("setuptools", "mypy", "mypy_extensions", "librt", "pydantic",
               "pydantic_core", "typing_extensions", "numpy")
CYTHON_TOOLS = ("setuptools", "Cython", "numpy")


def module_path(name: str) -> Path:
    return PKG / f"{name.replace('.', '/')}.py"


def relative(path: Path) -> str:
    """A path as the compilers are given it: relative to the working directory (pip runs
    the build from the project's folder; setuptools wants relative source paths)."""
    return os.path.relpath(path, os.getcwd()).replace(os.sep, "/")


class Group:
    """Extensions built and cached together: their names, what their key covers and how
    their `Extension`s are made (generating the C) on a cache miss."""

    def __init__(self, title: str, label: str, names: list[str], files: list[Path],
                 recipe: dict[str, object], tools: tuple[str, ...]) -> None:
        self.title, self.label, self.names = title, label, names
        self.files, self.recipe, self.tools = files, recipe, tools

    def key(self, compiler: dict[str, str]) -> str:
        return cache.build_key(self.label, ROOT, self.files, self.recipe,
                               cache.tool_versions(self.tools), compiler)

    def make(self) -> list[Extension]:
        if self.label == "mypyc":
            from mypyc.build import mypycify

            made = mypycify(
                MYPY_FLAGS + [relative(module_path(n)) for n in build.COMPILED],
                **MYPYC_OPTIONS,
            )
            # mypy leaves ~1.8 million objects behind; the garbage collector's last pass
            # over them when the build process exits took 5 s of the install. Frozen,
            # they are left to the process's end (the compiles after make no cycles).
            gc.freeze()
            return made  # type: ignore[no-any-return]
        import numpy
        from Cython.Build import cythonize

        return cythonize(  # type: ignore[no-any-return]
            [
                # a module with a `.pyx` beside its `.py` (env.arrays, over numpy's C
                # API) is built from the `.pyx`; the `.py` is then its reference
                Extension(
                    f"shengji.{n}", [relative(build.compiled_source(module_path(n)))],
                    include_dirs=[numpy.get_include()], define_macros=CYTHON_MACROS,
                    extra_compile_args=CYTHON_CFLAGS,
                )
                for n in build.CYTHONIZED
            ],
            quiet=True, compiler_directives=CYTHON_DIRECTIVES,
        )


def groups() -> list[Group]:
    from mypyc.build import group_name
    from mypyc.common import shared_lib_name

    engine = sorted(f"shengji.{n}" for n in build.COMPILED)
    # mypy reads every package module the compiled ones import: their types shape the C
    mypyc_files = cache.import_closure(SRC, engine)
    env = [f"shengji.{n}" for n in build.CYTHONIZED]
    cython_files = [module_path(n) for n in build.CYTHONIZED]
    cython_files += [*PKG.rglob("*.pxd"), *PKG.rglob("*.pyx")]
    return [
        Group("engine (mypyc)", "mypyc", [shared_lib_name(group_name(engine)), *engine],
              mypyc_files, {"modules": engine, "flags": MYPY_FLAGS, **MYPYC_OPTIONS}, MYPYC_TOOLS),
        Group("RL env (Cython)", "cython", env, cython_files,
              {"modules": env, "directives": CYTHON_DIRECTIVES, "macros": CYTHON_MACROS,
               "cflags": CYTHON_CFLAGS}, CYTHON_TOOLS),
    ]


def adopt(placeholders: dict[str, Extension], group: Group, real: list[Extension]) -> None:
    """Give the placeholder extensions (named when setup() was called) the sources and
    flags of the real ones: setuptools has already filed the placeholders by name."""
    made = sorted(e.name for e in real)
    if made != sorted(group.names):
        raise RuntimeError(f"setup.py: {group.title} made the extensions {made}, "
                           f"not the ones named beforehand {sorted(group.names)}")
    for ext in real:
        target = placeholders[ext.name]
        for k, v in vars(ext).items():
            if k != "name" and not (k.startswith("_") and k in vars(target)):
                setattr(target, k, v)


class CachedBuildExt(build_ext):
    """build_ext with the build cache, the C generated only here, parallel compiles and
    progress lines."""

    def run(self) -> None:
        if not self.extensions:  # SHENGJI_PURE=1: nothing to build
            super().run()
            return
        self.progress = cache.Progress()
        root = cache.cache_root()
        self.cache = cache.BuildCache(root, self.progress) if root else None
        self.hits: dict[str, Path] = {}
        self.misses: list[tuple[Group, str]] = []
        compiler = self.compiler_id = cache.compiler_identity()
        for group in groups():
            key = group.key(compiler)
            found = self.cache.lookup(key, group.names) if self.cache else None
            if found is not None:
                self.progress.say(f"{group.title}: unchanged, reusing the build cached "
                                  f"in {root} ({key})")
                self.hits.update(found)
            else:
                self.misses.append((group, key))
        super().run()

    def copy_file(self, infile: Any, outfile: Any, *args: Any, **kw: Any) -> tuple[str, int]:
        """An extension copied into the source tree (an editable install) by a rename
        over the old file (`cache.place`): processes running the old one keep it."""
        cache.place(Path(infile), Path(outfile))
        return str(outfile), 1

    def build_extensions(self) -> None:
        self.check_extensions_list(self.extensions)
        for ext in self.extensions:
            if ext.name in self.hits:
                cache.restore(self.hits[ext.name], Path(self.get_ext_fullpath(ext.name)))
        if self.misses:
            self._compile()
        for group, key in self.misses:
            if group.key(self.compiler_id) != key:
                # a source edited while the build read it: what was compiled is neither
                # the sources the key names nor surely the ones there now, so it is not
                # cached, and the manifest goes (the import then runs the pure engine,
                # with a warning, until the next install)
                (PKG / build.MANIFEST).unlink(missing_ok=True)
                self.progress.say(f"{group.title}: a source changed during the build; "
                                  "not cached: run the install again")
                continue
            if self.cache is not None:
                built = {n: Path(self.get_ext_fullpath(n)) for n in group.names}
                if self.cache.store(key, built) is not None:
                    self.progress.say(f"{group.title}: kept in the build cache ({key})")
        self.progress.say("extensions in place")

    def _compile(self) -> None:
        """Generate each missed group's C and compile it, one job per core. A group's
        C is generated while the groups before it compile (the C compiler runs in
        subprocesses): the engine's one-file group, the longest job, starts first and
        the RL env's C is generated beside it."""
        jobs = int(os.environ.get("SHENGJI_BUILD_JOBS") or 0) or os.cpu_count() or 1
        placeholders = {e.name: e for e in self.extensions}
        count = sum(len(group.names) for group, _ in self.misses)
        where = f"not in the cache {self.cache.root}" if self.cache else "cache off"

        def one(ext: Extension) -> float:
            started = time.monotonic()
            self.build_extension(ext)
            return time.monotonic() - started

        with ThreadPoolExecutor(max_workers=jobs) as pool:
            futures: dict[Future[float], Extension] = {}
            for group, key in self.misses:
                self.progress.say(f"{group.title}: {where} ({key}); generating C")
                started = time.monotonic()
                adopt(placeholders, group, group.make())
                self.progress.say(f"{group.title}: C generated in "
                                  f"{time.monotonic() - started:.0f}s; compiling "
                                  f"{len(group.names)} C extensions, {jobs} at a time")
                todo = [placeholders[n] for n in group.names]
                # the largest C first: the one-file mypyc group is the longest single job
                todo.sort(key=lambda e: -sum(os.path.getsize(s) for s in e.sources))
                futures.update({pool.submit(one, ext): ext for ext in todo})
            self.progress.say(f"all C generated; {count} extensions compiling "
                              "(about a minute on 2 cores)")
            for done, future in enumerate(as_completed(futures), 1):
                seconds = future.result()
                if seconds >= 1 or done == count:
                    self.progress.say(f"[{done}/{count}] {futures[future].name} "
                                      f"compiled in {seconds:.0f}s")


def ext_modules() -> list[Extension]:
    """The extensions by name; their sources come when build_ext runs (a cache miss)."""
    manifest = PKG / build.MANIFEST
    if build.pure_requested():
        manifest.unlink(missing_ok=True)  # any old extensions left behind are then unused
        return []
    # what was compiled: at import an edited source is noticed and run as pure Python
    hashes = {name: build.source_hash(module_path(name)) for name in build.ACCELERATED}
    text = json.dumps(hashes, indent=1, sort_keys=True)
    if not manifest.is_file() or manifest.read_text() != text:
        manifest.write_text(text)
    return [Extension(name, []) for g in groups() for name in g.names]


setup(ext_modules=ext_modules(), cmdclass={"build_ext": CachedBuildExt})
