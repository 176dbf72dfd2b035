"""decide(state, command) -> events, or Rejected(reason). Pure: no I/O, clock or randomness."""
from __future__ import annotations

from collections import Counter

from ..core.commands import Hold, Rule, Void, shown
from ..core.games import need, refusing
from . import commands as c
from . import events as e
from . import rules
from .state import State

MIN_PLAYERS, MAX_PLAYERS = 2, 4
LAYOUT_CARDS = c.ROWS * c.ROW_LENGTH
DEAD_ROWS = ("relayout", "round_over")      # phases whose row cards the next layout discards
PHASE_WORDS = {"new": "the table is not set up yet", "layout": "lay out the rows first",
               "deal": "deal the hands first", "turn": "the turn player takes a group first",
               "play": "after the take: play a group or refill", "refill": "the group is played: refill",
               "relayout": "no row can be taken from: lay out three new rows (D6)",
               "round_over": "the round is over: lay out the next round's rows",
               "finished": "the game is over"}


def _phase(s: State, *phases: str) -> None:
    need(s.phase in phases, f"not now: {PHASE_WORDS[s.phase]}")


def _turn_player(s: State, player: int) -> None:
    need(player in s.players, f"there is no player {player}")
    need(player == s.turn_player, f"it is player {s.turn_player}'s turn, not player {player}'s")


def _from_deck(s: State, cards: list[str], what: str) -> None:
    """A card named in a layout, deal or refill must still be in the deck."""
    unknown = sorted({card for card in cards if card not in s.kinds})
    need(not unknown, f"{what}: {shown(unknown[0]) if unknown else ''} is no kind of this deck ({', '.join(s.kinds)})")
    named = Counter(cards)
    short = sorted(kind for kind in named if named[kind] > s.deck[kind])
    need(not short, f"{what}: the deck has {s.deck[short[0]]} {short[0]} left, not {named[short[0]]}" if short else "")


def setup(s: State, cmd: c.Setup) -> list:
    _phase(s, "new")
    need(bool(cmd.event.strip()), "the event needs a name")
    need(MIN_PLAYERS <= len(cmd.players) <= MAX_PLAYERS, f"the jail card game is for {MIN_PLAYERS}-{MAX_PLAYERS} players")
    twice = [no for no, n in Counter(p["no"] for p in cmd.players).items() if n > 1]
    need(not twice, f"two players have no {twice[0] if twice else ''}")
    need(all(p["no"] >= 1 for p in cmd.players), "player numbers start at 1")
    dealt = sum(rules.HAND_SIZES[:len(cmd.players)])
    need(sum(cmd.deck.values()) >= LAYOUT_CARDS + dealt,
         f"a deck of {sum(cmd.deck.values())} cards cannot lay out {LAYOUT_CARDS} and deal {dealt} (J2)")
    return [e.GameSetUp(cmd.event, dict(cmd.deck), [{"no": p["no"], "name": p["name"]} for p in cmd.players])]


def _reshufflable(s: State) -> Counter:
    """D7: the discard pile, with the row cards when they are to be discarded anyway (D6, J5)."""
    rows = Counter(card for row in s.rows for card in row) if s.phase in DEAD_ROWS else Counter()
    return s.discard + rows


def _layout_size(s: State, rows: list[list[str]]) -> None:
    """J2: 3 rows of 10. A deck that cannot supply 30 even after a reshuffle (D7) lays out all it
    holds, no row longer than 10."""
    available = s.deck.total()
    if available >= LAYOUT_CARDS or _reshufflable(s).total():
        need(available >= LAYOUT_CARDS, f"the deck holds {available} cards, fewer than {LAYOUT_CARDS}: reshuffle first (D7)")
        need(all(len(row) == c.ROW_LENGTH for row in rows),
             f"each row is {c.ROW_LENGTH} cards (J2), not {'/'.join(str(len(row)) for row in rows)}")
        return
    need(all(len(row) <= c.ROW_LENGTH for row in rows) and sum(map(len, rows)) == available,
         f"the deck holds only {available} cards: lay them all out, at most {c.ROW_LENGTH} a row")


