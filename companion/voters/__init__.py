"""Voters (ボーター, docs/rules/voters.md): one game of the companion's protocol (companion.core.games)."""
from ..core.games import GameRules, PrintOption, Screens
from . import cards, commands, events, night, report, views
from .bench import BENCH
from .event import EVENT
from .decide import decide
from .evolve import fold
from .state import State

GAME = GameRules(
    name="voters", title="Voters", title_ja="ボーター",
    schema=commands.SCHEMA, events=events.EVENTS, state=State,
    decide=decide, fold=fold, invalid=events.invalid_reason,
    staff=views.staff, public=views.public, staff_text=report.staff_text, public_text=report.public_text,
    checkpoints=(events.GameSetUp, events.GameDealt, events.GameSettled, events.GameVoided),
    replay=views.replay, event=EVENT,
    night=night.REPORT,
    card_rules=cards.CARDS, printer="vision.printers.voters:PRINTER",
    layouts="vision.layouts.voters:CARDS", print_options=(
        PrintOption("--games", "a Voters event: each player's number cards for games 1..N",
                    "--games is for a Voters event's number cards", argparse={"type": int, "metavar": "N"}),),
    page=("voters.css", "voters.html", "voters.js"), order=1, benches=(BENCH,),
    screens=Screens("tui.voters.console:VotersConsoleApp", "tui.voters.display:VotersDisplayApp"))
