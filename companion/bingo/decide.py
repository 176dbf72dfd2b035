"""decide(state, command) -> events, or Rejected(reason). Pure: no I/O, clock or randomness."""
from __future__ import annotations

import re
from collections import Counter

from ..core import review
from ..core.games import Refuse, Rejected, need as _need, refusing
from . import commands as c
from . import events as e
from .rules import (ALL_LINES_BONUS, BALLS, DRAW_SIZE, EXCLUSION_FROM_TURN, LINES,
                    ITEM_NAMES, MISSING_LINE_PENALTY, OPTIONS, PRICES, ROBBERY_PERCENT, START_CASH, Rules,
                    card_errors, robbery_amount)
from .state import State, lines_complete

TURN_PHASES = ("draw", "voting", "resolve")
PHASE_WORDS = {
    "new": "the game is not set up yet", "ready": "the game has not begun",
    "draw": "the balls are not drawn yet", "voting": "voting is open",
    "resolve": "voting is closed: end_turn comes next", "turn_over": "the turn is over",
    "final": "the final robbery submission is open", "counting": "the cash count is open",
    "finished": "the game is finished",
}

# Printed serials (vision/layouts/bingo.py): V<owner><turn>, R<owner><card>, two digits each.
PRINTED = {c.Vote: ("vote", "V", re.compile(r"V([0-9]{2})([0-9]{2})")),
           c.Rob: ("robbery", "R", re.compile(r"R([0-9]{2})([0-9]{2})"))}
MAX_PLAYER_NO = 99      # serials print the owner in two digits
MAX_TURNS = 99          # vote cards print their turn in two digits


def _phase(s: State, *phases: str) -> None:
    _need(s.phase in phases, f"not now: {PHASE_WORDS[s.phase]}")


def _player(s: State, no: int):
    _need(no in s.players, f"there is no player {no}")
    return s.players[no]


def _ball(ball: int) -> None:
    _need(ball in BALLS, f"there is no ball {ball} (balls are 1-27)")


def _invalid(card: str, reason: str, serial: str = "", player: int = 0) -> list:
    return [e.CardInvalid(card, serial, reason, player=player)]


def _announcement(s: State) -> dict | None:
    """R13: all balances by letter when any changed since they were last shown."""
    balances = s.balances()
    return balances if balances != s.announced else None


def setup(s: State, cmd: c.Setup) -> list:
    _phase(s, "new")
    try:
        rules = Rules.from_dict(cmd.rules)
    except ValueError as error:
        raise Refuse(str(error))
    _need(bool(cmd.event.strip()), "the event needs a name")
    _need(len(cmd.players) >= 2, "a game needs at least 2 players")
    for key in ("no", "account"):
        seen = Counter(p[key] for p in cmd.players)
        twice = [v for v, n in seen.items() if n > 1]
        _need(not twice, f"two players have {key} {twice[0] if twice else ''}")
    _need(rules.turns <= MAX_TURNS, f"a game has at most {MAX_TURNS} turns (vote cards print two digits)")
    for p in cmd.players:
        _need(1 <= p["no"] <= MAX_PLAYER_NO, f"player numbers are 1-{MAX_PLAYER_NO}, not {c.shown(p['no'])}")
        _need(len(p["account"]) == 1 and "A" <= p["account"] <= "Z",
              f"player {p['no']}: the account is one letter A-Z, not {p['account']!r}")
        problem = card_errors(p["card"])
        _need(problem is None, f"player {p['no']}: {problem}")
    players = [{k: p[k] for k in ("no", "name", "account", "card")} for p in cmd.players]
    return [e.GameSetUp(cmd.event, players, rules.to_dict(), cmd.reveal_accounts)]


