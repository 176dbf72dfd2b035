"""Auction Bluff (オークションブラフ, docs/rules/auction-bluff.md): one game of the companion's protocol (companion.core.games)."""
from ..core.games import GameRules, Screens
from . import cards, commands, events, night, report, views
from .event import EVENT
from .decide import decide
from .evolve import fold
from .state import State

GAME = GameRules(
    name="bluff", title="Auction Bluff", schema=commands.SCHEMA, events=events.EVENTS, state=State,
    decide=decide, fold=fold, invalid=events.invalid_reason,
    staff=views.staff, public=views.public, staff_text=report.staff_text, public_text=report.public_text,
    checkpoints=(events.GameSetUp, events.PeriodOpened, events.PeriodJudged),
    cards=("bluff_dice", "bluff_declare"), replay=views.replay, event=EVENT,
    night=night.REPORT,
    card_rules=cards.CARDS, printer="vision.printers.bluff:PRINTER",
    layouts="vision.layouts.bluff:CARDS",
    page=("bluff.css", "bluff.js"), phones="tui.bluff.phone", order=2,
    screens=Screens("tui.bluff.console:BluffConsoleApp", "tui.bluff.display:BluffDisplayApp"))
