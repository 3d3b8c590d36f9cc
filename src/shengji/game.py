"""A whole game: levels, the declaring side, starter rotation, the end (RULES §8.3, §9, §12).

Teams mode (§12.2, and the four-player game): a level per team, the declaring team and
the starter rotate as §8.3 says, `(starter + 2) % N` or `(starter + 1) % N`. Friends mode
(§12.4): a level per player, the round's leader (the standing declarer in round 1, then
the next leader of the previous result) declares at their own level.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from .actions import Action, action_from_json
from .cards import Card
from .errors import IllegalAction
from .events import Event, GameOver, RoundStarted
from .options import SEED_RULES, RuleOptions
from .record import GameRecord, RecordMismatch, round_digest
from .results import RoundResult
from .round import Decision, Round, build_view, level_index, level_name
from .views import View
from .vocab import Phase


def round_seed(game_seed: int | str, round_no: int) -> int:
    """The shuffle seed of round `round_no` of a game, derived from the game's seed."""
    return random.Random(f"shengji:{game_seed}:{round_no}").getrandbits(63)


class Game:
    """A game of Tractor from every level at 2 until one passes A (RULES §2, §8.3, §9, §12).

    Round 0 has trump rank 2 and its declarer becomes starter (§3.4), in friends mode the
    leader (§12.4); each later round's declaring team or leader, starter and trump rank
    follow from the previous result. Any table of the options (`players`, `decks`,
    `mode`, `kitty_size`, §12) plays the same way.
    """

    def __init__(self, seed: int | str = 0, options: RuleOptions | None = None) -> None:
        self._seed = seed
        self._options = options if options is not None else SEED_RULES
        self._friends = self._options.mode == "friends"
        self._levels: list[int] = [0] * (self._options.n_players if self._friends else 2)
        self._results: list[RoundResult] = []
        self._digests: list[str] = []  # `round_digest` of each finished round
        self._actions: list[Action] = []
        self._winner: int | None = None
        self._winners: tuple[int, ...] = ()
        self._round = Round(
            round_seed(seed, 0), self._options, trump_rank="2", round_no=0,
            levels=self.level_names,
        )

    # ------------------------------------------------------------ read-only state

    @property
    def seed(self) -> int | str:
        """The game's seed; round `n` is dealt from `round_seed(seed, n)`."""
        return self._seed

    @property
    def options(self) -> RuleOptions:
        """The rule options the game is played under (RULES §10)."""
        return self._options

    @property
    def round(self) -> Round:
        """The current round, for reading (act through `Game.apply`, which keeps the
        game's record)."""
        return self._round

    @property
    def levels(self) -> tuple[int, ...]:
        """The levels as indices (0 is "2", 12 is "A", 13 past A; RULES §2): both teams'
        in teams mode, one per seat in friends mode (RULES §12.4)."""
        return tuple(self._levels)

    @property
    def friends_mode(self) -> bool:
        """True in friends mode (RULES §12.4): a level per player, a leader each round."""
        return self._friends

    @property
    def results(self) -> tuple[RoundResult, ...]:
        """The results of the finished rounds, in order (RULES §8)."""
        return tuple(self._results)

    @property
    def digests(self) -> tuple[str, ...]:
        """`round_digest` of each finished round (what a record proves itself with)."""
        return tuple(self._digests)

    @property
    def actions(self) -> tuple[Action, ...]:
        """Every action applied in the game, in order."""
        return tuple(self._actions)

    @property
    def winner(self) -> int | None:
        """Who won (RULES §9), None while the game goes on: the team (0 or 1) that passed
        A in teams mode; in friends mode (§12.4) the seat that passed A, or when several
        passed A in the same round, the first of them in play order from the round's
        leader (the leader if they did). `winners` lists them all."""
        return self._winner

    @property
    def winners(self) -> tuple[int, ...]:
        """Every team (teams mode) or seat (friends mode) beyond A at the end, in the
        order `winner` reads them; empty while the game goes on."""
        return self._winners

    # ------------------------------------------------------------ queries

    @property
    def round_no(self) -> int:
        """The current round's number (0-based)."""
        return self._round.round_no

    @property
    def is_over(self) -> bool:
        """True once a team has passed A (RULES §9)."""
        return self._winner is not None

    @property
    def level_names(self) -> tuple[str, ...]:
        """The levels, `"2"`..`"A"` (`"A+"` past A): both teams', or each seat's in
        friends mode."""
        return tuple([level_name(x) for x in self._levels])

    def decision(self) -> Decision:
        """What the game waits for now (`phase` "over" once a team has passed A)."""
        if self.is_over:
            return Decision(Phase.OVER, None)
        return self._round.decision()

    def legal_declarations(self, seat: int) -> list[tuple[Card, ...]]:
        """The declarations `seat` may make now in the current round (§3.3)."""
        return [] if self.is_over else self._round.legal_declarations(seat)

    def has_declaration(self, seat: int) -> bool:
        """Whether `seat` may declare now in the current round (§3.3)."""
        return self._round.has_declaration(seat)

    def legal_plays(self, seat: int) -> Iterator[tuple[Card, ...]]:
        """Every distinct legal play of `seat` now in the current round (§6)."""
        if self.is_over:
            return iter(())
        return self._round.legal_plays(seat)

    def random_play(self, seat: int, rng: random.Random) -> tuple[Card, ...]:
        """A uniformly random distinct legal play (or kitty) of `seat` now."""
        return self._round.random_play(seat, rng)

    def random_action(self, rng: random.Random) -> Action:
        """A uniformly random legal action for the current decision (`Round.random_action`)."""
        if self.is_over:
            raise IllegalAction("RULES §9: the game is over")
        return self._round.random_action(rng)

    def view(self, seat: int | None) -> View:
        """What `seat` may see now (RULES §11); None for a spectator."""
        return build_view(
            self._round,
            seat,
            last_result=self._results[-1] if self._results else None,
            game_over=self.is_over,
            winner=self._winner,
        )

    @property
    def record(self) -> GameRecord:
        """The game so far as a record: options, seed, actions and round digests."""
        return GameRecord(
            self._options,
            self._seed,
            [a.to_json() for a in self._actions],
            [round_seed(self._seed, i) for i in range(self._round.round_no + 1)],
            list(self._digests),
        )

    # ------------------------------------------------------------ actions

    def check(self, action: Action) -> None:
        """Raise `IllegalAction` if the action is not legal now; never changes anything."""
        if self.is_over:
            raise IllegalAction("RULES §9: the game is over")
        self._round.check(action)

    def apply(self, action: Action) -> list[Event]:
        """Validate and apply; on `IllegalAction` nothing changes. Starts the next round
        when one ends (§8.3) and ends the game when a team passes A (§9).

        Returns the events the action caused (see `shengji.events`): the round's, then
        `RoundStarted` or `GameOver` when the round ended.
        """
        if self.is_over:
            raise IllegalAction("RULES §9: the game is over")
        events = self._round.apply(action)
        self._actions.append(action)
        if self._round.is_over:
            self._next_round()
            if self._winner is not None:
                events.append(GameOver(self._winner, self.level_names))
            else:
                events.append(self.round_started())
        return events

    def step(self, action: Action) -> None:
        """Like `apply` without building the events (simulations, search, training)."""
        if self.is_over:
            raise IllegalAction("RULES §9: the game is over")
        self._round.step(action)
        self._actions.append(action)
        if self._round.is_over:
            self._next_round()

    def round_started(self) -> RoundStarted:
        """The `RoundStarted` event of the current round (narrators show it before its deal)."""
        r = self._round
        return RoundStarted(r.round_no, r.trump_rank, r.starter, r.declaring_team, r.levels)

    def _next_round(self) -> None:
        result = self._round.result
        assert result is not None
        self._results.append(result)
        self._digests.append(round_digest(result, len(self._actions)))
        self._levels = [level_index(x) for x in result.levels_after]
        if max(self._levels) > 12:
            first = result.starter if self._friends else 0  # the leader reads first
            n_sides = len(self._levels)
            self._winners = tuple(
                s for s in ((first + k) % n_sides for k in range(n_sides))
                if self._levels[s] > 12
            )
            self._winner = self._winners[0]
            return
        n = self._round.round_no + 1
        if self._friends:  # §12.4: the next leader declares at their own level
            leader = result.next_starter
            self._round = Round(
                round_seed(self._seed, n),
                self._options,
                trump_rank=level_name(self._levels[leader]),
                starter=leader,
                round_no=n,
                levels=self.level_names,
            )
            return
        team = result.next_declaring_team
        self._round = Round(
            round_seed(self._seed, n),
            self._options,
            trump_rank=level_name(self._levels[team]),
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
            game.apply(action_from_json(a, record.options.n_players))
        except IllegalAction as e:
            raise RecordMismatch(
                f"record does not replay: round {rnd}, action {i}: {e.message}", rnd, i
            ) from None
        done = len(game._digests)
        if game.round_no != rnd or game.is_over:
            k = done - 1
            if k < len(record.digests) and record.digests[k] != game._digests[k]:
                raise RecordMismatch(
                    f"record does not replay: round {k} ends at action {i} with a result "
                    f"other than the recorded one (digest {game._digests[k]} != "
                    f"{record.digests[k]})",
                    k,
                    i,
                )
    return game
