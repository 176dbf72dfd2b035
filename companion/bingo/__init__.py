"""Plunder Bingo (強奪ビンゴ): one game of the companion's protocol (companion.core.games)."""
from ..core.games import GameRules, PrintOption, Screens
from . import cards, commands, demo, events, night, report, views
from .drills import DRILLS
from .event import EVENT
from .decide import decide
from .evolve import fold
from .state import State

GAME = GameRules(
    name="bingo", title="Plunder Bingo", title_ja="強奪ビンゴ",
    schema=commands.SCHEMA, events=events.EVENTS, state=State,
    decide=decide, fold=fold,
    invalid=lambda event: event.reason if isinstance(event, events.CardInvalid) else None,
    staff=views.staff, public=views.public, staff_text=report.staff_text, public_text=report.public_text,
    checkpoints=(events.GameSetUp, events.TurnBegan, events.GameFinished),
    event=EVENT,
    night=night.REPORT,
    card_rules=cards.CARDS, printer="vision.printers.bingo:PRINTER",
    layouts="vision.layouts.bingo:CARDS", print_options=(
        PrintOption("--special", "special cards on demand: inout, change or exclusion, e.g. change=3 or inout=2x4",
                    "--special cards are Plunder Bingo's", [], {"action": "append", "metavar": "KIND=PLAYER[xN]"}),
        PrintOption("--first", "number of the first special card (keep serials unique across print runs: "
                               "continue where the last run stopped)",
                    "--first numbers Plunder Bingo's special cards", 1, {"type": int}),
        PrintOption("--only-special", "print only the --special cards", "--only-special is for Plunder Bingo's "
                    "special cards", False, {"action": "store_true"})),
    page=("bingo.css", "bingo.js", "bingo.html"), order=0, demo=demo.demo_script, drills=DRILLS,
    screens=Screens("tui.bingo.console:ConsoleApp", "tui.bingo.display:DisplayApp", balls=True,
                    night="tui.bingo.demo"))
