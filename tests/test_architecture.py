"""The engine's house rules (issue 8): no back doors into `Round`/`Game`, no import circles.

Both are read from the source with `ast`, so a new back door or circle fails here the
day it is written, whatever the code path that would have used it.
"""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest

from shengji import Game, Round
from shengji.errors import IllegalAction

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "src" / "shengji"
# The engine modules that own or build from `Round`/`Game` state (views copy it out).
OWNERS = {PKG / "round.py", PKG / "game.py", PKG / "views.py"}


def _private_state(path: Path, cls: str) -> set[str]:
    """The underscore attributes a class's methods assign on an instance."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == cls:
            for sub in ast.walk(node):
                targets: list[ast.expr] = []
                if isinstance(sub, ast.Assign):
                    targets = list(sub.targets)
                elif isinstance(sub, (ast.AnnAssign, ast.AugAssign)):
                    targets = [sub.target]
                for t in targets:
                    if (
                        isinstance(t, ast.Attribute)
                        and t.attr.startswith("_")
                        and not t.attr.startswith("__")
                    ):
                        names.add(t.attr)
    return names


PRIVATE = _private_state(PKG / "round.py", "Round") | _private_state(PKG / "game.py", "Game")


def _sources() -> list[Path]:
    files = [*PKG.rglob("*.py"), *(ROOT / "tests").rglob("*.py"), *(ROOT / "bench").rglob("*.py")]
    files += (ROOT / "docs").rglob("*.py")
    return sorted(p for p in files if p not in OWNERS)


def test_the_scan_knows_the_rounds_and_games_private_state() -> None:
    # the scanner must see the real state, or the test below would pass vacuously
    assert {"_hands", "_sizes", "_tricks", "_current", "_kitty", "_phase"} <= PRIVATE
    assert {"_round", "_results", "_actions"} <= PRIVATE
    assert len(_sources()) > 50


def test_nothing_outside_the_engine_reads_round_or_game_private_state() -> None:
    """Issue 8: consumers read documented properties, views or events, never `_state`."""
    found = []
    for path in _sources():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and node.attr in PRIVATE
                and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))
            ):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: .{node.attr}")
    assert not found, "private Round/Game state read outside the engine:\n" + "\n".join(found)


def test_the_state_properties_cannot_be_assigned() -> None:
    rnd = Round(3)
    for name in ("phase", "hand_sizes", "kitty", "trump", "starter", "tricks", "result"):
        with pytest.raises(AttributeError):
            setattr(rnd, name, None)
    game = Game(3)
    for name in ("round", "results", "winner", "levels"):
        with pytest.raises(AttributeError):
            setattr(game, name, None)


def test_containers_come_back_as_copies_that_cannot_change_the_round() -> None:
    rnd = Round(5)
    for _ in range(40):
        rnd.apply(rnd.random_action(random.Random(1)))
    counts = rnd.hand_counts(0)
    assert isinstance(counts, tuple) and isinstance(rnd.hand_sizes, tuple)
    assert isinstance(rnd.actions, tuple) and isinstance(rnd.declarations, tuple)
    assert rnd.hand_counts(0) == counts


def test_with_hidden_rejects_a_placement_that_is_not_the_same_hidden_cards() -> None:
    rnd = Round(8)
    while rnd.phase == "deal":
        rnd.apply(rnd.random_action(random.Random(2)))
    hands = [list(rnd.hand_counts(s)) for s in range(4)]
    i = next(i for i in range(54) if hands[1][i] and not hands[2][i])
    j = next(j for j in range(54) if hands[2][j] and not hands[1][j])
    moved = [h[:] for h in hands]
    moved[1][i] -= 1
    moved[2][i] += 1
    moved[2][j] -= 1
    moved[1][j] += 1
    swapped = rnd.with_hidden(moved)  # the same cards, placed otherwise
    assert swapped.hand_counts(2)[i] == 1 and swapped.hand_counts(1)[j] == 1
    assert swapped.view(0) == rnd.view(0)  # seat 0 sees no difference (RULES §11)
    invented = [h[:] for h in hands]
    invented[1][i] -= 1
    invented[1][(i + 1) % 54] += 1  # a card from nowhere
    before = rnd.hand_counts(1)
    with pytest.raises(IllegalAction, match="same cards"):
        rnd.with_hidden(invented)
    bigger = [h[:] for h in moved]
    bigger[2][i] += 1
    with pytest.raises(IllegalAction, match="sizes"):
        rnd.with_hidden(bigger)
    assert rnd.hand_counts(1) == before  # nothing changed


def _module_of(path: Path) -> str:
    rel = path.relative_to(PKG.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _top_level_imports(path: Path, module: str) -> set[str]:
    """Modules `module` imports when it is loaded: module-level imports, not those in
    functions or under `if TYPE_CHECKING:`."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out: set[str] = set()

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.If):
                if "TYPE_CHECKING" in ast.unparse(node.test):
                    visit(node.orelse)
                    continue
                visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Try):
                visit(node.body)
            elif isinstance(node, ast.Import):
                out.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")
                    up = up[: len(up) - (node.level - 1)]
                    base = ".".join([*up, base] if base else up)
                out.add(base)
                out.update(f"{base}.{a.name}" for a in node.names)

    visit(tree.body)
    return out


