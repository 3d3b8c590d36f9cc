"""The compiled and the pure-Python engine (issue 9): same records, views and bot choices;
and the same for the RL environment's table and observer (issue 12).

setup.py compiles the modules of `shengji._build.COMPILED` with mypyc and those of
`CYTHONIZED` with Cython; `SHENGJI_PURE=1` loads their pure-Python sources instead. Each
build runs in its own process here and prints a fingerprint of seeded games (and of
seeded env deals: every observation, mask and reward); the two must be identical.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from shengji import Game, Round, shuffled_deck
from shengji._build import (
    COMPILED,
    CYTHONIZED,
    compiled_available,
    compiled_source,
    engine_build,
    pure_requested,
    stale_compiled,
)
from shengji.bots import make_agent
from shengji.cards import full_deck, shuffled_ids
from shengji.driver import advance, play_round

SRC = Path(__file__).resolve().parents[1] / "src" / "shengji"


def fingerprint() -> str:
    """A hash of seeded records (random play, two rounds of a game), every view of a
    heuristic round (all seats and a spectator) and the heuristic bots' choices."""
    h = hashlib.sha256()
    for seed in range(4):
        game, rng = Game(seed), random.Random(seed)
        while not game.is_over and len(game.results) < 2:
            game.apply(game.random_action(rng))
        h.update(json.dumps(game.record.to_json(), sort_keys=True).encode())
    for seed in range(2):
        rnd = Round(seed)
        agents = [make_agent("heuristic", 10 * seed + s) for s in range(4)]
        while not rnd.is_over:
            for action, events in advance(rnd, agents):
                h.update(json.dumps(action.to_json()).encode())
                h.update(json.dumps([e.to_json() for e in events], sort_keys=True).encode())
            for seat in (0, 1, 2, 3, None):
                h.update(json.dumps(rnd.view(seat).to_json(), sort_keys=True).encode())
    return h.hexdigest()


def env_fingerprint() -> str:
    """A hash of seeded env deals played with random masked actions: at every step the
    acting seat's observation and mask, every seat's observation at some steps, the
    rewards, the forced steps taken, and a pickled copy's observations mid-deal."""
    import pickle

    from shengji.env import Table
    from shengji.options import RuleOptions

    h = hashlib.sha256()
    rules = [None, RuleOptions(strict_tractor_follow=True)]
    for seed in range(6):
        t = Table(seed, rules[seed % 2], starter=seed % 4, skip_forced=seed % 3 == 0,
                  reward_points=0.5 * (seed % 2))
        rng = random.Random(seed)
        step = 0
        while t.seat is not None:
            mask = t.action_mask(t.seat)
            h.update(t.observation(t.seat).tobytes() + mask.tobytes())
            if step % 37 == 0:
                for s in range(4):
                    h.update(t.observation(s).tobytes())
                copy = pickle.loads(pickle.dumps(t))
                h.update(copy.observation(t.seat).tobytes())
            legal = mask.nonzero()[0]
            t.step(int(legal[int(rng.random() * len(legal))]))
            step += 1
        h.update(json.dumps([t.rewards(), t.forced_steps, step]).encode())
    return h.hexdigest()


def _run_build(pure: bool, what: str = "fingerprint") -> tuple[str, str]:
    env = dict(os.environ)
    env.pop("SHENGJI_PURE", None)
    if pure:
        env["SHENGJI_PURE"] = "1"
    names = "CYTHONIZED" if what == "env_fingerprint" else "COMPILED"
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import test_build as t; "
            "from shengji import _build as b; "
            f"d = t.{what}(); print(b.engine_build(b.{names}), d)")
    out = subprocess.run([sys.executable, "-c", code, str(Path(__file__).parent)], env=env,
                         capture_output=True, text=True, timeout=300, check=True).stdout
    build, digest = out.split()
    return build, digest


def test_every_compiled_module_has_its_pure_source() -> None:
    assert COMPILED and all((SRC / f"{name.replace('.', '/')}.py").is_file() for name in COMPILED)
    assert "actions" not in COMPILED and "options" not in COMPILED  # input is checked there
    for name in CYTHONIZED:  # Cython's C types live beside the one source of the logic,
        source = SRC / f"{name.replace('.', '/')}.py"  # or a .pyx is its C build (arrays)
        assert source.is_file()
        assert source.with_suffix(".pxd").is_file() or source.with_suffix(".pyx").is_file()
        assert compiled_source(source).suffix == (
            ".pyx" if source.with_suffix(".pyx").is_file() else ".py")
    assert not set(COMPILED) & set(CYTHONIZED)


@pytest.mark.skipif(not compiled_available(), reason="no compiled engine installed")
def test_compiled_and_pure_engines_give_identical_records_views_and_bot_choices() -> None:
    compiled, pure = _run_build(pure=False), _run_build(pure=True)
    assert compiled[0] == "compiled" and pure[0] == "pure"
    assert compiled[1] == pure[1]