def begin_turn(s: State, cmd) -> list:
    _phase(s, "ready", "turn_over")
    _need(s.turn < s.rules.turns, f"turn {s.turn} was the last turn: begin_final comes next")
    place = dict(s.place)
    machine_empty = "machine" not in place.values()
    refilled = sorted(b for b, where in place.items() if where == "pool") if machine_empty else []   # R8
    place.update({ball: "machine" for ball in refilled})     # D23: the refill first, then the moves
    moves, skipped = [], []
    for ball, direction in s.moves_due:        # R15, checked now (D9)
        sources, to = (("pool", "trash"), "machine") if direction == "in" else (("machine", "pool"), "trash")
        if place[ball] in sources:
            moves.append([ball, place[ball], to])
            place[ball] = to
        else:
            skipped.append([ball, direction, f"ball {ball} is {place[ball]}"])
    return [e.TurnBegan(s.turn + 1, moves, skipped, refilled, _announcement(s))]


def draw(s: State, cmd: c.Draw) -> list:
    _phase(s, "draw")
    _need(not s.drawn, f"{len(s.drawn)} ball(s) already drawn one at a time: draw_ball the rest")
    machine = s.balls_in("machine")
    want = min(DRAW_SIZE, len(machine))   # D1
    _need(len(cmd.balls) == want, f"draw {want} ball{'s' if want != 1 else ''}: the machine holds {len(machine)}")
    _need(len(set(cmd.balls)) == len(cmd.balls), "a ball cannot be drawn twice")
    for ball in cmd.balls:
        _ball(ball)
        _need(s.place[ball] == "machine", f"ball {ball} is not in the machine (it is {s.place[ball]})")
    return [e.BallsDrawn(list(cmd.balls))]


def draw_ball(s: State, cmd: c.DrawBall) -> list:
    """One ball as the reader sees it leave the cage: X, then Y, then Z."""
    _phase(s, "draw")
    _ball(cmd.ball)
    _need(s.place[cmd.ball] == "machine", f"ball {cmd.ball} is not in the machine (it is {s.place[cmd.ball]})")
    return [e.BallsDrawn([cmd.ball])]


def _duplicate(s: State, card: str, serial: str) -> list | None:
    """D3: a card scanned a second time is flagged and not counted."""
    if serial and serial in s.serials:
        return [e.CardInvalid(card, serial, f"duplicate: card {serial} was already scanned", True)]
    return None


def _check_owner(s: State, card) -> None:
    """A vote or robbery card names its owner in its printed serial: the owner must play in this
    game, the serial be of the command's kind, and a vote card's printed turn the one entered.
    With one vote card per player and turn, D3 then leaves one counted vote per player a turn.
    A serial not in printed form ("V1", rehearsal scripts) names no owner: only its kind is checked."""
    kind, letter, printed = PRINTED[type(card)]
    _need(card.serial.startswith(letter),
          f"{c.shown(card.serial)} is not a {kind} card's serial (those start with {letter}, e.g. {letter}0103)")
    match = printed.fullmatch(card.serial)
    if not match:
        _need(card.owner is None, f"serial {c.shown(card.serial)} does not name an owner to check owner {card.owner} against")
        return
    owner, number = int(match[1]), int(match[2])
    _need(card.owner in (None, owner), f"card {card.serial} is player {owner}'s, not player {card.owner}'s")
    _need(owner in s.players, f"card {card.serial} is player {owner}'s, and there is no player {owner} in this game")
    if isinstance(card, c.Vote):
        _need(number == card.turn, f"card {card.serial} is printed for turn {number}, not turn {card.turn}")


def vote(s: State, cmd: c.Vote) -> list:
    _phase(s, "voting")
    _need(bool(cmd.serial), "a vote card needs its serial")
    _check_owner(s, cmd)
    duplicate = _duplicate(s, "vote", cmd.serial)
    if duplicate:
        return duplicate
    if cmd.turn != s.turn:        # R6, D12
        return _invalid("vote", f"card of turn {cmd.turn} dropped in turn {s.turn} (R6)", cmd.serial)
    if not cmd.marks:
        return _invalid("vote", "blank: nothing circled (R6)", cmd.serial)
    if len(cmd.marks) > 1:
        return _invalid("vote", "more than one mark (R6)", cmd.serial)
    if cmd.marks[0] not in OPTIONS[:len(s.drawn)]:
        return _invalid("vote", f"no ball {cmd.marks[0]} was drawn this turn", cmd.serial)
    return [e.VoteCounted(cmd.serial, cmd.marks[0])]


