"""The package's house rules (issues 8, 30): no back doors into `Round`/`Game`, no import
circles (counting every import, even under `TYPE_CHECKING` or in a function), no module
writing another module's objects' private fields.

All are read from the source with `ast`, so a new back door or circle fails here the
day it is written, whatever the code path that would have used it.
"""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest

from helpers import assigned_targets
from shengji import Game, Round
from shengji.errors import IllegalAction

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "src" / "shengji"
# The engine modules that own `Round`/`Game` state (a round builds its own views).
OWNERS = {PKG / "round.py", PKG / "game.py"}


def _private_state(path: Path, cls: str) -> set[str]:
    """The underscore attributes a class's methods assign on an instance."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == cls:
            for _, t in assigned_targets(node):
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


def _imports(path: Path, module: str) -> set[str]:
    """Every module `module` names in an import statement anywhere: at module level, in
    functions, under `if TYPE_CHECKING:` (a circle held together by those is still a
    circle for whoever reads the code)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")
                up = up[: len(up) - (node.level - 1)]
                base = ".".join([*up, base] if base else up)
            out.add(base)
            out.update(f"{base}.{a.name}" for a in node.names)
    return out


def _import_graph() -> dict[str, list[str]]:
    modules = {_module_of(p): p for p in PKG.rglob("*.py")}
    # a submodule importing its own package (`from . import x`) is Python's usual
    # re-export pattern, not a circle between two modules: those edges are left out
    return {
        m: sorted(
            d for d in _imports(p, m)
            if d in modules and d != m and not m.startswith(d + ".")
        )
        for m, p in modules.items()
    }


