"""At 80×24, the smallest terminal a venue may have, every console's key bar shows every key: the
keys to leave (^q) and, in the demo, to take over from the simulated players (P) are never cut off."""
from __future__ import annotations

import pytest

from companion.cli import main
from companion.core import words
from tui.bluff.console import BluffConsoleApp
from tui.calibrate import CalibrateApp
from tui.bingo.console import ConsoleApp
from tui.bingo.demo import console_class
from tui.jail.console import JailConsoleApp
from tui.voters.console import VotersConsoleApp

from screens_bluff import night as bluff_night
from screens_game import game
from screens_helpers import drive, settle, text_of
from screens_jail import table
from screens_voters import night as voters_night


class TableOnly:
    """A demo night without its simulated hardware or players: the console's own screen."""

    paused = stopping = False

    def __init__(self, session):
        self.session = session

    def hardware(self) -> dict:
        return {}

    def tell(self) -> None:
        pass

    def run(self, should_stop, tell=True) -> None:
        pass


def calibration(tmp):
    event = tmp / "event.toml"
    assert main(["init", "--out", str(event), "--players", "4", "--seed", "3"]) == 0
    event.write_text(event.read_text() + '\n[camera]\nsource = "/nonexistent/*.png"\n')
    return CalibrateApp(event)


CONSOLES = {
    "bingo": lambda tmp: ConsoleApp(game(tmp / "g.db", "turn2_robbed")[0]),
    "voters": lambda tmp: VotersConsoleApp(voters_night(tmp / "v.db", "betting")[0]),
    "bluff": lambda tmp: BluffConsoleApp(bluff_night(tmp / "b.db", "ready")[0]),
    "jail": lambda tmp: JailConsoleApp(table(tmp / "j.db", 3)[0]),
    "demo": lambda tmp: console_class()(TableOnly(game(tmp / "d.db", "turn1_voting")[0]), "http://127.0.0.1:8080"),
    "calibrate": calibration,
}


@pytest.mark.parametrize("name", CONSOLES)
def test_every_key_of_every_console_is_on_screen_at_80x24(tmp_path, name):
    app = CONSOLES[name](tmp_path)
    keys = [(binding.key.replace("ctrl+", "^"), binding.description) for binding in app.BINDINGS]
    shown = [(key, words.say(msgid, words.languages()[0])) for key, msgid in keys]   # as the key bar says them

    async def body(pilot):
        await settle(pilot, lambda app: getattr(app, "ready", "camera:" in text_of(app)))
        await pilot.pause(0.2)
        screen = text_of(pilot.app)
        assert ("^q", "quit") in keys and (name != "demo" or ("P", "pause/resume demo players") in keys)
        missing = [f"{key}  {said}" for key, said in shown if f" {key}  {said} " not in screen]
        assert not missing, f"{name}: keys cut off at 80x24: {missing}\n{screen}"

    drive(app, body, (80, 24))
