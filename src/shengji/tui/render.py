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


_TABLE = [4]  # the seats of the table shown (RULES §12.1); set by `set_table`


def set_table(n_players: int) -> None:
    """Name the seats of a table of `n_players` (RULES §12.1): the compass at four,
    "Seat k" (k = 0 … N−1, the engine's seat numbers) at larger tables."""
    _TABLE[0] = n_players


def seat_name(seat: int, me: int | None = 0) -> str:
    """`"You"` for the human's seat, else the compass name (four seats) or "Seat k"."""
    if me is not None and seat == me:
        return "You"
    return SEAT_NAMES[seat] if _TABLE[0] == 4 else f"Seat {seat}"


def team_name(team: int, me: int | None = 0) -> str:
    """A team by its seats (same parity, RULES §12.2), e.g. "You+North" or "East+West";
    "You+Seat 2+Seat 4" at six seats."""
    return "+".join(seat_name(s, me) for s in range(team, _TABLE[0], 2))


def ordinal(j: int) -> str:
    """1st, 2nd, 3rd, 4th, 5th (the ordinals of a friend call, RULES §12.4)."""
    return f"{j}" + {1: "st", 2: "nd", 3: "rd"}.get(j, "th")


def calls_text(calls: Sequence[tuple[Card, int, int | None, bool]], me: int | None = 0) -> Text:
    """The friends banner (RULES §12.4): "Friend: the 2nd A♠ — not yet played" for each
    call (`View.calls`: card, ordinal, who played the copy, spent), or who joined, or
    that it is spent. Public information only (§11)."""
    out = Text()
    for k, (card, j, by, spent) in enumerate(calls):
        out.append(" · " if k else "Friend: ", style="bold")
        out.append(f"the {ordinal(j)} ")
        out.append_text(card_text(card))
        if by is None:
            out.append(" — spent (not played: in the kitty)" if spent else " — not yet played",
                       style="dim")
        elif spent:
            out.append(f" — played by {seat_name(by, me)}, already on the leader's side "
                       "(spent)", style="dim")
        else:
            out.append(f" — {seat_name(by, me)} joined", style="bold green")
    return out


def levels_text(levels: Sequence[str], me: int | None = 0, friends: bool = False) -> str:
    """The levels: "You+North 2, East+West 5" (teams) or "You 2, Seat 1 3, …" (friends,
    a level per player, RULES §12.4)."""
    if friends:
        return ", ".join(f"{seat_name(s, me)} {lv}" for s, lv in enumerate(levels))
    return f"{team_name(0, me)} {levels[0]}, {team_name(1, me)} {levels[1]}"


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
    out.append(f"{seat_name(f.blocker, me)} {'show' if f.blocker == me else 'shows'} ")
    out.append_text(cards_text(f.shown))
    out.append("; ")
    out.append_text(cards_text(f.forced))
    out.append(f" is led instead, penalty {abs(f.penalty)} points")
    return out


def _levels(n: int) -> str:
    return f"{n} level" + ("" if n == 1 else "s")


def friends_result_text(
    r: RoundResult, me: int | None = 0, trump: Trump | None = None
) -> Text:
    """The end of a friends-mode round (RULES §12.4): the sides, points by side, the kitty,
    each player's level change and the next leader."""
    assert r.sides is not None and r.level_gains is not None
    out = Text()
    out.append("Round over. ", style="bold")
    out.append(f"Leader {seat_name(r.starter, me)}")
    friends = ", ".join(seat_name(s, me) for s in (r.friends or ()))
    out.append(f", friends: {friends}.\n" if friends else ", who found no friend.\n")
    out.append("  Kitty: ")
    out.append_text(cards_text(trump.sort(r.kitty) if trump is not None else r.kitty))
    out.append(f"; last trick won by {seat_name(r.last_trick_winner, me)}")
    if r.kitty_points:
        out.append(f" → kitty points ×{r.multiplier} = +{r.kitty_points}", style="yellow")
    out.append("\n")
    if r.penalties:
        out.append(f"  Failed-throw penalties: {r.penalties:+d}\n")
    if r.side_points is not None:
        out.append(f"  Tricks' points: leader's side {r.side_points[0]}, "
                   f"opponents {r.side_points[1]}.\n")
    out.append(f"  Opponents' points: {r.opponents_points}\n", style="bold")
    side = "The leader's side" if r.gainer == "declarers" else "The opponents"
    if r.levels_gained or r.gainer == "declarers":
        out.append(f"  {side} go up {_levels(r.levels_gained)}.\n")
    else:
        out.append("  The opponents take over (no level change).\n")
    out.append("  Levels: " + ", ".join(
        f"{seat_name(s, me)} {b}" + (f" → {a}" if a != b else "")
        for s, (b, a) in enumerate(zip(r.levels_before, r.levels_after, strict=True))
    ) + ".\n")
    out.append(f"  Next round: leader {seat_name(r.next_starter, me)}.")
    return out


def result_text(r: RoundResult, me: int | None = 0, trump: Trump | None = None) -> Text:
    """The end-of-round summary (RULES §8); `trump` sorts the kitty."""
    if r.sides is not None:
        return friends_result_text(r, me, trump)
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
