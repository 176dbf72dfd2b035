"""The staff console under Pilot: every action is a key, and lands in the journal as a command."""
from __future__ import annotations

import threading

import pytest

from companion.cli import main
from tui.bingo.console import ConsoleApp
from tui.sources import Health

from screens_game import game, play
from screens_helpers import assert_snapshot, drive, settle, steady, text_of, english, speaking  # noqa: F401  (fixtures)

pytestmark = pytest.mark.usefixtures("english")     # the tests read the consoles' English


def console_on(tmp_path, upto, **kwargs):
    session, clock = game(tmp_path / "g.db", upto)
    return session, ConsoleApp(session, clock=clock.now, **kwargs), clock


KEYS = {"enter", "escape", "tab", "ctrl+u"}


async def do(pilot, *keys, expect="ok"):
    """Press keys and wait for the command's outcome. A longer string is typed into the
    focused field at once (Textual's Input does the typing; the test's time goes to keys)."""
    app = pilot.app
    before = app.handled
    for key in keys:
        if len(key) > 1 and key not in KEYS:
            app.focused.insert_text_at_cursor(key)
        else:
            await pilot.press(key)
    await settle(pilot, lambda app: app.handled > before)
    outcome = app.last_outcome
    assert outcome.status == expect, f"{keys}: {outcome.status} {outcome.reason}"
    return outcome


def last_command(session) -> dict:
    *_, batch = session.journal.batches(session.journal.count() - 1)
    return batch.command


@pytest.mark.slow
def test_turn_actions_from_the_keyboard(tmp_path):
    session, app, _ = console_on(tmp_path, "ready")

    async def body(pilot):
        await settle(pilot, lambda app: app.ready)
        await do(pilot, "b")
        assert session.state.phase == "draw"
        await do(pilot, "d", "1 2", "enter", expect="rejected")       # the rules say why, the bar shows it
        assert "draw 3 balls" in text_of(pilot.app)
        await do(pilot, "d", "1 2 3", "enter")
        assert session.state.drawn == [1, 2, 3]
        await do(pilot, "v", "V0101", "enter", "enter", "X", "enter")  # turn is filled in
        assert last_command(session) == {"do": "vote", "serial": "V0101", "turn": 1, "marks": ["X"]}
        await do(pilot, "v", "V0201", "enter", "enter", "yz", "enter", expect="invalid")
        assert "more than one mark" in text_of(pilot.app)
        for serial, mark in (("V0301", "Y"), ("V0401", "Z")):     # as the scanner would
            session.submit({"do": "vote", "serial": serial, "turn": 1, "marks": [mark]})
        await do(pilot, "p", "enter", "change", "enter")              # player 1: the selected row
        assert session.state.players[1].items == {"change": 1}
        await do(pilot, "c", "enter", "9", "enter", "27", "enter", "C1", "enter")
        assert session.state.players[1].card[8] == 27
        await do(pilot, "p", "enter", "inout", "enter")
        await do(pilot, "i", "enter", "out", "enter", "20", "enter", "enter")   # no serial: optional
        await do(pilot, "e", "enter", "15", "enter", "enter", expect="invalid")
        assert "no unused exclusion card" in text_of(pilot.app)
        await do(pilot, "t")
        assert session.state.valid == [1, 2, 3] and session.state.moves_due == [(20, "out")]
        await do(pilot, "o", "enter", "row1", "enter")
        await do(pilot, "n")
        await do(pilot, "b")
        assert session.state.place[20] == "trash"
        await do(pilot, "d", "4", "enter")                           # one number: that ball alone
        assert last_command(session) == {"do": "draw_ball", "ball": 4}
        await do(pilot, "d", "5", "enter")
        await do(pilot, "d", "6", "enter")
        assert session.state.phase == "voting"
        await do(pilot, "r", "R0201", "enter", "enter", "2", "enter", "1", "enter")   # robber: selected row
        assert [r.serial for r in session.state.robberies] == ["R0201"]
        assert "R0201" in text_of(pilot.app) and "used by R0201" in text_of(pilot.app)
        await do(pilot, "w", "R0201", "enter")
        assert session.state.robberies == []

    drive(app, body, (120, 36))


