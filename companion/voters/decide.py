"""decide(state, command) -> events, or Rejected(reason). Pure: no I/O, clock or randomness."""
from __future__ import annotations

import re
from collections import Counter

from ..core import review
from ..core.commands import Hold, Rule, Void, shown
from ..core.events import CardVoided
from ..core.games import need, refusing
from . import commands as c
from . import events as e
from .state import State

MIN_PLAYERS = 3              # V1
MAX_NO = 99                  # number cards print the player in two digits (games past 99: bets without a card)
SERIAL = re.compile(r"N([0-9]{2})([0-9]{2})")      # vision/layouts/voters.py: N<owner><game>
UNREADABLE = "unreadable or miswritten card (V7)"
PHASE_WORDS = {"new": "the table is not set up yet", "ready": "no game is dealt",
               "betting": "betting is open", "closed": "betting is closed"}


def _phase(s: State, *phases: str) -> None:
    need(s.phase in phases, f"not now: {PHASE_WORDS[s.phase]}")


def _player(s: State, no: int) -> None:
    need(no in s.players, f"there is no player {no}")


def setup(s: State, cmd: c.Setup) -> list:
    _phase(s, "new")
    need(bool(cmd.event.strip()), "the event needs a name")
    need(len(cmd.players) >= MIN_PLAYERS, f"Voters needs at least {MIN_PLAYERS} players (V1)")
    twice = [no for no, n in Counter(p["no"] for p in cmd.players).items() if n > 1]
    need(not twice, f"two players have no {twice[0] if twice else ''}")
    for p in cmd.players:
        need(1 <= p["no"] <= MAX_NO, f"player numbers are 1-{MAX_NO}, not {shown(p['no'])}")
    return [e.GameSetUp(cmd.event, [{"no": p["no"], "name": p["name"]} for p in cmd.players])]


def deal(s: State, cmd: c.Deal) -> list:
    _phase(s, "ready")                                  # V8: any player may deal the next game
    _player(s, cmd.dealer)
    need(cmd.stake >= 1, f"the stake is at least 1, not {cmd.stake} (V9)")
    return [e.GameDealt(len(s.games) + 1, cmd.dealer, cmd.stake)]


def _owner(serial: str) -> tuple[int, int]:
    """The player and game a printed serial names; refuses a serial of another form."""
    match = SERIAL.fullmatch(serial)
    need(match is not None, f"{shown(serial)} is not a number card's serial (N<player><game>, e.g. N0103)")
    return int(match[1]), int(match[2])


def _bettor(s: State, player: int) -> None:
    _player(s, player)
    need(player != s.game.dealer, f"player {player} deals this game: the dealer does not bet (D2)")


def _card_problem(s: State, player: int | None, serial: str) -> str | None:
    """Why a printed card is not counted at all, or None."""
    if serial in s.serials:
        return f"duplicate: card {serial} was already scanned"
    owner, game = _owner(serial)
    if player is not None and owner != player:
        return f"card {serial} is player {owner}'s, not player {player}'s"
    if game != s.game.no:
        return f"card {serial} is printed for game {game}; this is game {s.game.no}"
    return None


def bet(s: State, cmd: c.Bet) -> list:
    _phase(s, "betting")
    _bettor(s, cmd.player)
    problem = cmd.serial and _card_problem(s, cmd.player, cmd.serial)
    if problem:
        return [e.BetInvalid(cmd.player, cmd.serial, problem)]
    return [e.BetPlaced(cmd.player, cmd.number, cmd.serial, UNREADABLE if cmd.number is None else "")]


def close(s: State, cmd) -> list:
    _phase(s, "betting")
    waiting = sorted(s.held)
    need(not waiting, f"rule on the held card{'s' if len(waiting) > 1 else ''} first: {', '.join(waiting)}")
    return [e.BetsClosed(sorted(no for no in s.players if no != s.game.dealer and no not in s.game.bets))]


def unique_numbers(bets: dict) -> list[int]:
    """V3, V7: the valid numbers chosen by exactly one bet; an invalid card neither wins nor duplicates."""
    counts = Counter(number for number in bets.values() if number is not None)
    return sorted(number for number, n in counts.items() if n == 1)


def open_(s: State, cmd) -> list:
    _phase(s, "closed")
    game = s.game
    unique = unique_numbers(game.bets)
    if not unique:                                      # V4, D2: dobon, the dealer takes the pot
        return [e.GameSettled("dobon", game.dealer, None, game.pot)]
    winner = next(player for player, number in game.bets.items() if number == unique[0])
    return [e.GameSettled("won", winner, unique[0], game.pot)]


def no_game(s: State, cmd) -> list:
    _phase(s, "closed")
    return [e.GameVoided()]


def void(s: State, cmd: Void) -> list:
    _phase(s, "betting")
    need(bool(cmd.serial) and (cmd.serial in s.game.cards.values() or cmd.serial in s.held),
         f"card {cmd.serial} is not a bet or held card of this game")
    return [CardVoided(cmd.serial)]


def hold(s: State, cmd: Hold) -> list:
    card = review.read_card(c.SCHEMA, cmd)
    _phase(s, "betting")
    owner, _ = _owner(card.serial)
    _bettor(s, owner)
    problem = _card_problem(s, card.player, card.serial)
    if problem:
        return [e.BetInvalid(owner, card.serial, problem)]
    return review.held(c.SCHEMA, card, cmd)


def rule(s: State, cmd: Rule) -> list:
    return review.rule(s, cmd, c.SCHEMA, decide, lambda read, reason: [
        e.BetPlaced(_owner(read.serial)[0], None, read.serial, reason)])


HANDLERS = {c.Setup: setup, c.Deal: deal, c.Bet: bet, c.Close: close, c.Open: open_, c.NoGame: no_game,
            Void: void, Hold: hold, Rule: rule}
decide = refusing(HANDLERS)
