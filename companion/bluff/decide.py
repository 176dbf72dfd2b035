"""decide(state, command) -> events, or Rejected(reason). Pure: no I/O, clock or randomness."""
from __future__ import annotations

from collections import Counter

from ..core import review
from ..core.commands import Hold, Rule, Void, shown
from ..core.events import CardVoided
from ..core.games import need, refusing
from . import commands as c
from . import events as e
from .state import Declaration, State

PLAYERS = range(2, 7)        # AB1: six players; the scripts allow 2-6
DICE_PER_GEM = 5             # AB1
MAX_NO = 99
MAX_PERIODS = 5                  # D7: 「最長5日」
DECLARED_FACES = range(1, 6)     # D6
DECLARED_COUNTS = range(1, 31)   # D6
FEE = BONUS = DIE_VALUE = 100_000_000     # AB6 (yen)
PHASE_WORDS = {"new": "the table is not set up yet", "ready": "no period is open",
               "dice": "the dice vote is open", "declare": "the dice vote is closed: declarations are open",
               "finished": "the game is over"}


def _phase(s: State, *phases: str) -> None:
    need(s.phase in phases, f"not now: {PHASE_WORDS[s.phase]}")


def _player(s: State, no: int) -> None:
    need(no in s.players, f"there is no player {no}")


def _active(s: State, no: int) -> None:
    _player(s, no)
    need(not s.players[no].eliminated, f"player {no} is eliminated: no vote, declaration or cancellation (AB3)")


def _fresh(s: State, serial: str) -> None:
    need(not serial or serial not in s.serials, f"duplicate: card {serial} was already scanned")


def setup(s: State, cmd: c.Setup) -> list:
    _phase(s, "new")
    need(bool(cmd.event.strip()), "the event needs a name")
    need(len(cmd.players) in PLAYERS, f"Auction Bluff has {PLAYERS.start}-{PLAYERS.stop - 1} players (AB1)")
    for key in ("no", "gem"):
        twice = [value for value, n in Counter(p[key] for p in cmd.players).items() if n > 1]
        need(not twice, f"two players have {key} {twice[0] if twice else ''}: each is distinct (AB1)")
    for p in cmd.players:
        need(1 <= p["no"] <= MAX_NO, f"player numbers are 1-{MAX_NO}, not {shown(p['no'])}")
        need(p["gem"] in c.GEMS, f"{shown(p['gem'])} is no gem; gems: {', '.join(c.GEMS)} (AB1)")
    return [e.GameSetUp(cmd.event, [{"no": p["no"], "name": p["name"], "gem": p["gem"]} for p in cmd.players],
                        cmd.star_wild)]


def period(s: State, cmd: c.Period) -> list:
    _phase(s, "ready")
    need(len(s.periods) < MAX_PERIODS, f"a game has at most {MAX_PERIODS} periods (D7)")
    return [e.PeriodOpened(len(s.periods) + 1)]


def holdings(s: State, no: int) -> dict[str, int]:
    """The dice a player holds now, per gem; gems held 0 left out."""
    return {gem: n for gem, n in s.dice[no].items() if n}


def _dice_problem(s: State, cmd: c.Dice) -> None:
    held = holdings(s, cmd.player)
    listed = ", ".join(f"{n} {gem}" for gem, n in held.items()) or "no dice"
    need(set(cmd.faces) == set(held), f"player {cmd.player} holds {listed}: give the faces of exactly those dice")
    for gem, faces in cmd.faces.items():
        need(len(faces) == held[gem], f"player {cmd.player} holds {held[gem]} {gem} dice, not {len(faces)}")
        wrong = [face for face in faces if face not in c.FACES]
        need(not wrong, f"{shown(wrong[0] if wrong else '')} is no face; faces: {' '.join(c.FACES)} (AB1)")


def dice(s: State, cmd: c.Dice) -> list:
    _phase(s, "dice")
    _active(s, cmd.player)
    _fresh(s, cmd.serial)
    _dice_problem(s, cmd)
    return [e.DiceSet(cmd.player, {gem: list(faces) for gem, faces in cmd.faces.items()}, cmd.serial)]


def transfer(s: State, cmd: c.Transfer) -> list:
    _phase(s, "ready", "dice", "declare")                   # AB5: any time before the end
    _player(s, cmd.from_)
    _player(s, cmd.to)
    need(cmd.from_ != cmd.to, "a transfer is between two players")
    need(cmd.gem in {p.gem for p in s.players.values()}, f"no player owns {shown(cmd.gem)} dice in this game")
    need(cmd.count >= 1, f"a transfer moves at least one die, not {cmd.count}")
    has = s.dice[cmd.from_].get(cmd.gem, 0)
    need(has >= cmd.count, f"player {cmd.from_} holds {has} {cmd.gem} dice, not {cmd.count} (AB5)")
    cleared = sorted({cmd.from_, cmd.to} & set(s.period.votes)) if s.phase == "dice" else []   # D5
    return [e.DiceTransferred(cmd.from_, cmd.to, cmd.gem, cmd.count, cleared)]


