"""A seeded sweep of illegal actions over random positions (issue #29 item 3).

Every refusal the engine gives carries a refusal code (never the catch-all "illegal") and
the facts its pattern names, changes nothing, and is worded in all seven languages by
keys whose placeholders the facts fill (the client adds `n`, the count that picks the
plural form, from `need` or `n`; see `explain` in static/js/table.js).
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

from helpers import snapshot
from shengji import CARDS, Game
from shengji.actions import Action, Bury, Declare, Pass, Play
from shengji.errors import CODES, IllegalAction
from shengji.options import PRESETS

I18N = Path(__file__).resolve().parents[1] / "src/shengji/server/static/i18n"
LANGS = ("en", "zh", "vi", "th", "ko", "sq", "mn")
TABLES = {lang: json.loads((I18N / f"{lang}.json").read_text(encoding="utf-8")) for lang in LANGS}
_PLACEHOLDER = re.compile(r"\{(\w+)\}")
_PLURAL_FORMS = ("zero", "one", "two", "few", "many", "other")


def _keys(table: dict[str, str], code: str) -> dict[str, str]:
    """The strings that word refusal `code` in one language: the plain key, or its plural forms."""
    plain = f"refusal.{code}"
    if plain in table:
        return {plain: table[plain]}
    return {f"{plain}.{f}": table[f"{plain}.{f}"] for f in _PLURAL_FORMS
            if f"{plain}.{f}" in table}


def _facts_named(code: str) -> set[str]:
    """The facts pattern `code` can yield (its named groups, a trailing 2 dropped)."""
    pattern = dict(CODES)[code]
    return {k.rstrip("2") for k in pattern.groupindex}


def _random_illegal(game: Game, rng: random.Random) -> Action:
    """A random action, mostly of the kind the phase wants by the seat to act, with random
    cards: most are illegal (the wrong seat, phase, count or suit, or cards not held)."""
    decision = game.decision()
    seat = decision.seat if decision.seat is not None and rng.random() < 0.7 else rng.randrange(4)
    hand = list(game.view(seat).hand)
    if hand and rng.random() < 0.85:
        cards = tuple(rng.sample(hand, min(len(hand), rng.choice((0, 1, 2, 2, 3, 4, 6, 8, 9)))))
    else:
        cards = tuple(rng.choice(CARDS) for _ in range(rng.choice((1, 2, 8))))
    wanted = {"play": Play, "kitty": Bury}.get(decision.phase, Declare)
    kind = wanted if rng.random() < 0.7 else rng.choice((Play, Bury, Declare, Pass))
    return Pass(seat) if kind is Pass else kind(seat, cards)


def _sweep(seeds: range, tries_per_step: int) -> list[tuple[str, dict[str, int | str], str]]:
    refusals: list[tuple[str, dict[str, int | str], str]] = []
    presets = sorted(PRESETS)
    for seed in seeds:
        rng = random.Random(seed)
        game = Game(seed, PRESETS[presets[seed % len(presets)]])
        steps = 0
        while not game.is_over and steps < 400:
            if game.decision().seat is not None:  # a player's turn: try illegal actions
                for _ in range(tries_per_step):
                    action = _random_illegal(game, rng)
                    try:
                        game.check(action)
                    except IllegalAction as e:
                        before = snapshot(game) if len(refusals) % 4 == 0 else None
                        try:
                            game.apply(action)
                        except IllegalAction as again:
                            assert (again.code, again.facts) == (e.code, e.facts), action
                        else:
                            raise AssertionError(f"check refused {action} but apply took it")
                        if before is not None:  # a refusal changes nothing (every 4th checked)
                            assert snapshot(game) == before, action
                        refusals.append((e.code, e.facts, e.message))
            game.apply(game.random_action(rng))
            steps += 1
    return refusals


def test_every_refusal_in_a_seeded_sweep_has_a_code_facts_and_words_in_every_language() -> None:
    refusals = _sweep(range(8), tries_per_step=2)
    assert len(refusals) > 500  # the sweep really met refusals
    seen = {code for code, _, _ in refusals}
    # the refusals a player meets at the table all came up
    assert {"not_your_turn", "not_in_hand", "wrong_phase", "follow_count", "follow_suit",
            "lead_one_suit", "bury_count", "not_asked"} <= seen, seen
    for code, facts, message in refusals:
        assert code != "illegal", f"no refusal code for: {message}"
        assert message.startswith("RULES §"), message  # and it cites its rule
        assert set(facts) == _facts_named(code) & set(facts), (code, facts)
        given = set(facts) | ({"n"} if isinstance(facts.get("need", facts.get("n")), int)
                              else set())
        for lang, table in TABLES.items():
            texts = _keys(table, code)
            assert texts, (lang, code)
            plural = any(k.endswith(".other") for k in texts)
            assert not plural or "n" in given, (lang, code, facts)  # the count picks the form
            for key, text in texts.items():
                missing = set(_PLACEHOLDER.findall(text)) - given
                assert not missing, f"{lang} {key} {text!r}: no fact for {missing} in {facts}"


def test_every_code_is_worded_in_every_language_with_placeholders_its_facts_can_fill() -> None:
    for code, _ in CODES:
        can = _facts_named(code) | ({"n"} if _facts_named(code) & {"n", "need"} else set())
        for lang, table in TABLES.items():
            texts = _keys(table, code)
            assert texts, (lang, code)
            for key, text in texts.items():
                extra = set(_PLACEHOLDER.findall(text)) - can
                assert not extra, f"{lang} {key} {text!r}: {extra} is no fact of {code}"
                assert "RULES" not in text and "§" not in text, (lang, key)  # cited once, by link
