"""The jail card game (ならず者の脱獄, docs/rules/jailbreak.md): one game of the companion's protocol (companion.core.games)."""
from ..core.games import GameRules, Screens
from . import commands, events, night, report, views
from .decide import decide
from .event import EVENT
from .evolve import fold
from .state import State

GAME = GameRules(
    name="jail", title="the jail card game", title_ja="ならず者の脱獄",
    schema=commands.SCHEMA, events=events.EVENTS, state=State,
    decide=decide, fold=fold, invalid=events.invalid_reason,
    staff=views.staff, public=views.public, staff_text=report.staff_text, public_text=report.public_text,
    checkpoints=(events.GameSetUp, events.RoundEnded), replay=views.replay, event=EVENT,
    night=night.REPORT,
    page=("jail.css", "jail.js"), order=3,
    screens=Screens("tui.jail.console:JailConsoleApp", "tui.jail.display:JailDisplayApp"))
