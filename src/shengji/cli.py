"""The `shengji` command (typer + rich)."""

from __future__ import annotations

import random
from collections.abc import Iterable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from .actions import Bury, Declare, Draw, Play
from .cards import Card
from .game import Game
from .options import RuleOptions

app = typer.Typer(help="Tractor (拖拉机, Shengji): play, watch and measure.", no_args_is_help=True)
console = Console()

SEAT_NAMES = ("South", "East", "North", "West")


@app.callback()
def _root() -> None:
    """Tractor (拖拉机, Shengji): play, watch and measure."""


@app.command()
def demo(
    seed: int = typer.Option(1, help="Shuffle seed: the same seed gives the same game."),
    rounds: int = typer.Option(0, help="Stop after this many rounds (0: play the whole game)."),
    option: list[str] = typer.Option([], "--option", help="Rule option name=value (RULES §10)."),
) -> None:
    """Play one seeded game between random bots and print a readable log of it."""
    game = Game(seed=seed, options=RuleOptions.parse(option))
    rng = random.Random(seed)
    console.print(f"[bold]Tractor demo[/] seed {seed}, options {game.options.to_json()}")
    while not game.is_over and (rounds == 0 or len(game.results) < rounds):
        rnd = game.round
        action = game.random_action(rng)
        before_tricks = len(rnd.tricks)
        n_failed = len(rnd.failed_throws)
        game.apply(action)
        if isinstance(action, Draw) and rnd.drawn == 1 and rnd.attempt == 0:
            console.rule(
                f"Round {rnd.round_no + 1} — levels {rnd.levels[0]}/{rnd.levels[1]}, "
                f"trump rank {rnd.trump_rank}"
            )
        elif isinstance(action, Draw) and rnd.drawn == 1:
            console.print("[yellow]Nobody declared: redeal (RULES §3.5)[/]")
        if isinstance(action, Declare):
            console.print(f"  {SEAT_NAMES[action.seat]} declares {_cards(action.cards)}")
        if isinstance(action, Bury):
            t = rnd.trump
            assert t is not None
            if rnd.kitty_flip:
                console.print(f"  kitty turned up: {_ids(rnd.kitty_flip)}")
            console.print(
                f"  trump: rank {t.rank or '-'} suit {t.suit or 'none (jokers)'}; "
                f"starter {SEAT_NAMES[action.seat]} buries {_cards(action.cards)}"
            )
        if isinstance(action, Play):
            if len(rnd.failed_throws) > n_failed:
                f = rnd.failed_throws[-1]
                console.print(
                    f"  [red]{SEAT_NAMES[f.seat]}'s throw {_cards(f.attempted)} fails[/]: "
                    f"{SEAT_NAMES[f.blocker]} shows {_cards(f.shown)}; "
                    f"{_cards(f.forced)} is led instead (penalty {abs(f.penalty)})"
                )
            if len(rnd.tricks) > before_tricks:
                leader, plays, winner, pts = rnd.tricks[-1]
                text = ", ".join(f"{SEAT_NAMES[s][0]} {_ids(ids)}" for s, ids in plays)
                console.print(
                    f"  trick {len(rnd.tricks):2}: {text} → {SEAT_NAMES[winner]}"
                    + (f" (+{pts})" if pts else "")
                )
        if rnd.result is not None and game.results and game.results[-1] is rnd.result:
            r = rnd.result
            console.print(
                f"  [bold]opponents' points {r.opponents_points}[/] (kitty {_cards(r.kitty)}: "
                f"+{r.kitty_points} at ×{r.multiplier}); "
                f"{r.gainer} +{r.levels_gained}; levels {r.levels_after[0]}/{r.levels_after[1]}; "
                f"next starter {SEAT_NAMES[r.next_starter]}"
            )
    if game.is_over:
        assert game.winner is not None
        console.print(
            f"[bold green]Team {game.winner} (seats {game.winner} and {game.winner + 2}) wins "
            f"after {len(game.results)} rounds, levels {game.level_names}[/]"
        )


def _cards(cards: Iterable[Card]) -> str:
    return " ".join(c.pretty for c in cards)