@pytest.mark.skipif(not compiled_available(), reason="no compiled env installed")
def test_compiled_and_pure_env_give_identical_observations_masks_and_rewards() -> None:
    compiled, pure = _run_build(False, "env_fingerprint"), _run_build(True, "env_fingerprint")
    assert compiled[0] == "compiled" and pure[0] == "pure"
    assert compiled[1] == pure[1]


@pytest.mark.skipif(pure_requested(), reason="SHENGJI_PURE=1: the pure engine was asked for")
@pytest.mark.skipif(not any(shutil.which(cc) for cc in ("cc", "gcc", "clang")),
                    reason="no C compiler: the install is pure Python")
def test_an_install_with_a_c_compiler_runs_the_compiled_engine() -> None:
    """`pip install -e .` compiles the engine where a C compiler is (as in CI): the tests
    must run against it, not a silent fallback (install with SHENGJI_PURE=1 and run the
    tests with SHENGJI_PURE=1 for a pure-Python install)."""
    assert compiled_available(), "no compiled engine: reinstall with `pip install -e .`"
    assert engine_build() == "compiled"
    import shengji.env  # noqa: F401  (loads the Cython-compiled table and observer)

    assert engine_build(CYTHONIZED) == "compiled"


def test_a_compiled_module_built_from_another_source_is_reported_stale(tmp_path: Path) -> None:
    """An edited source must not run as its old compiled build (the package then loads the
    pure-Python engine with a warning); extensions without a manifest count as stale."""
    import importlib.machinery
    import json as json_

    from shengji._build import MANIFEST, source_hash

    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    for name in ("same", "edited", "nobuild"):
        (tmp_path / f"{name}.py").write_text(f"x = '{name}'\n")
        if name != "nobuild":
            (tmp_path / f"{name}{suffix}").write_bytes(b"")
    manifest = {"same": source_hash(tmp_path / "same.py"), "edited": "0" * 64}
    names = ("same", "edited", "nobuild")
    assert stale_compiled(tmp_path, names) == ["same", "edited"]  # no manifest yet
    (tmp_path / MANIFEST).write_text(json_.dumps(manifest))
    assert stale_compiled(tmp_path, names) == ["edited"]
    assert stale_compiled() == []  # this install: every compiled module is current


def test_the_deck_order_is_that_of_random_shuffle_so_stored_deals_replay() -> None:
    """`shuffled_ids` reimplements `random.Random(seed).shuffle` for speed: every stored
    record's deal depends on the exact order (RULES §3.1)."""
    for seed in ("0:0", "17:3", 5, 123456789, "", "ünïcode:1"):
        deck = full_deck()
        random.Random(seed).shuffle(deck)
        assert tuple(c.id for c in deck) == shuffled_ids(seed)
        assert shuffled_deck(seed) == deck


def test_a_round_and_its_clone_play_on_independently() -> None:
    rnd = Round(3)
    rng = random.Random(3)
    while not (rnd.phase == "play" and len(rnd.tricks) == 4):
        rnd.apply(rnd.random_action(rng))
    copy = rnd.clone()
    before = json.dumps(rnd.view(None).to_json(), sort_keys=True)
    play_round(copy, [make_agent("random", s) for s in range(4)])
    assert copy.is_over and not rnd.is_over
    assert json.dumps(rnd.view(None).to_json(), sort_keys=True) == before
    rnd.counts_check()
    copy.counts_check()


@pytest.mark.slow
def test_the_engine_tests_pass_on_the_pure_python_engine_too() -> None:
    """CI tests both builds: the engine's own test modules again, with SHENGJI_PURE=1."""
    here = Path(__file__).parent
    modules = [
        "test_cards.py", "test_trump.py", "test_shapes.py", "test_follow.py", "test_trick.py",
        "test_declare.py", "test_scoring.py", "test_round.py", "test_views.py",
        "test_game.py", "test_record.py", "test_events.py", "test_driver.py",
        "test_house_rules.py", "test_properties.py", "test_worlds.py", "test_actions.py",
        "test_bots.py", "test_hand.py", "test_env.py",
    ]
    env = dict(os.environ, SHENGJI_PURE="1")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
         "-m", "not slow and not browser", *[str(here / m) for m in modules]],
        env=env, capture_output=True, text=True, timeout=900,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]


# The install's build cache (issue 29 item 12): setup.py keys what it compiled by
# content and copies it back on a hit (`shengji._buildcache`).

def _tree(root: Path) -> Path:
    """A small package: `pkg.a` imports `pkg.b` (relatively), which imports `pkg.sub.c`
    inside a function; `pkg.z` is imported by nothing."""
    pkg = root / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from . import b\nimport json\n")
    (pkg / "b.py").write_text("def f() -> int:\n    from .sub.c import X\n    return X\n")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "c.py").write_text("X = 1\n")
    (pkg / "z.py").write_text("Z = 2\n")
    return root


def _key(root: Path, **recipe: object) -> str:
    from shengji._buildcache import build_key, import_closure

    files = import_closure(root, ["pkg.a"])
    return build_key("mypyc", root, files, recipe or {"opt": "3"}, {"mypy": "1"}, {"cc": "gcc"})