def test_the_package_has_no_import_circles() -> None:
    """Issue 8: `game ↔ record` and `round ↔ views` were circles; none may come back."""
    modules = {_module_of(p): p for p in PKG.rglob("*.py")}
    graph = {
        m: sorted(d for d in _top_level_imports(p, m) if d in modules and d != m)
        for m, p in modules.items()
    }
    assert "shengji.views" in graph["shengji.game"]  # the scan sees real imports
    # a submodule importing its own package (`from . import x`) is Python's usual
    # re-export pattern, not a circle between two modules: those edges are left out
    for m, deps in graph.items():
        graph[m] = [d for d in deps if not m.startswith(d + ".")]
    done: set[str] = set()
    cycles: list[list[str]] = []

    def walk(m: str, path: list[str]) -> None:
        if m in path:
            cycles.append([*path[path.index(m) :], m])
            return
        if m in done:
            return
        for d in graph[m]:
            walk(d, [*path, m])
        done.add(m)

    for m in sorted(graph):
        walk(m, [])
    assert not cycles, f"import circles: {cycles}"


def test_the_heuristic_reaches_the_engine_only_through_public_modules() -> None:
    """Issue 8: the helpers bots need are public, in one module (`shengji.botkit`); the
    heuristic's modules and the knowledge they share (issue 30) use nothing else."""
    public = {"botkit", "actions", "errors", "options", "vocab", "cards", "hand"}
    paths = sorted((PKG / "bots").glob("heuristic*.py")) + [PKG / "bots" / "knowledge.py"]
    assert PKG / "bots" / "heuristic.py" in paths
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        engine = [
            node.module for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.level == 2 and node.module
        ]
        assert "botkit" in engine, path.name
        assert [m for m in engine if m not in public] == [], path.name


def test_the_engine_and_the_bots_never_import_the_analysis_layer() -> None:
    """Issue 32: `shengji.analysis` sits above `bots/`; nothing below it imports it."""
    found = []
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(PKG)
        if rel.parts[0] in ("analysis", "server", "tui") or rel.name in ("cli.py", "__main__.py"):
            continue  # the analysis itself and the front ends that use it
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.ImportFrom):
                base = "." * node.level + (node.module or "")
                names = [base] + [f"{base}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            if any("analysis" in n.split(".") for n in names):
                found.append(f"{rel}:{node.lineno}")
    assert not found, "the analysis layer imported from below it:\n" + "\n".join(found)
    assert (PKG / "analysis" / "review.py").exists()  # the scan looks at a real layer