def _no_held(s: State) -> None:
    waiting = sorted(s.held)
    need(not waiting, f"rule on the held card{'s' if len(waiting) > 1 else ''} first: {', '.join(waiting)}")


def close_dice(s: State, cmd: c.CloseDice) -> list:
    _phase(s, "dice")
    _no_held(s)
    return [e.DiceClosed([no for no in s.active() if no not in s.period.votes])]


def standing(s: State, no: int) -> Declaration | None:
    """The player's valid declaration this period, if one stands."""
    return next((d for d in s.period.declarations if d.player == no and d.valid), None)


def declaration_problem(face, count) -> str:
    """Why a declaration is invalid (AB2, D6), or ""."""
    if face is None or count is None:
        return "unreadable: a declaration is one face and one count (AB2)"
    if face == "★":
        return "★ cannot be declared: the face is 1-5 (AB2)"
    if type(face) is not int or face not in DECLARED_FACES:
        return f"the face is 1-5, not {shown(face)} (D6)"
    return "" if count in DECLARED_COUNTS else f"the count is 1-30, not {count} (D6)"


def declare(s: State, cmd: c.Declare) -> list:
    _phase(s, "declare")
    _active(s, cmd.player)
    _fresh(s, cmd.serial)
    first = standing(s, cmd.player)
    need(first is None, f"player {cmd.player} already declared face {first and first.face} count "
                        f"{first and first.count}: a second declaration is refused (D6)")
    return [e.Declared(cmd.player, cmd.face, cmd.count, cmd.serial, declaration_problem(cmd.face, cmd.count))]


def cancel(s: State, cmd: c.Cancel) -> list:
    _phase(s, "declare")
    _active(s, cmd.player)
    need(standing(s, cmd.player) is not None, f"player {cmd.player} has no declaration to cancel")
    unknown = sorted(set(cmd.consent) - set(s.players))
    need(not unknown, f"there is no player {unknown[0] if unknown else ''} to consent")
    missing = [no for no in s.active() if no not in cmd.consent]
    need(not missing, f"cancelling needs the consent of every player not eliminated; missing: "
                      f"{', '.join(map(str, missing))} (D6)")
    return [e.DeclarationCancelled(cmd.player, sorted(set(cmd.consent)))]


def selected(declarations: list[Declaration]) -> Declaration | None:
    """AB2: the highest count; on a tie the highest face; on a tie the earliest."""
    valid = [(d.count, d.face, -order, d) for order, d in enumerate(declarations) if d.valid]
    return max(valid, key=lambda entry: entry[:3])[3] if valid else None


def true_count(closed: dict, face: int, star_wild: bool) -> int:
    """AB2, D1: the closed faces showing the face, ★ counting as every face when wild; a die with
    no face set counts for none (D3), an eliminated player's dice have none (D2)."""
    shown_faces = [f for gems in closed.values() for faces in gems.values() for f in faces]
    return sum(f == str(face) or (star_wild and f == "★") for f in shown_faces)


def judge(s: State, cmd: c.Judge) -> list:
    _phase(s, "declare")
    _no_held(s)
    period = s.period
    chosen = selected(period.declarations)
    if chosen is None:                                      # AB4
        return [e.PeriodJudged(period.no, None, None, "no_declaration")]
    count = true_count(period.closed, chosen.face, s.star_wild)
    result = "won" if count >= chosen.count else "eliminated"
    return [e.PeriodJudged(period.no, {"player": chosen.player, "face": chosen.face, "count": chosen.count},
                           count, result)]


def results(s: State) -> dict[int, int | None]:
    """AB6, D4: each player's result at the end (None before it): 100,000,000 per die of the
    winner's gem held, the winner's bonus, less the fee; with no winner, the fee only."""
    if s.phase != "finished":
        return {no: None for no in s.players}
    gem = s.players[s.winner].gem if s.winner is not None else None
    return {no: DIE_VALUE * s.dice[no].get(gem, 0) + (BONUS if no == s.winner else 0) - FEE for no in s.players}


def _card_phase(s: State, card) -> None:
    _phase(s, "dice" if isinstance(card, c.Dice) else "declare")
    _active(s, card.player)
    _fresh(s, card.serial)


def hold(s: State, cmd: Hold) -> list:
    card = review.read_card(c.SCHEMA, cmd)
    _card_phase(s, card)
    return review.held(c.SCHEMA, card, cmd)


def ruled_invalid(read, reason: str) -> list:
    if isinstance(read, c.Dice):
        return [e.DiceCardInvalid(read.player, read.serial, reason)]
    return [e.Declared(read.player, read.face, read.count, read.serial, reason)]


def rule(s: State, cmd: Rule) -> list:
    return review.rule(s, cmd, c.SCHEMA, decide, ruled_invalid)


def void(s: State, cmd: Void) -> list:
    need(cmd.serial in s.held, f"card {cmd.serial} is not waiting for review")
    return [CardVoided(cmd.serial)]


HANDLERS = {c.Setup: setup, c.Period: period, c.Dice: dice, c.Transfer: transfer, c.CloseDice: close_dice,
            c.Declare: declare, c.Cancel: cancel, c.Judge: judge, Hold: hold, Rule: rule, Void: void}
decide = refusing(HANDLERS)
