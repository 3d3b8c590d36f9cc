"""RULES §8.3 and §9: a whole game."""

from helpers import play_randomly
from shengji import Game, IllegalAction, RuleOptions
from shengji.round import level_index


def test_rounds_chain_by_the_rules_8_3_9():
    for seed in range(12):
        game = Game(seed)
        rounds = []
        rng_seed = seed
        while not game.is_over:
            rnd = game.round
            play_randomly(game, rng_seed, stop=lambda g, r=rnd: g.round is not r or g.is_over)
            rounds.append(rnd)
            rng_seed += 1000
        assert len(rounds) == len(game.results)
        assert rounds[0].trump_rank == "2" and rounds[0].first_round
        for prev, nxt, res in zip(rounds, rounds[1:], game.results, strict=False):
            assert res is prev.result
            if res.gainer == "declarers":
                assert nxt.starter == (prev.starter + 2) % 4
                assert nxt.declaring_team == prev.declaring_team
            else:
                assert nxt.starter == (prev.starter + 1) % 4
                assert nxt.declaring_team == 1 - prev.declaring_team
            assert nxt.trump_rank == res.levels_after[nxt.declaring_team]
            assert nxt.levels == res.levels_after
        last = game.results[-1]
        assert game.winner is not None
        assert level_index(last.levels_after[game.winner]) > 12  # beyond A
        assert all(level_index(x) <= 12 for r in game.results[:-1] for x in r.levels_after)


def test_game_over_refuses_actions_rules_9():
    game = Game(3)
    play_randomly(game, 3)
    assert game.decision().phase == "over"
    try:
        game.apply(game.actions[0])
    except IllegalAction as e:
        assert "RULES §9" in str(e)
    else:
        raise AssertionError("accepted an action after the end")


def test_band_option_keeps_declarers_rules_10():
    opts = RuleOptions(band_80_115="stay")
    for seed in range(40):
        game = Game(seed, opts)
        play_randomly(game, seed, stop=lambda g: bool(g.results))
        r = game.results[0]
        if 80 <= r.opponents_points < 120:
            assert r.gainer == "declarers" and r.levels_gained == 0
            assert game.round.declaring_team == r.declaring_team
            return
    raise AssertionError("no round in the 80-115 band found")