def buy(s: State, cmd: c.Buy) -> list:
    _phase(s, "ready", "draw", "voting", "resolve", "turn_over", "final")
    _player(s, cmd.player)
    item = ITEM_NAMES[cmd.item]       # D22: "in" and "out" buy the one IN/OUT card
    return [e.ItemBought(cmd.player, item, PRICES[item], s.rules.pay_from == "account")]


def _special_card(s: State, cmd, item: str) -> list | None:
    """Phase and player checks; a repeat or a card never bought is invalid (D3, R14)."""
    _phase(s, "voting")
    _player(s, cmd.player)
    duplicate = _duplicate(s, item, cmd.serial)
    if duplicate:
        return duplicate
    if s.players[cmd.player].items.get(item, 0) < 1:
        return _invalid(item, f"player {cmd.player} has no unused {item} card", cmd.serial)
    return None


def inout(s: State, cmd: c.InOut) -> list:
    refused = _special_card(s, cmd, "inout")     # D22: the card's direction is chosen now
    _ball(cmd.ball)
    return refused or [e.InOutFiled(cmd.player, cmd.dir, cmd.ball, cmd.serial)]


def change(s: State, cmd: c.Change) -> list:
    refused = _special_card(s, cmd, "change")
    _need(1 <= cmd.cell <= 9, f"cells are numbered 1-9, not {cmd.cell}")
    _ball(cmd.number)
    if refused:
        return refused
    card, valid = s.players[cmd.player].card, set(s.valid)
    old = card[cmd.cell - 1]
    problem = (f"cell {cmd.cell} holds {old}, which is already valid (D10)" if old in valid else
               f"{cmd.number} is already on player {cmd.player}'s card" if cmd.number in card else
               f"{cmd.number} is already valid (R14)" if cmd.number in valid else None)
    if problem:
        return _invalid("change", problem, cmd.serial, cmd.player)
    return [e.CellChanged(cmd.player, cmd.cell, old, cmd.number, cmd.serial)]


def exclude(s: State, cmd: c.Exclude) -> list:
    refused = _special_card(s, cmd, "exclusion")
    _ball(cmd.ball)
    if refused:
        return refused
    where = s.place[cmd.ball]
    problem = (f"exclusion cards work from turn {EXCLUSION_FROM_TURN} (R14); this is turn {s.turn}"
               if s.turn < EXCLUSION_FROM_TURN else
               f"ball {cmd.ball} is {where} (R14)" if where in ("valid", "excluded") else
               f"ball {cmd.ball} is on the table this turn; exclude it after the count (D13)"
               if where == "drawn" else None)
    if problem:
        return _invalid("exclusion", problem, cmd.serial, cmd.player)
    return [e.BallExcluded(cmd.player, cmd.ball, cmd.serial)]


def close_voting(s: State, cmd) -> list:
    nothing_to_draw = s.phase == "draw" and not s.balls_in("machine")   # D1: no draw, no vote
    _need(s.phase == "voting" or nothing_to_draw, f"not now: {PHASE_WORDS[s.phase]}")
    _awaiting_review(s, "vote", "inout", "change", "exclude")
    options = dict(zip(OPTIONS, s.drawn))
    votes = Counter(b.choice for b in s.ballots if b.choice)
    votes = {letter: votes[letter] for letter in options}
    invalid = sum(1 for b in s.ballots if b.choice is None)
    counted = sum(votes.values()) + (invalid if s.rules.quorum_counts == "submitted" else 0)
    void = not options or 2 * counted <= len(s.players)      # R7 quorum, D4
    valid = [] if void else [options[letter] for letter in winners(votes)]
    now_valid = set(s.valid) | set(valid)
    lines = []
    for p in s.players.values():
        new = lines_complete(p.card, now_valid) - p.formed()
        if new:
            lines.append({"player": p.no, "lines": [name for name in LINES if name in new]})
    return [e.VotingClosed(options, votes, invalid, void, valid,
                           [b for b in s.drawn if b not in valid], lines, _net_moves(s.inout))]


