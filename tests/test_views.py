"""RULES §11: what each seat may see."""

import json
import random

from helpers import play_randomly
from shengji import Game, Round


def scramble_hidden(rnd: Round, seat: int | None, rng: random.Random) -> Round:
    """A copy of the round where every card `seat` may not see is shuffled among the
    places it could be (other hands, the undrawn deck, the kitty when hidden)."""
    seats = [s for s in range(4) if s != seat]
    pool = []
    for s in seats:
        for i, n in enumerate(rnd.hand_counts(s)):
            pool += [i] * n
    kitty_hidden = rnd.phase == "play" and seat != rnd.starter
    dealing = rnd.phase in ("deal", "declare")
    if kitty_hidden:
        pool += list(rnd.kitty)
    if dealing:
        pool += rnd.deck[rnd.drawn :]
    rng.shuffle(pool)
    hands = [list(rnd.hand_counts(s)) for s in range(4)]
    k = 0
    for s in seats:
        n = rnd.hand_sizes[s]
        h = [0] * 54
        for i in pool[k : k + n]:
            h[i] += 1
        hands[s] = h
        k += n
    return rnd.with_hidden(
        hands,
        kitty=pool[k : k + 8] if kitty_hidden else None,
        undealt=pool[k:] if dealing else None,
    )


def test_views_hold_no_hidden_information_rules_11():
    rng = random.Random(5)
    checked = 0
    for seed in range(6):
        rnd = Round(seed)
        stops = {rng.randrange(1, 200) for _ in range(8)}
        n = 0

        def stop(r, stops=stops):
            nonlocal n, checked
            n += 1
            if n in stops and r.phase != "kitty":
                for seat in (0, 1, 2, 3, None):
                    if r.phase == "kitty" and seat == r.starter:
                        continue
                    a = json.dumps(r.view(seat).to_json(), sort_keys=True)
                    b = json.dumps(scramble_hidden(r, seat, rng).view(seat).to_json(),
                                   sort_keys=True)
                    assert a == b, f"seat {seat} view depends on hidden cards"
                    checked += 1
            return False

        play_randomly(rnd, seed, stop=stop)
    assert checked > 50


def test_view_shows_own_hand_sizes_and_kitty_only_to_starter_rules_11():
    game = Game(4)
    play_randomly(game, 4, stop=lambda g: g.round.phase == "play")
    rnd = game.round
    for seat in range(4):
        v = game.view(seat)
        assert sorted(c.id for c in v.hand) == sorted(
            i for i in range(54) for _ in range(rnd.hand_counts(seat)[i])
        )
        assert v.hand_sizes == tuple(rnd.hand_sizes)
        if seat == rnd.starter:
            assert v.kitty is not None and len(v.kitty) == 8 and v.kitty_taken is not None
        else:
            assert v.kitty is None and v.kitty_taken is None
    spectator = game.view(None)
    assert spectator.hand == () and spectator.kitty is None


def test_kitty_is_shown_to_everyone_when_the_round_ends_rules_11():
    rnd = Round(9)
    play_randomly(rnd, 9)
    for seat in (0, 1, 2, 3, None):
        assert rnd.view(seat).kitty == tuple(rnd.result.kitty)


def test_view_has_no_path_back_to_the_state():
    game = Game(1)
    v = game.view(0)
    seen = set()

    def walk(obj, depth=0):
        if id(obj) in seen or depth > 6:
            return
        seen.add(id(obj))
        assert not isinstance(obj, (Game, Round)), "a view references the engine state"
        if isinstance(obj, dict):
            for x in obj.values():
                walk(x, depth + 1)
        elif isinstance(obj, (list, tuple, set)):
            for x in obj:
                walk(x, depth + 1)
        elif hasattr(obj, "__dataclass_fields__"):
            for f in obj.__dataclass_fields__:
                walk(getattr(obj, f), depth + 1)

    walk(v)
    assert json.loads(json.dumps(v.to_json()))["seat"] == 0


def test_the_public_part_of_a_view_is_the_same_for_every_seat_rules_11():
    # The server encodes View.public_json() once per action for all its connections:
    # that is only right if no seat sees it differently, at any moment of a game (every
    # phase, the kitty exchange and the round's end included; RULES §11).
    seen_phases = set()
    for seed in range(4):
        game = Game(seed=seed)

        def check(g: Game) -> bool:
            views = [g.view(seat) for seat in (0, 1, 2, 3, None)]
            public = json.dumps(views[0].public_json(), sort_keys=True)
            for v in views:
                assert json.dumps(v.public_json(), sort_keys=True) == public
                assert v.to_json() == {"seat": v.seat, **v.public_json(), **v.private_json()}
                assert not set(v.public_json()) & set(v.private_json())
            seen_phases.add(views[0].phase)
            return False

        play_randomly(game, seed, stop=check)
        check(game)
    assert {"deal", "declare", "kitty", "play", "over"} <= seen_phases