def test_keys_typed_faster_than_the_screen_redraws_land_in_their_fields(tmp_path):
    """A staff member (or a keyboard-wedge scanner) typing a whole form in one burst: each
    Enter moves on before the next key arrives, and the form sends what was typed."""
    from textual import events
    session, app, _ = console_on(tmp_path, "ready")

    async def body(pilot):
        await settle(pilot, lambda app: app.ready)
        await do(pilot, "b")
        await do(pilot, "d", "1 2 3", "enter")
        await pilot.press("v")
        await settle(pilot, lambda app: app.screen.focused is not None and app.screen.focused.id == "field-serial")
        before = app.handled
        for char in "V0101\r\rX\r":              # serial, turn left as filled in, the mark
            key = events.Key("enter" if char == "\r" else char, char)
            key.set_sender(app)
            app._driver.send_message(key)          # all at once, as Pilot's press (which waits) cannot
        await settle(pilot, lambda app: app.handled > before)
        assert last_command(session) == {"do": "vote", "serial": "V0101", "turn": 1, "marks": ["X"]}

    drive(app, body, (120, 36))


def test_undo_asks_first(tmp_path):
    session, app, _ = console_on(tmp_path, "turn1_voting")
    votes = len(session.state.ballots)

    async def body(pilot):
        await settle(pilot, lambda app: app.ready)
        await pilot.press("u")
        assert "Take back command" in text_of(pilot.app) and "V012" in text_of(pilot.app)
        await pilot.press("n")
        await pilot.pause()
        assert len(session.state.ballots) == votes and "undo cancelled" in text_of(pilot.app)
        await do(pilot, "u", "y")
        assert len(session.state.ballots) == votes - 1
        assert last_command(session) == {"do": "undo"}

    drive(app, body, (120, 36))


def test_final_and_cash_count(tmp_path):
    session, app, _ = console_on(tmp_path, "turn3_announced")

    async def body(pilot):
        await settle(pilot, lambda app: app.ready)
        await do(pilot, "f", expect="rejected")
        assert "begin_final rejected" in text_of(pilot.app)
        for key in "tnfg":
            await do(pilot, key)
        for no in range(1, 5):
            await do(pilot, "m", "ctrl+u", str(no), "enter", f"{1_000_000 + no}", "enter")
        assert session.state.players[3].cash == 1_000_003
        await do(pilot, "F")
        assert session.state.phase == "finished" and "FINISHED" in text_of(pilot.app)

    drive(app, body, (120, 36))


def test_review_queue_rules_held_cards(tmp_path):
    import cv2
    import numpy as np
    crop = np.zeros((40, 80, 3), np.uint8)
    crop[:, 40:] = (0, 0, 255)                      # right half red (BGR)
    cv2.imwrite(str(tmp_path / "crop.png"), crop)
    session, app, _ = console_on(tmp_path, "turn1_voting")
    for serial in ("V0101", "V0201", "V0301", "V0401"):
        session.submit({"do": "hold", "card": {"do": "vote", "serial": serial, "turn": 1, "marks": ["X", "Y"]},
                        "reason": "mark between marginal and definite", "crop": str(tmp_path / "crop.png"),
                        "scores": {"mark": {"X": 2.91, "Y": 0.45, "Z": 0.02}}})

    async def body(pilot):
        await settle(pilot, lambda app: app.ready)
        assert "Review queue (4)" in text_of(pilot.app) and "marginal" in text_of(pilot.app)
        assert "mark: X 2.91  Y 0.45  Z 0.02" in text_of(pilot.app)          # the scanner's scores
        await settle(pilot, lambda app: "▀" in text_of(app))        # the crop, in half blocks
        assert "#ff0000" in pilot.app.export_screenshot()
        await do(pilot, "2")
        ruled = last_command(session)
        assert (ruled["do"], ruled["serial"], ruled["card"]) == (
            "rule", "V0101", {"do": "vote", "serial": "V0101", "turn": 1, "marks": ["Y"]})
        await do(pilot, "0", expect="invalid")
        assert last_command(session)["invalid"]
        await do(pilot, "a", expect="invalid")          # as read: two marks
        await do(pilot, "R", "enter", "enter", "ctrl+u", "Z", "enter")
        assert last_command(session)["card"]["marks"] == ["Z"]
        assert session.state.held == {}
        assert "Review queue (0)" in text_of(pilot.app)
        await pilot.press("a")
        assert "no card is waiting" in text_of(pilot.app)

    drive(app, body, (120, 36))


