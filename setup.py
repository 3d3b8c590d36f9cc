"""Build hook: compile the engine's hot modules with mypyc (issue 9), and the RL
environment's table, observer, arrays and AEC layer with Cython (issue 12).

`pip install .` / `pip install -e .` compile the modules in `COMPILED` (mypyc) and
`CYTHONIZED` (Cython, typed by the `.pxd` beside each) into C extensions next to their
sources. Set `SHENGJI_PURE=1` while installing to skip
compiling (a pure-Python install); at run time `SHENGJI_PURE=1` makes an
installed compiled build load the pure-Python sources instead
(see `shengji._build`). Metadata lives in pyproject.toml.
"""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path
from types import ModuleType

from setuptools import setup


def build_module() -> ModuleType:
    """src/shengji/_build.py, loaded alone (no package imports): the lists of modules
    to compile and the source hash the package checks at import."""
    spec = importlib.util.spec_from_file_location("_shengji_build", "src/shengji/_build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def ext_modules() -> list[object]:
    manifest = Path("src/shengji/_compiled_sources.json")
    if os.environ.get("SHENGJI_PURE", "") not in ("", "0"):
        manifest.unlink(missing_ok=True)  # any old extensions left behind are then unused
        return []
    from Cython.Build import cythonize
    from mypyc.build import mypycify

    build = build_module()

    def path(name: str) -> str:
        return f"src/shengji/{name.replace('.', '/')}.py"

    # what was compiled: at import an edited source is noticed and run as pure Python
    hashes = {name: build.source_hash(Path(path(name))) for name in build.ACCELERATED}
    manifest.write_text(json.dumps(hashes, indent=1, sort_keys=True))
    # The modules compiled are type-checked with what they import; the optional parts
    # they may reach (learn/ needs torch, env/ numpy) need not be installed to build.
    flags = ["--follow-imports=silent", "--ignore-missing-imports"]
    mypyc_exts = mypycify(
        flags + [path(n) for n in build.COMPILED], opt_level="3", strict_dunder_typing=False
    )
    # Cython reads the types from the .pxd; the .py annotations stay Python's (a numpy
    # integer is a valid action). Indexes stay bounds-checked: a bad one raises
    # IndexError as in Python, never writes outside a buffer.
    # A module with a `.pyx` beside its `.py` (env.arrays, over numpy's C API) is built
    # from the `.pyx`; the `.py` is then its pure-Python reference.
    import numpy
    from setuptools import Extension

    cython_exts = cythonize(
        [
            Extension(
                f"shengji.{n}", [build.compiled_source(Path(path(n))).as_posix()],
                include_dirs=[numpy.get_include()],
                define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
            )
            for n in build.CYTHONIZED
        ],
        quiet=True, compiler_directives={"language_level": 3, "annotation_typing": False},
    )
    return [*mypyc_exts, *cython_exts]


setup(ext_modules=ext_modules())