def _ids(ids: tuple[int, ...]) -> str:
    from .cards import CARDS

    return " ".join(CARDS[i].pretty for i in ids)


# ---------------------------------------------------------------- play, replay, arena
# (the terminal client lives in shengji.tui, the arena in shengji.arena; imported
# lazily so that `shengji --help` stays fast)


def _options(items: list[str]) -> RuleOptions:
    from .errors import IllegalAction

    try:
        return RuleOptions.parse(items)
    except IllegalAction as e:
        raise typer.BadParameter(str(e), param_hint="--option") from None


def _kind(value: str) -> str:
    from .bots import AGENT_KINDS

    if value not in AGENT_KINDS:
        raise typer.BadParameter(f"{value!r} is not a bot kind ({', '.join(AGENT_KINDS)})")
    return value


@app.command()
def play(
    partner: Annotated[
        str, typer.Option(callback=_kind, help="Your partner's bot (North).")
    ] = "heuristic",
    opponents: Annotated[
        str, typer.Option(callback=_kind, help="The opponents' bots (East and West).")
    ] = "heuristic",
    seed: Annotated[
        int | None, typer.Option(help="Shuffle seed (default: a random one).")
    ] = None,
    option: Annotated[
        list[str] | None,
        typer.Option("--option", help="Rule option name=value (RULES §10), repeatable."),
    ] = None,
    save: Annotated[Path | None, typer.Option(help="Save the game record here (JSON).")] = None,
) -> None:
    """Play a whole game in the terminal: you are South, bots hold the other seats."""
    from .tui import play_terminal

    if seed is None:
        seed = random.SystemRandom().randrange(10**6)
    code = play_terminal(
        seed=seed, options=_options(option or []), partner=partner, opponents=opponents,
        save=save,
    )
    raise typer.Exit(code)


@app.command("replay")
def replay_cmd(
    path: Annotated[
        Path, typer.Argument(exists=True, dir_okay=False, help="A saved game (JSON).")
    ],
    all_: Annotated[
        bool, typer.Option("--all", help="Print everything without pausing.")
    ] = False,
) -> None:
    """Step through a saved game trick by trick (Enter for the next trick)."""
    from .errors import IllegalAction
    from .tui import replay_terminal

    try:
        code = replay_terminal(path, all_=all_)
    except IllegalAction as e:
        console.print(f"[red]{e}[/]")
        raise typer.Exit(1) from None
    raise typer.Exit(code)


@app.command()
def arena(
    a: Annotated[str, typer.Option("--a", callback=_kind, help="Agent A.")] = "heuristic",
    b: Annotated[
        list[str] | None,
        typer.Option("--b", help="Agent B (repeatable or comma separated; one pairing each)."),
    ] = None,
    deals: Annotated[
        int, typer.Option(min=0, help="Mirrored deals per pairing (each played twice).")
    ] = 200,
    games: Annotated[
        int, typer.Option(min=0, help="Also play this many mirrored full games.")
    ] = 0,
    seed: Annotated[int, typer.Option(help="Arena seed: every deal derives from it.")] = 0,
    workers: Annotated[int, typer.Option(min=0, help="Processes (0: one per CPU).")] = 0,
    option: Annotated[
        list[str] | None,
        typer.Option("--option", help="Rule option name=value (RULES §10), repeatable."),
    ] = None,
    plot: Annotated[
        Path | None, typer.Option(help="Write a plot (PNG) of the results here.")
    ] = None,
    json_path: Annotated[
        Path | None, typer.Option("--json", help="Write the results as JSON here.")
    ] = None,
) -> None:
    """Bots against bots on mirrored duplicate deals: win rates and levels with 95% CIs."""
    import os

    from .arena import arena_main

    bs = [_kind(x.strip()) for item in (b or ["random"]) for x in item.split(",") if x.strip()]
    if deals == 0 and games == 0:
        raise typer.BadParameter("nothing to play: give --deals and/or --games")
    arena_main(
        a, bs, deals=deals, games=games, seed=seed, workers=workers or (os.cpu_count() or 1),
        options=_options(option or []), plot=plot, json_path=json_path, console=console,
    )

