"""Build hook: compile the engine's hot modules with mypyc (issue 9).

`pip install .` / `pip install -e .` compile the modules in `COMPILED` into C
extensions next to their sources. Set `SHENGJI_PURE=1` while installing to skip
compiling (a pure-Python install); at run time `SHENGJI_PURE=1` makes an
installed compiled build load the pure-Python sources instead
(see `shengji._build`). Metadata lives in pyproject.toml.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
from pathlib import Path

from setuptools import setup


def compiled_modules() -> tuple[str, ...]:
    """The list lives in src/shengji/_build.py (loaded alone: no package imports)."""
    spec = importlib.util.spec_from_file_location("_shengji_build", "src/shengji/_build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return tuple(module.COMPILED)


def ext_modules() -> list[object]:
    manifest = Path("src/shengji/_compiled_sources.json")
    if os.environ.get("SHENGJI_PURE", "") not in ("", "0"):
        manifest.unlink(missing_ok=True)  # any old extensions left behind are then unused
        return []
    from mypyc.build import mypycify

    names = compiled_modules()
    paths = [f"src/shengji/{name.replace('.', '/')}.py" for name in names]
    # what was compiled: at import an edited source is noticed and run as pure Python
    hashes = {name: hashlib.sha256(Path(path).read_bytes()).hexdigest()
              for name, path in zip(names, paths, strict=True)}
    manifest.write_text(json.dumps(hashes, indent=1, sort_keys=True))
    # The modules compiled are type-checked with what they import; the optional parts
    # they may reach (learn/ needs torch, env/ numpy) need not be installed to build.
    flags = ["--follow-imports=silent", "--ignore-missing-imports"]
    return list(mypycify(flags + paths, opt_level="3", strict_dunder_typing=False))


setup(ext_modules=ext_modules())
