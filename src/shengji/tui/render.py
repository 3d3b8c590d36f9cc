"""Rich renderings shared by the terminal game and the replay viewer (cards, hands, tricks)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.text import Text

from ..cards import Card
from ..events import ThrowFailed
from ..options import RuleOptions
from ..results import FailedThrow, RoundResult, TrickView
from ..trump import Trump

SEAT_NAMES = ("South", "East", "North", "West")
"""Seats in play order (RULES §1: counterclockwise); the human plays South (seat 0)."""
SUIT_NAMES = {"S": "Spades ♠", "H": "Hearts ♥", "D": "Diamonds ♦", "C": "Clubs ♣", "T": "Trumps"}
PLAY_SUIT_ORDER = ("S", "H", "D", "C", "T")


def options_text(options: RuleOptions) -> str:
    """The rule options that differ from the defaults (RULES §10), as name=value."""
    default = RuleOptions().to_json()
    changed = [f"{k}={v}" for k, v in options.to_json().items() if default.get(k) != v]
    return ", ".join(changed) if changed else "RULES defaults"


JOKERS_NOTE = "BJ = black joker, RJ = red joker: the two highest trumps (RJ above BJ)."
"""Shown under a hand that holds a joker (RULES §1, §5.2)."""


def seat_name(seat: int, me: int | None = 0) -> str:
    """`"You"` for the human's seat, else the compass name."""
    return "You" if me is not None and seat == me else SEAT_NAMES[seat]


def team_name(team: int, me: int | None = 0) -> str:
    """A team by its two seats, e.g. "You+North" or "East+West"."""
    return f"{seat_name(team, me)}+{seat_name(team + 2, me)}"


def card_style(card: Card) -> str:
    """The rich style of a card: red for hearts and diamonds, bold for the jokers."""
    if card.is_joker:
        return "bold red" if card.text == "RJ" else "bold"
    return "red" if card.suit in ("H", "D") else ""


def card_text(card: Card) -> Text:
    """A card with its suit symbol, red for hearts, diamonds and the red joker."""
    return Text(card.pretty, style=card_style(card))


def cards_text(cards: Iterable[Card], sep: str = " ") -> Text:
    """Cards in the given order, each styled as `card_text`, separated by `sep`."""
    out = Text()
    for k, c in enumerate(cards):
        if k:
            out.append(sep)
        out.append_text(card_text(c))
    return out


def group_by_play_suit(hand: Sequence[Card], trump: Trump) -> list[tuple[str, list[Card]]]:
    """The hand as (play suit, cards low to high) groups, suits S H D C then trumps (§5.1)."""
    groups: dict[str, list[Card]] = {ps: [] for ps in PLAY_SUIT_ORDER}
    for c in trump.sort(hand):
        groups[trump.play_suit_of(c)].append(c)
    return [(ps, cs) for ps, cs in groups.items() if cs]


def hand_text(
    hand: Sequence[Card],
    trump: Trump,
    *,
    indexed: bool = True,
    mark: Iterable[Card] = (),
    numbers: Sequence[int] | None = None,
) -> tuple[Text, list[Card]]:
    """The hand grouped by play suit, one line per suit, with 1-based indexes.

    Returns the text and the cards in index order (index k is `cards[k - 1]`).
    `numbers`, when given, are the labels shown instead of 1..n (one per card of
    that order: the terminal game keeps a card's number for the whole round).
    Cards in `mark` (e.g. the kitty just taken) are underlined, once per copy.
    """
    marked: dict[int, int] = {}
    for c in mark:
        marked[c.id] = marked.get(c.id, 0) + 1
    order: list[Card] = []
    out = Text()
    for ps, cards in group_by_play_suit(hand, trump):
        out.append(f"  {SUIT_NAMES[ps]:<11}", style="bold cyan" if ps == "T" else "bold")
        for c in cards:
            order.append(c)
            style = card_style(c)
            if marked.get(c.id):
                marked[c.id] -= 1
                style = (style + " underline").strip()
            if indexed:
                label = numbers[len(order) - 1] if numbers is not None else len(order)
                out.append(f" {label}:", style="dim")
            else:
                out.append(" ")
            out.append(c.pretty, style=style)
        out.append("\n")
    out.rstrip()
    return out, order


def trump_text(rank: str | None, suit: str | None, final: bool) -> Text:
    """E.g. "trump rank 2, suit ♥" or "no trump suit (jokers only)"."""
    from ..cards import SUIT_SYMBOLS

    out = Text()
    if final and suit is None and rank is None:
        out.append("no trump suit, no trump rank", style="bold")
        out.append(" (only the jokers are trumps)")
        return out
    out.append("trump rank ")
    out.append(rank or "-", style="bold")
    out.append(", suit ")
    if suit is None:
        out.append("none" if final else "not yet chosen", style="bold")
    else:
        out.append(SUIT_SYMBOLS[suit], style="bold red" if suit in ("H", "D") else "bold")
    return out