def layout(s: State, cmd: c.Layout) -> list:
    _phase(s, "layout", "relayout", "round_over")
    _layout_size(s, cmd.rows)
    _from_deck(s, [card for row in cmd.rows for card in row], "layout")
    return [e.RowsLaidOut([list(row) for row in cmd.rows])]


def deal(s: State, cmd: c.Deal) -> list:
    _phase(s, "deal")
    expected = {str(no): size for no, size in zip(s.order, rules.HAND_SIZES)}
    missing, extra = sorted(set(expected) - set(cmd.hands)), sorted(set(cmd.hands) - set(expected))
    need(not extra, f"deal: there is no player {shown(extra[0]) if extra else ''}")
    need(not missing, f"deal: player {missing[0] if missing else ''} has no hand")
    for no, size in expected.items():
        need(len(cmd.hands[no]) == size, f"deal: player {no} gets {size} cards (J2), not {len(cmd.hands[no])}")
    _from_deck(s, [card for hand in cmd.hands.values() for card in hand], "deal")
    return [e.HandsDealt({no: list(cmd.hands[no]) for no in expected})]


def _round_end(s: State, player: int, jail: Counter) -> e.RoundEnded:
    collected = {str(p.no): rules.collected(jail, p.display, s.kinds) for p in s.players.values()}
    return e.RoundEnded(s.round, player, collected, {no: rules.score(cards) for no, cards in collected.items()})


def take(s: State, cmd: c.Take) -> list:
    _phase(s, "turn")
    _turn_player(s, cmd.player)
    row = s.rows[cmd.row - 1]
    need(rules.takeable(row), f"row {cmd.row} has fewer than two groups: nothing would go to jail (J3.2)")
    (kind, count), (jailed, jailed_count) = rules.take(row, cmd.end)
    taken = e.GroupTaken(cmd.player, cmd.row, cmd.end, kind, count, jailed, jailed_count)
    jail = s.jail + Counter({jailed: jailed_count})
    return [taken, _round_end(s, cmd.player, jail)] if rules.round_ends(jail) else [taken]   # J4: at once


def play(s: State, cmd: c.Play) -> list:
    _phase(s, "play")
    _turn_player(s, cmd.player)
    player = s.players[cmd.player]
    need(player.hand[cmd.kind] >= cmd.count,
         f"player {cmd.player} holds {player.hand[cmd.kind]} {cmd.kind}, fewer than {cmd.count}")
    need(not player.display[cmd.kind], f"player {cmd.player} shows {cmd.kind} already: no adding to it (J3.3)")
    shown_by = {p.no: p.display[cmd.kind] for p in s.players.values() if p.display[cmd.kind]}
    largest = max(shown_by.values(), default=0)
    need(cmd.count > largest, f"{largest} {cmd.kind} are shown already: play more than {largest} (J3.3, D8)")
    return [e.GroupPlayed(cmd.player, cmd.kind, cmd.count, {str(no): n for no, n in shown_by.items()})]


def refill(s: State, cmd: c.Refill) -> list:
    _phase(s, "play", "refill")
    _turn_player(s, cmd.player)
    if not s.deck.total():
        need(cmd.kind is None, "the deck is empty: the refill adds nothing (kind null, D4)")
    else:
        need(cmd.kind is not None, f"the deck still holds {s.deck.total()} cards: name the one drawn (D4)")
        _from_deck(s, [cmd.kind], "refill")
    return [e.Refilled(cmd.player, cmd.kind)]


def reshuffle(s: State, cmd) -> list:
    need(s.phase not in ("new", "finished"), f"not now: {PHASE_WORDS[s.phase]}")
    cards = _reshufflable(s)
    need(bool(cards.total()), "the discard pile is empty: nothing to reshuffle (D7)")
    return [e.Reshuffled({kind: cards[kind] for kind in s.kinds if cards[kind]})]


def no_printed_cards(s: State, cmd) -> list:
    need(False, "the jail card game has no printed cards to void, hold or rule")


HANDLERS = {c.Setup: setup, c.Layout: layout, c.Deal: deal, c.Take: take, c.Play: play, c.Refill: refill,
            c.Reshuffle: reshuffle, Void: no_printed_cards, Hold: no_printed_cards, Rule: no_printed_cards}
decide = refusing(HANDLERS)
