"""Text from people and cards is data, never markup (ARCHITECTURE law 9): arbitrary text in every
field a person or a card fills — player and event names, card serials, review reasons, Auction
Bluff declarations and dice faces, rejection reasons — through every console and display of the
four games, headless under Pilot (the calibration screen's are test_markup_calibration.py's). No
screen may fail, and the text shows as it was typed."""
from __future__ import annotations

import asyncio
import copy
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, example, given, settings, strategies as st

from companion import views
from companion.cli import main
from companion.core.journal import Journal
from companion.core.session import Session
from tui.bluff.console import BluffConsoleApp
from tui.bluff.display import BluffDisplayApp
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
# each example runs two apps (seconds on a busy Pi-sized machine): the hostile examples written out
# (@example) and three drawn, and no shrinking
SLOW = settings(max_examples=3, deadline=None, suppress_health_check=list(HealthCheck),
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


@pytest.mark.slow
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


@pytest.mark.slow
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