def winners(votes: dict[str, int]) -> list[str]:
    """R7 steps 2-4 and D5: all tied -> all; tie for first -> the rest; else the most."""
    top = max(votes.values())
    leaders = [letter for letter, n in votes.items() if n == top]
    if len(leaders) == len(votes) or len(leaders) == 1:
        return leaders
    return [letter for letter, n in votes.items() if n != top]


def _net_moves(cards: list[tuple[int, str]]) -> list[list]:
    """R15: per ball, the side with more cards wins; equal counts move nothing."""
    counts = Counter(cards)
    moves = []
    for ball in sorted({ball for ball, _ in cards}):
        ins, outs = counts[(ball, "in")], counts[(ball, "out")]
        if ins != outs:
            moves.append([ball, "in" if ins > outs else "out"])
    return moves


def order_lines(s: State, cmd: c.OrderLines) -> list:
    _need(s.phase not in ("new", "finished"), f"not now: {PHASE_WORDS[s.phase]}")
    player = _player(s, cmd.player)
    _need(len(set(cmd.lines)) == len(cmd.lines), "a line is named twice")
    by_turn: dict[int, set[str]] = {}
    for line in player.lines:
        by_turn.setdefault(line.turn, set()).add(line.line)
    _need(set(cmd.lines) in by_turn.values(),
          f"player {cmd.player} formed these lines together: "
          + "; ".join(f"turn {t}: {', '.join(sorted(names))}" for t, names in by_turn.items())
          if by_turn else f"player {cmd.player} has formed no line")
    return [e.LinesOrdered(cmd.player, list(cmd.lines))]


def rob(s: State, cmd: c.Rob) -> list:
    _phase(s, *TURN_PHASES, "final")
    _need(bool(cmd.serial), "a robbery card needs its serial")
    _check_owner(s, cmd)
    duplicate = _duplicate(s, "robbery", cmd.serial)
    if duplicate:
        return duplicate
    problem = _robbery_problem(s, cmd)
    if problem:
        return _invalid("robbery", problem, cmd.serial)
    return [e.RobberyFiled(cmd.serial, cmd.robber, cmd.victim, cmd.ordinal)]


def _robbery_problem(s: State, cmd: c.Rob) -> str | None:
    if cmd.robber not in s.players:
        return f"there is no player {cmd.robber} (robber)"
    if cmd.victim not in s.players:
        return f"there is no player {cmd.victim} (victim)"
    if cmd.robber == cmd.victim:
        return "robber and victim are the same player"
    if cmd.ordinal not in ROBBERY_PERCENT:
        return f"there is no line ordinal {cmd.ordinal} (1-8)"
    turn = s.rights_turn()
    if not any(l.ordinal == cmd.ordinal and l.turn == turn for l in s.players[cmd.robber].lines):
        return f"player {cmd.robber} has no line {cmd.ordinal} formed in turn {turn} (R11)"
    for r in s.robberies:
        if (r.robber, r.ordinal) == (cmd.robber, cmd.ordinal):
            return f"that right was already used by card {r.serial}"
    return None


def transfers(s: State) -> list[dict]:
    """D7: snapshot balances at the start of resolution, or sequential in scan order."""
    balance = {no: p.balance for no, p in s.players.items()}
    base = dict(balance)
    moved = []
    for r in s.robberies:
        amount = robbery_amount((base if s.rules.robbery_base == "snapshot" else balance)[r.victim], r.ordinal)
        balance[r.victim] -= amount
        balance[r.robber] += amount
        moved.append({"serial": r.serial, "robber": r.robber, "victim": r.victim,
                      "ordinal": r.ordinal, "amount": amount})
    return moved


def end_turn(s: State, cmd) -> list:
    _need(s.phase != "voting", "close voting first")
    _phase(s, "resolve")
    _awaiting_review(s, "rob")
    return [e.TurnEnded(s.turn, transfers(s))]


def begin_final(s: State, cmd) -> list:
    _phase(s, "turn_over")
    _need(s.turn == s.rules.turns, f"the final submission comes after turn {s.rules.turns}; this is turn {s.turn}")
    return [e.FinalBegan(_announcement(s))]


