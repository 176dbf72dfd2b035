"""Auction Bluff (オークションブラフ, docs/rules/auction-bluff.md): one game of the companion's protocol (companion.core.games)."""
from ..core.games import GameRules, PrintOption, Screens
from . import cards, commands, events, night, report, views
from .event import EVENT
from .decide import decide
from .evolve import fold
from .state import State

ITS_OWN = "--periods and --gem are for an Auction Bluff event's cards"

GAME = GameRules(
    name="bluff", title="Auction Bluff", title_ja="オークションブラフ",
    schema=commands.SCHEMA, events=events.EVENTS, state=State,
    decide=decide, fold=fold, invalid=events.invalid_reason,
    staff=views.staff, public=views.public, staff_text=report.staff_text, public_text=report.public_text,
    checkpoints=(events.GameSetUp, events.PeriodOpened, events.PeriodJudged),
    replay=views.replay, event=EVENT,
    night=night.REPORT,
    card_rules=cards.CARDS, printer="vision.printers.bluff:PRINTER",
    layouts="vision.layouts.bluff:CARDS", print_options=(
        PrintOption("--periods", "an Auction Bluff event: each player's dice-vote and declaration cards for periods 1..N",
                    ITS_OWN, argparse={"type": int, "metavar": "N"}),
        PrintOption("--gem", "an Auction Bluff event: dice-vote cards for this gem's dice (default: each player's own; "
                             "after a transfer, print the received gem's too)", ITS_OWN)),
    page=("bluff.css", "bluff-words.js", "bluff.js"), phones="tui.bluff.phone", order=2,
    screens=Screens("tui.bluff.console:BluffConsoleApp", "tui.bluff.display:BluffDisplayApp"))