def trick_text(
    trick: TrickView, number: int, me: int | None = 0, *, to_act: int | None = None,
    declaring_team: int | None = None, opponents_points: int | None = None,
) -> Text:
    """One trick: "Trick 5: East K♠ · You 3♠ · … → East (opponents +10 → 45)".

    A won trick's points are shown only as what they do (RULES §7): when the opponents
    win it, "opponents +10", with their new total when `opponents_points` is given; when
    the declarers win it, "declarers keep 10" (the opponents' points do not change). A
    trick without points, or with `declaring_team` unknown, shows none.
    """
    out = Text(f"Trick {number:>2}: ", style="bold")
    for k, (seat, cards) in enumerate(trick.plays):
        if k:
            out.append(" · ")
        out.append(seat_name(seat, me) + " ", style="bold" if seat == me else "")
        out.append_text(cards_text(cards))
    if to_act is not None:
        if trick.plays:
            out.append(" · ")
        out.append(f"{seat_name(to_act, me)} to play…", style="dim")
    if trick.winner is not None:
        out.append(" → ")
        out.append(seat_name(trick.winner, me), style="bold green")
        note = trick_points_note(trick.winner, trick.points, declaring_team, opponents_points)
        if note:
            out.append(f" ({note})", style="yellow" if note.startswith("opp") else "dim")
    return out


def trick_points_note(
    winner: int, points: int, declaring_team: int | None, opponents_points: int | None = None
) -> str:
    """What a won trick's points do (RULES §7): "opponents +10 → 45", "opponents +10",
    "declarers keep 10", or "" (no points, or the declaring team is not known)."""
    if not points or declaring_team is None:
        return ""
    if winner % 2 == declaring_team:
        return f"declarers keep {points}"
    total = "" if opponents_points is None else f" → {opponents_points}"
    return f"opponents +{points}{total}"


def failed_throw_text(f: FailedThrow | ThrowFailed, me: int | None = 0) -> Text:
    """A failed throw (RULES §6.4): what was tried, who showed what, what is led instead."""
    out = Text()
    whose = "Your" if me is not None and f.seat == me else f"{seat_name(f.seat, me)}'s"
    out.append(f"{whose} throw ", style="red")
    out.append_text(cards_text(f.attempted))
    out.append(" fails (RULES §6.4): ", style="red")
    out.append(f"{seat_name(f.blocker, me)} shows ")
    out.append_text(cards_text(f.shown))
    out.append("; ")
    out.append_text(cards_text(f.forced))
    out.append(f" is led instead, penalty {abs(f.penalty)} points")
    return out


def _levels(n: int) -> str:
    return f"{n} level" + ("" if n == 1 else "s")


def result_text(r: RoundResult, me: int | None = 0, trump: Trump | None = None) -> Text:
    """The end-of-round summary (RULES §8); `trump` sorts the kitty."""
    out = Text()
    decl = r.declaring_team
    out.append("Round over. ", style="bold")
    out.append(f"Declaring team {team_name(decl, me)} (starter {seat_name(r.starter, me)}).\n")
    out.append("  Kitty: ")
    out.append_text(cards_text(trump.sort(r.kitty) if trump is not None else r.kitty))
    out.append(f"; last trick won by {seat_name(r.last_trick_winner, me)}")
    if r.kitty_points:
        out.append(f" → kitty points ×{r.multiplier} = +{r.kitty_points}", style="yellow")
    elif r.last_trick_winner % 2 == decl:
        out.append(" → the kitty stays with the declarers")
    else:
        out.append(f" → ×{r.multiplier}, but the kitty holds no points")
    out.append("\n")
    if r.penalties:
        out.append(f"  Failed-throw penalties: {r.penalties:+d}\n")
    out.append(f"  Opponents' points: {r.opponents_points}\n", style="bold")
    team = decl if r.gainer == "declarers" else 1 - decl
    if r.gainer == "declarers":
        out.append(f"  {team_name(team, me)} keep the deal and go up {_levels(r.levels_gained)}.\n")
    elif r.levels_gained:
        out.append(
            f"  {team_name(team, me)} take over and go up {_levels(r.levels_gained)}.\n"
        )
    else:
        out.append(f"  {team_name(team, me)} take over (no level change).\n")
    out.append(
        f"  Levels: {team_name(0, me)} {r.levels_before[0]} → {r.levels_after[0]}, "
        f"{team_name(1, me)} {r.levels_before[1]} → {r.levels_after[1]}.\n"
    )
    out.append(
        f"  Next round: {team_name(r.next_declaring_team, me)} declare, "
        f"starter {seat_name(r.next_starter, me)}."
    )
    return out