def _circles(graph: dict[str, list[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[set[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(comp)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


#: The import edges that lie on a circle today, all in the server (issue 30 item 1: its
#: `Table` and the helpers that are its methods written in other files, held together by
#: `TYPE_CHECKING` imports). The list may only shrink: a new edge on a circle fails, and
#: so does an entry here once its edge is no longer on one (take it out).
ALLOWED_CIRCLE_EDGES = {
    ("shengji.server.manager", "shengji.server.tables"),
    ("shengji.server.routing", "shengji.server.seats"),
    ("shengji.server.routing", "shengji.server.tables"),
    ("shengji.server.seats", "shengji.server.tables"),
    ("shengji.server.tables", "shengji.server.manager"),
    ("shengji.server.tables", "shengji.server.routing"),
    ("shengji.server.tables", "shengji.server.seats"),
}


def test_the_import_scan_sees_every_kind_of_import(tmp_path: Path) -> None:
    graph = _import_graph()
    assert "shengji.views" in graph["shengji.game"]  # the scan sees real imports
    path = tmp_path / "m.py"
    path.write_text(
        "import a\nif TYPE_CHECKING:\n    from . import b\n"
        "def f():\n    from .c import d\n", encoding="utf-8",
    )
    assert _imports(path, "pkg.m") == {"a", "pkg", "pkg.b", "pkg.c", "pkg.c.d"}
    assert _circles({"a": ["b"], "b": ["c"], "c": ["a"], "d": ["a"]}) == [{"a", "b", "c"}]


def test_the_package_has_no_import_circles() -> None:
    """Issues 8, 30: `game ↔ record`, `round ↔ views`, `events ↔ round ↔ views` and
    `trump ↔ shapes` were circles; none may come back, nor any other (the server's
    known ones apart, listed above)."""
    graph = _import_graph()
    on_circle = {
        (m, d) for comp in _circles(graph) for m in sorted(comp) for d in graph[m] if d in comp
    }
    new = sorted(on_circle - ALLOWED_CIRCLE_EDGES)
    assert not new, f"import edges on a circle: {new}"
    stale = sorted(ALLOWED_CIRCLE_EDGES - on_circle)
    assert not stale, f"no longer on a circle, take them out of ALLOWED_CIRCLE_EDGES: {stale}"
    engine = {m for m in graph if not m.startswith("shengji.server")}
    assert not {m for comp in _circles(graph) for m in comp} & engine


def _private_writes(tree: ast.Module) -> list[tuple[int, str]]:
    """Assignments (`=`, `+=`, annotated, `del`, `setattr(x, "_y", ...)`) to `x._name`
    where `x` is not `self`/`cls` and `_name` is no field of a class of this module."""
    own: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        for sub in ast.walk(node):
            for t in _targets(sub):
                for a in ast.walk(t):
                    if (isinstance(a, ast.Attribute) and isinstance(a.value, ast.Name)
                            and a.value.id in ("self", "cls")):
                        own.add(a.attr)
        for sub in node.body:  # class-level fields and `__slots__`
            for t in _targets(sub):
                if isinstance(t, ast.Name):
                    own.add(t.id)
                    if t.id == "__slots__":
                        own.update(
                            c.value for c in ast.walk(sub) if isinstance(c, ast.Constant)
                            and isinstance(c.value, str)
                        )
    found = []
    for node in ast.walk(tree):
        names = [
            a for t in _targets(node) for a in ast.walk(t) if isinstance(a, ast.Attribute)
            and not (isinstance(a.value, ast.Name) and a.value.id in ("self", "cls"))
        ]
        for a in names:
            if a.attr.startswith("_") and not a.attr.startswith("__") and a.attr not in own:
                found.append((node.lineno, ast.unparse(a)))
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id in ("setattr", "delattr") and len(node.args) >= 2
                and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)
                and node.args[1].value.startswith("_")
                and not node.args[1].value.startswith("__") and node.args[1].value not in own):
            found.append((node.lineno, ast.unparse(node)))
    return found


def _targets(node: ast.AST) -> list[ast.expr]:
    if isinstance(node, (ast.Assign, ast.Delete)):
        return list(node.targets)
    if isinstance(node, (ast.AnnAssign, ast.AugAssign)):
        return [node.target]
    if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
        return [node.target]
    if isinstance(node, ast.withitem) and node.optional_vars is not None:
        return [node.optional_vars]
    return []


#: Writes of another module's objects' private fields that exist today (none): it may only
#: shrink, as `ALLOWED_CIRCLE_EDGES` above.
ALLOWED_PRIVATE_WRITES: set[str] = set()


def test_the_private_write_scan_finds_a_write_and_lets_a_class_write_its_own() -> None:
    src = (
        "class Own:\n    def __init__(self):\n        self._n = 0\n"
        "def bump(o):\n    o._n += 1\n"  # the class is this module's: allowed
        "def poke(t):\n    t._fail = None\n    setattr(t, '_damaged', True)\n"
        "    t.clock._deadline += 1\n    del t._x\n"
    )
    found = {text for _, text in _private_writes(ast.parse(src))}
    assert found == {"t._fail", "setattr(t, '_damaged', True)", "t.clock._deadline", "t._x"}


def test_no_module_writes_another_modules_objects_private_fields() -> None:
    """Issue 30: a module changes another's object through that object's methods, never
    by assigning its `_fields` (the owner of a piece of state is the one place to read)."""
    found = set()
    for path in sorted(PKG.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for _, text in _private_writes(tree):
            found.add(f"{path.relative_to(PKG.parent).as_posix()}: {text}")
    new = sorted(found - ALLOWED_PRIVATE_WRITES)
    assert not new, "private fields written from outside their module:\n" + "\n".join(new)
    stale = sorted(ALLOWED_PRIVATE_WRITES - found)
    assert not stale, f"gone, take them out of ALLOWED_PRIVATE_WRITES: {stale}"


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


def _private_imports(tree: ast.Module) -> list[tuple[int, str]]:
    """`from M import _name` of this package's modules (relative or `shengji.`): another
    module's private name, used as if it were its API."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (
                node.level > 0 or (node.module or "").split(".")[0] == "shengji"):
            for alias in node.names:
                if alias.name.startswith("_") and not alias.name.startswith("__"):
                    found.append((node.lineno, f"{node.module}.{alias.name}"))
    return found


def test_the_private_import_scan_finds_one_and_lets_public_names_through() -> None:
    src = "from .storage import _lock_key, Store\nfrom shengji.bots import _x\nimport os\n" \
          "from uvicorn.x import _Other\nfrom . import __version__\n"
    found = [t for _, t in _private_imports(ast.parse(src))]
    assert found == ["storage._lock_key", "shengji.bots._x"]


def test_no_module_imports_another_modules_private_names() -> None:
    """Issue 30: what one module uses of another is its public API (the cluster read
    storage's `_lock_key` and `_INSERT_ACTION`, the manager the bot driver's `_think`)."""
    found = [f"{path.relative_to(PKG)}:{line}: {text}" for path in sorted(PKG.rglob("*.py"))
             for line, text in _private_imports(ast.parse(path.read_text()))]
    assert not found, "private names imported across modules:\n" + "\n".join(found)