def end_final(s: State, cmd) -> list:
    _phase(s, "final")
    _awaiting_review(s, "rob")
    return [e.FinalEnded(transfers(s))]


def cash(s: State, cmd: c.Cash) -> list:
    _phase(s, "counting")
    _player(s, cmd.player)
    _need(cmd.amount >= 0, f"a cash count cannot be negative ({cmd.amount})")
    # Chips only change hands between players (R3): no one can hold more than all of them.
    chips = len(s.players) * START_CASH
    _need(cmd.amount <= chips, f"a cash count of {cmd.amount:,} is more than all {chips:,} L$ of chips in this game (R3)")
    return [e.CashCounted(cmd.player, cmd.amount)]


def finish(s: State, cmd) -> list:
    _phase(s, "counting")
    missing = [str(p.no) for p in s.players.values() if p.cash is None]
    _need(not missing, f"no cash count yet for player{'s' if len(missing) > 1 else ''} {', '.join(missing)}")
    return [e.GameFinished(results(s), _announcement(s))]


def results(s: State) -> list[dict]:
    """R16, R17: final money = cash + account + bonus - penalty; ties share a rank."""
    rows = []
    for p in s.players.values():
        n = len(p.lines)
        bonus = ALL_LINES_BONUS if n == len(LINES) else 0
        short = n == 0 if s.rules.penalty_when == "no_line" else n < len(LINES)
        penalty = MISSING_LINE_PENALTY if short else 0
        rows.append({"player": p.no, "cash": p.cash, "account": p.balance, "bonus": bonus,
                     "penalty": penalty, "final": p.cash + p.balance + bonus - penalty})
    for row in rows:
        row["rank"] = 1 + sum(1 for other in rows if other["final"] > row["final"])
    return sorted(rows, key=lambda row: (row["rank"], row["player"]))


def void(s: State, cmd: c.Void) -> list:
    _phase(s, *TURN_PHASES, "final")
    ballot = any(b.serial == cmd.serial for b in s.ballots)
    robbery = any(r.serial == cmd.serial for r in s.robberies)
    _need(ballot or robbery or cmd.serial in s.held,
          f"card {cmd.serial} is not a vote, robbery or held card still open this turn")
    _need(not ballot or s.phase == "voting", f"card {cmd.serial} was already counted")
    return [e.CardVoided(cmd.serial)]


def _awaiting_review(s: State, *kinds: str) -> None:
    waiting = sorted(serial for serial, held in s.held.items() if held.card["do"] in kinds)
    _need(not waiting, f"rule on the held card{'s' if len(waiting) > 1 else ''} first: {', '.join(waiting)}")


def hold(s: State, cmd: c.Hold) -> list:
    card = review.read_card(c.SCHEMA, cmd)
    _phase(s, *(("voting",) if not isinstance(card, c.Rob) else (*TURN_PHASES, "final")))
    if type(card) in PRINTED:
        _check_owner(s, card)
    return _duplicate(s, _card_kind(card), card.serial) or review.held(c.SCHEMA, card, cmd)


def rule(s: State, cmd: c.Rule) -> list:
    return review.rule(s, cmd, c.SCHEMA, decide, lambda read, reason: _invalid(
        _card_kind(read), reason, cmd.serial, getattr(read, "player", 0)))


def _card_kind(card) -> str:
    return {c.Vote: "vote", c.Rob: "robbery", c.InOut: "inout", c.Change: "change", c.Exclude: "exclusion"}[type(card)]


HANDLERS = {
    c.Setup: setup, c.BeginTurn: begin_turn, c.Draw: draw, c.DrawBall: draw_ball, c.Vote: vote, c.Buy: buy,
    c.InOut: inout, c.Change: change, c.Exclude: exclude, c.CloseVoting: close_voting,
    c.OrderLines: order_lines, c.Rob: rob, c.EndTurn: end_turn, c.BeginFinal: begin_final,
    c.EndFinal: end_final, c.Cash: cash, c.Finish: finish, c.Void: void, c.Hold: hold, c.Rule: rule,
}
decide = refusing(HANDLERS)
