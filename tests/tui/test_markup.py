"""Text from people and cards is data, never markup (ARCHITECTURE law 9): arbitrary text in every
field a person or a card fills — player and event names, card serials, review reasons, Auction
Bluff declarations and dice faces, rejection reasons — through every console and display of the
four games, and what the calibration screen shows of the world (a code on a sticker, the cage
link's lines, the event file's path), headless under Pilot. No screen may fail, and the text shows
as it was typed."""
from __future__ import annotations

import asyncio
import copy
import tempfile
from pathlib import Path
from unittest import mock

from hypothesis import HealthCheck, Phase, assume, example, given, settings, strategies as st

from companion import views
from companion.cli import main
from companion.core.journal import Journal
from companion.core.session import Session
from tui.bluff.console import BluffConsoleApp
from tui.bluff.display import BluffDisplayApp
from tui.calibrate import CalibrateApp
from tui.bingo.console import ConsoleApp
from tui.bingo.display import DisplayApp
from tui.forms import Confirm
from tui.jail.console import JailConsoleApp
from tui.jail.display import JailDisplayApp
from tui.voters.console import VotersConsoleApp
from tui.voters.display import VotersDisplayApp

import screens_bluff
import screens_game
import screens_voters
from screens_helpers import settle, text_of
from screens_jail import commands as jail_commands

# Markup of Textual and of Rich: closing tags with nothing open, links, actions, styles, escapes
HOSTILE = ["[/]", "[/bold]", "[b]", "[bold red]x", "[link=a]x[/]", "[@click=app.quit]q[/]",
           "[on red]", "[[/]]", "\\[b]", "[i]open", "$var", ":smile:", "<b>x</b>", "&amp;", "[/", "]["]
PRINTABLE = st.text(st.characters(min_codepoint=32, max_codepoint=126), min_size=1, max_size=12) \
    .map(str.strip).filter(bool)
TEXT = st.one_of(st.sampled_from(HOSTILE), PRINTABLE)
# each example runs two apps (seconds on a busy Pi-sized machine): few examples, and no shrinking
SLOW = settings(max_examples=5, deadline=None, suppress_health_check=list(HealthCheck),
                phases=[Phase.explicit, Phase.reuse, Phase.generate])
CONSOLE, DISPLAY = (160, 45), (160, 45)


def texts(n: int):
    return st.lists(TEXT, min_size=n, max_size=n, unique=True)


def named(steps: dict, names: list[str]) -> dict:
    """The game's steps with its setup's event and player names replaced by `names`."""
    steps = copy.deepcopy(steps)
    setup = steps["ready"][0]
    setup["event"] = names[0]
    for player, name in zip(setup["players"], names):
        player["name"] = name
    return steps


def journal(path: Path, steps: dict, upto: str, expected=frozenset({"ok", "invalid"}), more=()):
    clock = screens_game.Clock()
    session = Session(Journal(path), clock=clock)
    for step, commands in steps.items():
        screens_game.play_step(session, commands, expected)
        if step == upto:
            break
    screens_game.play_step(session, list(more), expected)
    return session, clock


def run(app, body, size) -> None:
    async def main():
        async with app.run_test(size=size) as pilot:
            await body(pilot)
    asyncio.run(main())


def shows(app, *wanted: str) -> None:
    screen = text_of(app)
    for text in wanted:
        assert text in screen, f"{text!r} is not on the screen:\n{screen}"


async def refused_literally(pilot, command: dict) -> None:
    """A command the rules refuse with a reason that quotes the text: the bar shows the reason."""
    app, before = pilot.app, pilot.app.handled
    app.send(command)
    await settle(pilot, lambda app: app.handled > before)
    await pilot.pause()
    assert app.last_outcome.status == "rejected"
    shows(app, app.last_outcome.reason[:60])


def console_check(app_class, session, clock, wanted: list[str], refused: dict | None = None) -> None:
    app = app_class(session, clock=clock.now)

    async def body(pilot):
        await settle(pilot, lambda app: app.ready)
        await pilot.pause()
        shows(pilot.app, *wanted)
        if refused:
            await refused_literally(pilot, refused)
        pilot.app.push_screen(Confirm(f"Take back {wanted[-1]}?"))          # a form's question quotes them too
        await pilot.pause()
        shows(pilot.app, f"Take back {wanted[-1]}?")

    run(app, body, CONSOLE)


def display_check(app_class, path, session, wanted: list[str]) -> None:
    app = app_class(path, poll=0.02)

    async def body(pilot):
        await settle(pilot, lambda app: app.view == views.public(session.state))
        await pilot.pause(0.1)
        shows(pilot.app, *wanted)

    run(app, body, DISPLAY)


@SLOW
@given(texts(6))
@example(["[/bold]", "[/]", "[link=x]", "[b]", "[@click=app.quit]q", "x[/i]"])
@example(["a", "V", "b", "c", "", "d"])     # a name that is a vote serial as rehearsal scripts write it
def test_plunder_bingo_console_and_display(names):
    """The players table, the status line, the review queue (a held card's serial and reason),
    a refusal quoting a serial; the display's final ranking."""
    steps = named(screens_game.STEPS, names)
    held = {"do": "hold", "card": {"do": "vote", "serial": f"V{names[4]}", "turn": 1, "marks": ["X"]},
            "reason": names[5]}
    with tempfile.TemporaryDirectory() as folder:
        session, clock = journal(Path(folder) / "g.db", steps, "turn1_voting", more=[held])
        console_check(ConsoleApp, session, clock, names[:4] + [f"V{names[4]}", names[5]],
                      {"do": "vote", "serial": f"R{names[1]}", "turn": 1, "marks": ["X"]})   # no vote card's
        session.journal.close()
        path = Path(folder) / "f.db"
        session, _ = journal(path, steps, "finished")
        display_check(DisplayApp, path, session, names[1:4])
        session.journal.close()