def test_the_review_queue_shows_every_finding_of_a_held_card_literally_and_bounded(tmp_path):
    session, app, _ = console_on(tmp_path, "turn1_voting")
    findings = [{"code": "glare", "message": "glare over bubble [bold]X[/bold] (mark)"},
                {"code": "faint_ink", "message": "faint ink at Y (mark, score 0.21): a light mark? " + "z" * 300},
                *({"code": f"code_{n}", "message": f"finding {n}"} for n in range(3, 11))]
    session.submit({"do": "hold", "card": {"do": "vote", "serial": "V0101", "turn": 1, "marks": ["X"]},
                    "reason": "glare over bubble [bold]X[/bold] (mark)", "findings": findings})

    async def body(pilot):
        await settle(pilot, lambda app: app.ready and "Review queue (1)" in text_of(app))
        text = text_of(pilot.app)
        assert "glare: glare over bubble [bold]X[/bold] (mark)" in text        # as sent: no markup
        assert "faint_ink: faint ink at Y (mark, score 0.21): a" in text and "z…" in text    # cut: 300 z's sent
        assert text.count("z") < 160
        assert "code_8: finding 8" in text and "code_9" not in text and "… and 2 more" in text

    drive(app, body, (160, 48))


class FakeReader:
    """A source as a driver would be: its own thread, send() and note() only."""

    def __init__(self):
        self.stopped = False
        self.go = threading.Event()
        self.go.set()

    def start(self, send, note):
        def run():
            self.go.wait(10)
            note("ball 7 read in 4 frames")
            send({"do": "draw_ball", "ball": 7})
        threading.Thread(target=run, daemon=True).start()

    def health(self):
        return Health("degraded", "9.5 fps")

    def stop(self):
        self.stopped = True


def test_hardware_sources_plug_in(tmp_path):
    session, clock = game(tmp_path / "g.db", "turn1_counted")
    session.submit({"do": "end_turn"})
    session.submit({"do": "begin_turn"})
    reader = FakeReader()
    app = ConsoleApp(session, sources={"reader": reader}, problems=["card scanner: driver not installed (x)"])

    async def body(pilot):
        await settle(pilot, lambda app: app.handled >= 1)
        assert session.state.drawn == [7]
        text = text_of(pilot.app)
        assert "degraded" in text and "9.5 fps" in text
        assert "cage link" in text and "not connected" in text

    drive(app, body, (120, 36))
    assert reader.stopped


def test_a_ball_read_while_the_operators_form_is_open_lands_and_shows_once_it_closes(tmp_path):
    session, clock = game(tmp_path / "g.db", "turn1_counted")
    session.submit({"do": "end_turn"})
    session.submit({"do": "begin_turn"})
    reader = FakeReader()
    reader.go.clear()
    app = ConsoleApp(session, sources={"reader": reader})

    async def body(pilot):
        await settle(pilot, lambda app: app.ready)
        await pilot.press("v")
        await settle(pilot, lambda app: len(app.screen_stack) > 1)
        reader.go.set()                                 # the panes update under the form
        await settle(pilot, lambda app: app.handled >= 1)
        assert session.state.drawn == [7] and len(pilot.app.screen_stack) > 1
        await pilot.press("escape")
        await settle(pilot, lambda app: "draw_ball ball=7" in text_of(app))

    drive(app, body, (120, 36))


@pytest.mark.parametrize("size", [(160, 45), (100, 30)])
def test_snapshot(tmp_path, size):
    session, app, _ = console_on(tmp_path, "turn2_robbed")

    async def body(pilot):
        await settle(pilot, lambda app: app.ready)
        await steady(pilot)
        assert_snapshot(f"console-turn2-{size[0]}x{size[1]}", pilot.app)

    drive(app, body, size)