def test_the_cache_key_covers_the_compiled_modules_and_what_they_import(tmp_path: Path) -> None:
    from shengji._buildcache import import_closure

    root = _tree(tmp_path / "one")
    names = [p.relative_to(root).as_posix() for p in import_closure(root, ["pkg.a"])]
    assert names == ["pkg/__init__.py", "pkg/a.py", "pkg/b.py", "pkg/sub/__init__.py",
                     "pkg/sub/c.py"]
    before = _key(root)
    assert before.startswith("mypyc-") and _key(root) == before  # deterministic
    shutil.copytree(root, tmp_path / "two")  # the same sources elsewhere: the same key
    assert _key(tmp_path / "two") == before
    (root / "pkg" / "z.py").write_text("Z = 3\n")  # not imported: no rebuild
    assert _key(root) == before
    (root / "pkg" / "sub" / "c.py").write_text("X = 2\n")  # imported (inside a function)
    assert _key(root) != before
    assert _key(tmp_path / "two", opt="2") != _key(tmp_path / "two")  # the recipe counts


def test_the_engines_key_covers_the_engine_not_the_server() -> None:
    from shengji._buildcache import import_closure

    files = {p.relative_to(SRC).as_posix()
             for p in import_closure(SRC.parent, [f"shengji.{n}" for n in COMPILED])}
    assert {"cards.py", "options.py", "actions.py", "__init__.py", "bots/heuristic.py"} <= files
    assert not any(f.startswith(("server/", "tui/", "arena/")) or f == "cli.py" for f in files)


def test_a_cache_hit_copies_the_stored_files_and_a_miss_finds_nothing(tmp_path: Path) -> None:
    from shengji._buildcache import BuildCache, restore

    built = tmp_path / "build"
    built.mkdir()
    (built / "a.so").write_bytes(b"\x7fELF a")
    (built / "b.so").write_bytes(b"\x7fELF b")
    store = BuildCache(tmp_path / "cache")
    key = "mypyc-" + "1" * 32
    assert store.lookup(key, ["pkg.a", "pkg.b"]) is None  # a miss: setup.py compiles
    assert store.store(key, {"pkg.a": built / "a.so", "pkg.b": built / "b.so"}) is not None
    found = store.lookup(key, ["pkg.a", "pkg.b"])
    assert found is not None
    restore(found["pkg.a"], tmp_path / "src" / "pkg" / "a.so")  # a hit: copied in place
    assert (tmp_path / "src" / "pkg" / "a.so").read_bytes() == b"\x7fELF a"
    assert store.lookup(key, ["pkg.a"]) is None  # another set of extensions: a miss
    assert store.lookup("mypyc-" + "2" * 32, ["pkg.a", "pkg.b"]) is None
    found["pkg.b"].unlink()  # an entry missing a file is a miss, never a partial copy
    assert store.lookup(key, ["pkg.a", "pkg.b"]) is None


def test_an_extension_is_replaced_by_a_rename_so_a_process_using_it_keeps_its_copy(
    tmp_path: Path,
) -> None:
    # A running server has the old extension mapped: writing into that file would change
    # (truncate) the pages it runs; a new file renamed over it leaves them alone.
    from shengji._buildcache import place

    new = tmp_path / "new.so"
    new.write_bytes(b"\x7fELF new")
    dest = tmp_path / "pkg" / "a.so"
    dest.parent.mkdir()
    dest.write_bytes(b"\x7fELF old, longer")
    with dest.open("rb") as running:  # the "process" holding the old file
        old_inode = os.fstat(running.fileno()).st_ino
        place(new, dest)
        assert dest.read_bytes() == b"\x7fELF new" and dest.stat().st_ino != old_inode
        assert running.read() == b"\x7fELF old, longer"  # untouched under its reader
    assert sorted(p.name for p in dest.parent.iterdir()) == ["a.so"]  # no temporary left


def test_the_cache_keeps_the_most_recent_entries_and_survives_an_unwritable_folder(
    tmp_path: Path,
) -> None:
    from shengji._buildcache import KEEP, BuildCache

    (tmp_path / "x.so").write_bytes(b"x")
    store = BuildCache(tmp_path / "cache")
    for i in range(KEEP + 2):
        assert store.store(f"cython-{i:032d}", {"m": tmp_path / "x.so"}) is not None
        os.utime(tmp_path / "cache" / f"cython-{i:032d}", (1000 + i, 1000 + i))
    store.prune("cython")
    kept = sorted(p.name for p in (tmp_path / "cache").iterdir())
    assert kept == [f"cython-{i:032d}" for i in range(2, KEEP + 2)]
    (tmp_path / "file").write_text("")  # a cache "folder" that is a file: no entry, no error
    assert BuildCache(tmp_path / "file").store("cython-" + "0" * 32, {"m": tmp_path / "x.so"}) \
        is None


def test_the_cache_folder_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch,
                                                      tmp_path: Path) -> None:
    from shengji._buildcache import CACHE_ENV, cache_root

    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    assert cache_root() == tmp_path
    monkeypatch.setenv(CACHE_ENV, "off")
    assert cache_root() is None
    monkeypatch.delenv(CACHE_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_root() == tmp_path / "xdg" / "shengji" / "build"