@SLOW
@given(texts(8))
def test_voters_console_and_display(names):
    steps = named(screens_voters.STEPS, names)
    held = {"do": "hold", "card": {"do": "bet", "player": 5, "number": None, "serial": "N0501"}, "reason": names[6]}
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "v.db"
        session, clock = journal(path, steps, "betting", more=[held])
        console_check(VotersConsoleApp, session, clock, names[:6] + [names[6]])
        display_check(VotersDisplayApp, path, session, names[1:6])
        session.journal.close()


@SLOW
@given(texts(8))
@example(["[/bold]", "[/]", "[link=x]", "[b]", "[@click=app.quit]q", "x[/i]", "[/bold]x", "[i]"])
def test_auction_bluff_console_and_display(names):
    """A declaration's face as a phone page may post it, a held card's serial and reason, a dice
    vote refused for a face that is no face."""
    steps = named(screens_bluff.STEPS, names)
    more = [{"do": "declare", "player": 2, "face": names[6], "count": 3},
            {"do": "hold", "card": {"do": "declare", "player": 4, "face": None, "count": None, "serial": names[7]},
             "reason": names[6]}]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "b.db"
        session, clock = journal(path, steps, "declare", more=more)
        console_check(BluffConsoleApp, session, clock, names[1:6] + [f"3 × {names[6]}", names[7]],
                      {"do": "dice", "player": 1, "faces": {"ruby": [names[7]] * 5}})
        display_check(BluffDisplayApp, path, session, names[1:6])
        session.journal.close()


@SLOW
@given(texts(2), TEXT)
def test_jail_console_and_display(names, kind):
    lines = jail_commands()
    lines[0] = {**lines[0], "event": names[0], "players": [{"no": no, "name": name} for no, name in
                                                            zip((1, 2), names)]}
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "j.db"
        session, clock = journal(path, {"ready": lines}, "ready", expected={"ok", "invalid", "rejected"})
        console_check(JailConsoleApp, session, clock, names,
                      {"do": "play", "player": session.state.turn_player or 1, "kind": kind, "count": 1})
        display_check(JailDisplayApp, path, session, names)
        session.journal.close()


class Link:
    """A cage link whose health line says what the test wants it to."""

    def __init__(self, detail: str):
        self.detail = detail

    def start(self, send, note) -> None:
        pass

    def stop(self) -> None:
        pass

    def health(self):
        from tui.sources import Health
        return Health("degraded", self.detail)


@SLOW
@given(texts(3))
@example(["[/bold]", "[link=x]q", "[b]"])
@example(["[link=a]x[/]", "oC", "*n"])
def test_calibration(names):
    """A sticker's code that is no ball label (the decoders' table quotes it), the cage link's
    health line, and the event file's path (a folder named like markup) in the save's answer."""
    import cv2
    import numpy
    from vision.balls import BallDecoder, FrameRead
    folder, sticker, detail = names
    assume(".." not in folder)

    def read(self, image):
        return FrameRead(None, True, f"a code that is not a ball label: {sticker[:40]!r}", self.name)

    with tempfile.TemporaryDirectory() as tmp:
        event = Path(tmp) / f"d{folder}" / "event.toml"
        event.parent.mkdir(parents=True)
        assert main(["init", "--out", str(event), "--players", "4", "--seed", "3"]) == 0
        frames = Path(tmp) / "frames"                 # grey frames: the decoders' answer is the test's
        frames.mkdir()
        for n in range(200):                          # 100 s of camera: it must not end before the save
            cv2.imwrite(str(frames / f"{n:02d}.png"), numpy.full((120, 160), 128, numpy.uint8))
        with event.open("a") as out:
            out.write(f'\n[camera]\nsource = "{frames}"\nfps = 2\n\n[serial]\nurl = "loop://"\n')

        async def body(pilot):
            await settle(pilot, lambda app: app.frames > 0, timeout=30)
            await pilot.pause(0.6)
            shows(pilot.app, repr(sticker), f"degraded  {detail}")
            await pilot.press("s")
            await settle(pilot, lambda app: isinstance(app.screen, Confirm))
            await pilot.press("y")
            await settle(pilot, lambda app: "saved to" in text_of(app), timeout=30)
            shows(pilot.app, f"saved to {event}")

        with mock.patch.object(BallDecoder, "read", read), \
                mock.patch("tui.calibrate.link_for", lambda section, places: Link(detail)):
            run(CalibrateApp(event), body, (170, 44))


HTML_SINKS = ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "DOMParser", "createContextualFragment")


def test_the_web_pages_write_text_only():
    """The audience page and the phone pages are static files that draw every view with
    textContent and attributes: no script hands a string to an HTML parser."""
    scripts = [path for path in (Path(__file__).resolve().parents[2] / "tui" / "web").glob("*.js")
               if not path.name.endswith(".min.js")]
    assert scripts
    for path in scripts:
        source = path.read_text(encoding="utf-8")
        assert not [sink for sink in HTML_SINKS if sink in source], path.name