def test_the_journal_pane_ends_on_its_newest_row_when_it_learns_its_height_after_the_scroll(tmp_path):
    """The race behind the snapshot's flaky journal pane at 100x30, forced into the order that
    loses it: the table's new height (computed on idle) arrives after the scrolls asked for."""
    session, app, _ = console_on(tmp_path, "turn2_robbed")

    async def body(pilot):
        await settle(pilot, lambda app: app.ready)
        await steady(pilot)
        table = app.query_one("#journal")
        for n in range(8):
            table.add_row(str(100 + n), "18:00:00", "ok", f"row {n}")
        table._require_update_dimensions = False     # idle leaves the height alone ...
        table.move_cursor(row=table.row_count - 1)
        await pilot.pause(0.3)                        # ... while the scrolls run
        assert "row 7" not in text_of(app)             # the race lost, for now
        table._require_update_dimensions = True       # then idle learns it
        await steady(pilot)
        assert table.scroll_y == table.max_scroll_y > 0
        assert "row 7" in text_of(app)

    drive(app, body, (100, 30))


def test_console_command_needs_a_journal(tmp_path, capsys):
    assert main(["console", "--journal", str(tmp_path / "none.db")]) == 1
    assert "no such journal" in capsys.readouterr().err
    assert main(["console"]) == 2


def test_the_journal_pane_keeps_its_newest_row_in_view_when_the_pane_shrinks(tmp_path):
    """A pane above it growing (a hardware alert, a longer review queue) makes the journal shorter
    after it scrolled to its end: the newest row must stay in view."""
    session, app, _ = console_on(tmp_path, "turn2_robbed")

    async def body(pilot):
        await settle(pilot, lambda app: app.ready)
        await steady(pilot)
        table = app.query_one("#journal")
        newest = str(table.get_row_at(table.row_count - 1)[3])
        assert newest in text_of(app)
        table.styles.max_height = max(table.size.height - 4, 4)
        await steady(pilot)
        assert table.scroll_y == table.max_scroll_y > 0
        assert newest in text_of(app)

    drive(app, body, (100, 30))


def test_R2_the_finished_console_shows_who_beat_the_secretariat(tmp_path):
    session, app, _ = console_on(tmp_path, "finished")
    beaten = [p for p in session.state.results if p["final"] >= 0]

    async def body(pilot):
        await settle(pilot, lambda app: app.ready and "Results" in text_of(app))
        text = text_of(pilot.app)
        for row in session.state.results:
            name = session.state.players[row["player"]].name
            line = next(line for line in text.splitlines() if f"{row['player']} {name}" in line and "L$" in line)
            assert ("★" in line) == (row["final"] >= 0), line
        assert f"{len(beaten)} of {len(session.state.results)} beat the secretariat" in text

    drive(app, body, (160, 45))


def test_the_shared_forms_are_the_commands_every_game_has_and_each_game_s_are_its_own():
    """tui/forms.py holds only the forms of commands every game's schema has (the corrections);
    a game's own forms live in its package, in its console's FORM."""
    from companion.core import games
    from tui.bingo.console import ConsoleApp
    from tui.bluff.console import BluffConsoleApp
    from tui.forms import FORMS
    from tui.voters.console import VotersConsoleApp
    assert FORMS and all(name in game.schema.commands for game in games.GAMES.values() for name in FORMS)
    for app, game in ((ConsoleApp, "bingo"), (VotersConsoleApp, "voters"), (BluffConsoleApp, "bluff")):
        assert set(app.FORM.TABLE) - set(FORMS) <= set(games.rules(game).schema.commands) | {"tally", "held_number"}, game
    assert "draw" in ConsoleApp.FORM.TABLE and "deal" not in ConsoleApp.FORM.TABLE
    assert "deal" in VotersConsoleApp.FORM.TABLE and "draw" not in VotersConsoleApp.FORM.TABLE
