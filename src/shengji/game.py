"""A whole game: levels per team, declaring team, starter rotation, the end (RULES §8.3, §9)."""

from __future__ import annotations

import random
from collections.abc import Iterator

from .actions import Action, action_from_json
from .cards import Card
from .errors import IllegalAction
from .events import Event, GameOver, RoundStarted
from .options import SEED_RULES, RuleOptions
from .record import GameRecord, RecordMismatch, round_digest
from .round import Decision, Round, RoundResult, level_index, level_name
from .views import View, build_view
from .vocab import Phase


def round_seed(game_seed: int | str, round_no: int) -> int:
    """The shuffle seed of round `round_no` of a game, derived from the game's seed."""
    return random.Random(f"shengji:{game_seed}:{round_no}").getrandbits(63)


class Game:
    """A game of Tractor from both teams at 2 until a team passes A (RULES §2, §8.3, §9).

    Round 0 has trump rank 2 and its declarer becomes starter (§3.4); each later
    round's declaring team, starter and trump rank follow from the previous result.
    """

    def __init__(self, seed: int | str = 0, options: RuleOptions | None = None) -> None:
        self.seed = seed
        self.options = options if options is not None else SEED_RULES
        self.levels: list[int] = [0, 0]
        self.results: list[RoundResult] = []
        self.digests: list[str] = []  # `round_digest` of each finished round
        self.actions: list[Action] = []
        self.winner: int | None = None
        self.round = Round(round_seed(seed, 0), self.options, trump_rank="2", round_no=0)

    # ------------------------------------------------------------ queries

    @property
    def round_no(self) -> int:
        """The current round's number (0-based)."""
        return self.round.round_no

    @property
    def is_over(self) -> bool:
        """True once a team has passed A (RULES §9)."""
        return self.winner is not None

    @property
    def level_names(self) -> tuple[str, str]:
        """Both teams' levels, `"2"`..`"A"` (`"A+"` past A)."""
        return (level_name(self.levels[0]), level_name(self.levels[1]))

    def decision(self) -> Decision:
        """What the game waits for now (`phase` "over" once a team has passed A)."""
        if self.is_over:
            return Decision(Phase.OVER, None)
        return self.round.decision()

    def legal_declarations(self, seat: int) -> list[tuple[Card, ...]]:
        """The declarations `seat` may make now in the current round (§3.3)."""
        return [] if self.is_over else self.round.legal_declarations(seat)

    def has_declaration(self, seat: int) -> bool:
        """Whether `seat` may declare now in the current round (§3.3)."""
        return self.round.has_declaration(seat)

    def legal_plays(self, seat: int) -> Iterator[tuple[Card, ...]]:
        """Every distinct legal play of `seat` now in the current round (§6)."""
        if self.is_over:
            return iter(())
        return self.round.legal_plays(seat)

    def random_play(self, seat: int, rng: random.Random) -> tuple[Card, ...]:
        """A uniformly random distinct legal play (or kitty) of `seat` now."""
        return self.round.random_play(seat, rng)

    def random_action(self, rng: random.Random) -> Action:
        """A uniformly random legal action for the current decision (`Round.random_action`)."""
        if self.is_over:
            raise IllegalAction("RULES §9: the game is over")
        return self.round.random_action(rng)

    def view(self, seat: int | None) -> View:
        """What `seat` may see now (RULES §11); None for a spectator."""
        return build_view(
            self.round,
            seat,
            last_result=self.results[-1] if self.results else None,
            game_over=self.is_over,
            winner=self.winner,
        )

    @property
    def record(self) -> GameRecord:
        """The game so far as a record: options, seed, actions and round digests."""
        return GameRecord(
            self.options,
            self.seed,
            [a.to_json() for a in self.actions],
            [round_seed(self.seed, i) for i in range(self.round.round_no + 1)],
            list(self.digests),
        )

    # ------------------------------------------------------------ actions

    def check(self, action: Action) -> None:
        """Raise `IllegalAction` if the action is not legal now; never changes anything."""
        if self.is_over:
            raise IllegalAction("RULES §9: the game is over")
        self.round.check(action)

    def apply(self, action: Action) -> list[Event]:
        """Validate and apply; on `IllegalAction` nothing changes. Starts the next round
        when one ends (§8.3) and ends the game when a team passes A (§9).

        Returns the events the action caused (see `shengji.events`): the round's, then
        `RoundStarted` or `GameOver` when the round ended.
        """
        if self.is_over:
            raise IllegalAction("RULES §9: the game is over")
        events = self.round.apply(action)
        self.actions.append(action)
        if self.round.is_over:
            self._next_round()
            if self.winner is not None:
                events.append(GameOver(self.winner, self.level_names))
            else:
                events.append(self.round_started())
        return events

    def step(self, action: Action) -> None:
        """Like `apply` without building the events (simulations, search, training)."""
        if self.is_over:
            raise IllegalAction("RULES §9: the game is over")
        self.round.step(action)
        self.actions.append(action)
        if self.round.is_over:
            self._next_round()

    def round_started(self) -> RoundStarted:
        """The `RoundStarted` event of the current round (narrators show it before its deal)."""
        r = self.round
        return RoundStarted(r.round_no, r.trump_rank, r.starter, r.declaring_team, r.levels)

    def _next_round(self) -> None:
        result = self.round.result
        assert result is not None
        self.results.append(result)
        self.digests.append(round_digest(result, len(self.actions)))
        self.levels = [level_index(x) for x in result.levels_after]
        if max(self.levels) > 12:
            self.winner = 0 if self.levels[0] > 12 else 1
            return
        team = result.next_declaring_team
        n = self.round.round_no + 1
        self.round = Round(
            round_seed(self.seed, n),
            self.options,
            trump_rank=level_name(self.levels[team]),
            starter=result.next_starter,
            declaring_team=team,
            round_no=n,
            levels=self.level_names,
        )



def replay(record: GameRecord, upto: int | None = None) -> Game:
    """Rebuild the exact game from a record (optionally only its first `upto` actions).

    Raises `RecordMismatch` naming the round and action index where the record stops
    reproducing itself: an action the rules refuse there, or a finished round whose
    result differs from the recorded digest.
    """
    game = Game(record.seed, record.options)
    for i, s in enumerate(record.round_seeds):
        if s != round_seed(record.seed, i):
            raise RecordMismatch(
                f"malformed record: round {i}'s seed does not derive from the seed", i, 0
            )
    actions = record.actions if upto is None else record.actions[:upto]
    for i, a in enumerate(actions):
        rnd = game.round_no
        try:
            game.apply(action_from_json(a))
        except IllegalAction as e:
            raise RecordMismatch(
                f"record does not replay: round {rnd}, action {i}: {e.message}", rnd, i
            ) from None
        done = len(game.digests)
        if game.round_no != rnd or game.is_over:
            k = done - 1
            if k < len(record.digests) and record.digests[k] != game.digests[k]:
                raise RecordMismatch(
                    f"record does not replay: round {k} ends at action {i} with a result "
                    f"other than the recorded one (digest {game.digests[k]} != "
                    f"{record.digests[k]})",
                    k,
                    i,
                )
    return game
