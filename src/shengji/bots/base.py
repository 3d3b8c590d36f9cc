"""The agent factory and the agent-spec syntax; the `Agent` protocol lives with the driver.

An agent spec names a kind and, optionally, its settings: `heuristic`,
`expert`, `expert:ms=300`, `expert:iters=200,worlds=24`. Specs are accepted
wherever agents are named (`shengji play`, `shengji arena`, `make_agent`).
"""

from __future__ import annotations

from ..agent import Agent

__all__ = [
    "AGENT_KINDS", "Agent", "agent_spec_error", "is_agent_kind", "make_agent", "parse_agent_spec",
]

AGENT_KINDS: tuple[str, ...] = ("random", "heuristic", "expert")

# Settings each kind accepts (all integers).
_SETTINGS: dict[str, tuple[str, ...]] = {
    "random": (),
    "heuristic": (),
    "expert": ("ms", "iters", "worlds", "candidates", "infer"),
}


def parse_agent_spec(spec: str) -> tuple[str, dict[str, int]]:
    """Split `kind:key=value,...` into the kind and its integer settings.

    Raises `ValueError` naming the problem for an unknown kind, an unknown
    setting or a value that is not a positive integer.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError("agent spec: give a kind such as 'heuristic' or 'expert:ms=300'")
    kind, _, rest = spec.strip().partition(":")
    kind = kind.strip()
    if kind not in AGENT_KINDS:
        raise ValueError(
            f"unknown agent kind {kind!r}; choose one of {', '.join(AGENT_KINDS)}, "
            "dmc:CHECKPOINT or exec:COMMAND"
        )
    settings: dict[str, int] = {}
    for item in (x.strip() for x in rest.split(",")) if rest.strip() else ():
        key, eq, value = item.partition("=")
        key = key.strip()
        if key not in _SETTINGS[kind]:
            allowed = ", ".join(_SETTINGS[kind]) or "none"
            raise ValueError(f"agent spec {spec!r}: {kind} has no setting {key!r} (settings: "
                             f"{allowed})")
        try:
            n = int(value)
        except ValueError:
            n = 0
        if not eq or n <= 0:
            raise ValueError(f"agent spec {spec!r}: {key} takes a positive integer, as {key}=300")
        settings[key] = n
    return kind, settings


def agent_spec_error(spec: str) -> str | None:
    """Why `spec` is not a valid agent spec, or None (`dmc:CHECKPOINT` names a trained
    checkpoint of `shengji.learn`; `exec:[ms=N:]COMMAND` an external bot)."""
    if isinstance(spec, str) and spec.startswith("dmc:") and len(spec) > 4:
        return None
    if isinstance(spec, str) and spec.startswith("exec:"):
        from .external import parse_exec_spec

        try:
            parse_exec_spec(spec)
        except ValueError as e:
            return str(e)
        return None
    try:
        parse_agent_spec(spec)
    except ValueError as e:
        return str(e)
    return None


def make_agent(kind: str, seed: int) -> Agent:
    """An agent for the spec `kind` ("random", "heuristic", "expert[:ms=N|iters=N,...]"),
    deterministic given `seed` (the expert only with an iteration budget); `dmc:PATH` is a
    trained checkpoint (`shengji.learn`, extra `[rl]`); `exec:[ms=N:]COMMAND` an external bot
    speaking docs/BOT_PROTOCOL.md (`shengji.bots.external`)."""
    if kind.startswith("dmc:") and len(kind) > 4:
        from ..learn.agent import DMCAgent

        return DMCAgent(kind[4:], seed)
    if kind.startswith("exec:"):  # an external bot (docs/BOT_PROTOCOL.md)
        from .external import ExternalAgent, parse_exec_spec

        command, ms = parse_exec_spec(kind)
        return ExternalAgent(command, seed, deadline_ms=ms)
    name, settings = parse_agent_spec(kind)
    if name == "random":
        from .random_agent import RandomAgent

        return RandomAgent(seed)
    if name == "heuristic":
        from .heuristic import HeuristicAgent

        return HeuristicAgent(seed)
    from .expert import ExpertAgent

    return ExpertAgent(seed, **settings)


def is_agent_kind(kind: str) -> bool:
    """Whether `make_agent` knows this spec: a kind of AGENT_KINDS (with valid settings)
    or `dmc:CHECKPOINT` or `exec:COMMAND`."""
    return agent_spec_error(kind) is None
