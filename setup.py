"""Build hook: compile the engine's hot modules with mypyc (issue 9).

`pip install .` / `pip install -e .` compile the modules in `COMPILED` into C
extensions next to their sources. Set `SHENGJI_PURE=1` while installing to skip
compiling (a pure-Python install); at run time `SHENGJI_PURE=1` makes an
installed compiled build load the pure-Python sources instead
(see `shengji._build`). Metadata lives in pyproject.toml.
"""

from __future__ import annotations

import importlib.util
import os

from setuptools import setup


def compiled_modules() -> tuple[str, ...]:
    """The list lives in src/shengji/_build.py (loaded alone: no package imports)."""
    spec = importlib.util.spec_from_file_location("_shengji_build", "src/shengji/_build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return tuple(module.COMPILED)


def ext_modules() -> list[object]:
    if os.environ.get("SHENGJI_PURE", "") not in ("", "0"):
        return []
    from mypyc.build import mypycify

    paths = [f"src/shengji/{name}.py" for name in compiled_modules()]
    return list(mypycify(paths, opt_level="3", strict_dunder_typing=False))


setup(ext_modules=ext_modules())