RULES_LANGS = ("en", "zh", "vi", "th", "ko", "sq", "mn")
# RULES §8.2: opponents' points -> (message, levels)
_LEVEL_ROWS = (
    ("low", "levels_decl", 3), ("5 – 35", "levels_decl", 2), ("40 – 75", "levels_decl", 1),
    ("80 – 115", "levels_swap", 0), ("120 – 155", "levels_opp", 1),
    ("160 – 195", "levels_opp", 2), ("200 – 235", "levels_opp", 3),
    ("high", "levels_opp_more", 4),
)


def _rules_text(lang: str) -> dict[str, Any]:
    """The players' rules (the web client's "How to play" text) in one language."""
    import json

    path = Path(__file__).parent / "server" / "static" / "i18n" / "rules" / f"{lang}.json"
    data: dict[str, Any] = json.loads(path.read_text("utf-8"))
    return data


def _rules_lang(value: str | None) -> str:
    if value is None:
        import os

        env = (os.environ.get("LC_ALL") or os.environ.get("LANG") or "en").lower()[:2]
        return env if env in RULES_LANGS else "en"
    if value not in RULES_LANGS:
        raise typer.BadParameter(f"{value!r}: one of {', '.join(RULES_LANGS)}")
    return value


@app.command()
def rules(
    lang: Annotated[
        str | None,
        typer.Option(
            "--lang", callback=_rules_lang,
            help=f"Language: {', '.join(RULES_LANGS)} (default: from $LANG, else en).",
        ),
    ] = None,
) -> None:
    """Print how to play, for players (the full rulebook is docs/RULES.md)."""
    from rich.markup import escape
    from rich.padding import Padding
    from rich.table import Table

    from .cards import parse_cards

    text = _rules_text(lang or "en")
    console.print(f"[bold underline]{escape(text['title'])}[/]\n")
    console.print(escape(text["intro"]) + "\n")
    for sec in text["sections"]:
        console.print(f"[bold]§{sec['id']} {escape(sec['title'])}[/]")
        for para in sec.get("p", []):
            console.print(Padding(escape(para), (0, 0, 0, 2)))
        for ex in sec.get("ex", []):
            cards = " ".join(c.pretty for c in parse_cards(ex["cards"]))
            console.print(Padding(f"[bold]{escape(cards)}[/]  {escape(ex['text'])}", (0, 0, 0, 4)))
        if sec.get("table") == "levels":
            table = Table(text["levels_points"], text["levels_result"], box=None, padding=(0, 2))
            for pts, key, n in _LEVEL_ROWS:
                shown = {"low": text["levels_low"], "high": text["levels_high"]}.get(pts, pts)
                table.add_row(escape(shown), escape(text[key].replace("{n}", str(n))))
            console.print(table)
        for para in sec.get("after", []):
            console.print(Padding(escape(para), (0, 0, 0, 2)))
        console.print()
    console.print(f"[dim]{escape(text['full'])}[/]")


@app.command()
def serve(
    host: str = typer.Option("127.0.0.1", help="Address to listen on."),
    port: int = typer.Option(8000, help="Port to listen on."),
    db: str = typer.Option(
        "", help="Database URL (default: an SQLite file in your user data directory); "
        "postgresql+asyncpg://user:pw@host/db uses PostgreSQL."
    ),
    deal_ms: int = typer.Option(150, help="Default pause between dealt cards (ms)."),
    window_ms: int = typer.Option(10_000, help="Final declaration window (ms, RULES §3.3)."),
    bot_delay_ms: int = typer.Option(700, help="Default pause before a bot moves (ms)."),
    round_pause_ms: int = typer.Option(6_000, help="Pause between rounds (ms)."),
) -> None:
    """Start the web game: open the printed address, create a table, play."""
    from .server import default_db_url, run

    url_host = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    console.print(
        f"[bold]shengji[/] web game: open [link]http://{url_host}:{port}/[/link] in your browser "
        f"(database: {db or default_db_url()})"
    )
    run(
        host, port, db or None, deal_ms=deal_ms, window_ms=window_ms,
        bot_delay_ms=bot_delay_ms, round_pause_ms=round_pause_ms,
    )


def main() -> None:
    """Entry point of the `shengji` command."""
    app()
