"""The console's hardware seams with the real drivers, simulated: the cage on a socket,
the staff panel on gpiozero's MockFactory, the ball camera on a folder of rendered frames."""
from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from tui.bingo.console import ConsoleApp
from tui.sources import from_event

from screens_game import game
from screens_helpers import ball_frames, drive, settle, text_of


def event_with(**sections):
    return SimpleNamespace(sections=sections, id="test-night", secret="s3cret")


def in_draw_phase(tmp_path):
    session, clock = game(tmp_path / "g.db", "turn1_counted")
    session.submit({"do": "end_turn"})
    session.submit({"do": "begin_turn"})
    return session


def test_absent_hardware_is_not_connected_and_bad_settings_are_said_once():
    sources, problems = from_event(event_with(serial={"url": "nonsense://x"}, panel={"beam": 99}), dict)
    assert set(sources) == {"link", "panel"}                 # asked for, so down (red), not absent
    assert all(source.health().state == "down" for source in sources.values())
    assert any(p.startswith("cage link:") for p in problems) and any("[panel] beam must be -1 to 27, not 99" in p for p in problems)
    assert from_event(None, dict) == ({}, [])


def test_cage_link_and_panel_drive_the_session(tmp_path):
    from drivers.cage_sim import SimCage, SocketPort
    session = in_draw_phase(tmp_path)
    with SimCage(SocketPort()) as cage:
        sources, problems = from_event(event_with(serial={"url": cage.url},
                                                  panel={"pin_factory": "mock", "bounce_ms": 0}),
                                       lambda: session.state.place, journal=tmp_path / "g.db")
        assert problems == [] and set(sources) == {"link", "panel"}
        app = ConsoleApp(session, sources=sources)

        async def body(pilot):
            await settle(pilot, lambda app: "cage link    ● ok" in text_of(app), timeout=15)
            for ball in (10, 11, 12):
                cage.read(ball)
                await settle(pilot, lambda app: ball in session.state.drawn, timeout=15)
            assert session.state.phase == "voting"
            assert len(json.loads((tmp_path / "g.db.cage-marks").read_text()).values()) == 1   # one cage boot
            button = sources["panel"].panel.buttons["close"].pin
            button.drive_low()
            button.drive_high()
            await settle(pilot, lambda app: session.state.phase == "resolve", timeout=15)
            assert "staff panel  ● ok" in text_of(pilot.app)

        drive(app, body, (120, 36))


def cage_frame(seq: int, ball: int) -> bytes:
    from drivers import protocol
    return protocol.encode(protocol.BALL, "0badcafe", seq, str(ball))[:-1]


def test_the_cage_hears_its_ack_only_once_the_journal_has_the_ball_and_a_restart_draws_nothing_twice(tmp_path):
    from companion.core.session import Outcome
    from tui.sources import LinkSource
    journal = tmp_path / "g.db"
    asked, sent = [], threading.Event()

    def send(command, reply=None):
        asked.append((command, reply))
        sent.set()
    source = LinkSource({"url": "loop://"}, None, journal)
    source.start(send, lambda *a: None)
    try:
        acks = []
        handling = threading.Thread(target=lambda: acks.extend(source.link.handle(cage_frame(7, 9))))
        handling.start()
        assert sent.wait(5)
        time.sleep(0.2)
        assert acks == [] and handling.is_alive()             # no ACK while the draw is not journaled
        command, reply = asked[0]
        reply(Outcome("ok"))
        handling.join(5)
        assert command == {"do": "draw_ball", "ball": 9, "id": "cage:0badcafe:7"} and len(acks) == 1
        assert json.loads(Path(f"{journal}.cage-marks").read_text()) == {"0badcafe": 7}
    finally:
        source.stop()
    restarted = LinkSource({"url": "loop://"}, None, journal)     # the Pi came back up; the cage resends 7
    restarted.send = restarted.note = lambda *a, **k: pytest.fail("a resent ball was drawn again")
    assert len(restarted.link.handle(cage_frame(7, 9))) == 1 and restarted.link.health().duplicates == 1


def test_an_unreadable_cage_marks_file_is_said_and_the_link_still_works(tmp_path):
    from tui.sources import LinkSource
    journal = tmp_path / "g.db"
    Path(f"{journal}.cage-marks").write_text("{not json")
    notes = []
    source = LinkSource({"url": "loop://"}, None, journal)
    source.start(lambda command, reply=None: None, lambda text, level="info": notes.append((text, level)))
    source.stop()
    assert notes and "g.db.cage-marks is unreadable" in notes[0][0] and notes[0][1] == "warning"
    assert source.link.marks() == {}


def test_ball_camera_reads_a_ball_into_the_draw(tmp_path):
    frames = tmp_path / "frames"
    image = ball_frames(frames, 13, 4)
    session = in_draw_phase(tmp_path)
    sources, problems = from_event(event_with(camera={"source": str(frames), "width": image.shape[1],
                                                      "height": image.shape[0], "fps": 10}),
                                   lambda: session.state.place)
    assert problems == []
    app = ConsoleApp(session, sources=sources)

    async def body(pilot):
        await settle(pilot, lambda app: 13 in session.state.drawn, timeout=120)   # its decoding processes start and warm up first
        await pilot.pause(0.2)
        assert "frames read" in text_of(pilot.app)

    drive(app, body, (120, 36))


def test_card_scanner_folder_counts_a_vote(tmp_path):
    import os
    import cv2
    import numpy as np
    from vision import layouts as L
    from vision.sim import drawn_cards as C
    from vision.render import render
    event = event_with()
    card = L.Card("vote", event.id, "V0101", 1, 1)
    picture = cv2.cvtColor(render(card, event.secret, C.RES, 1), cv2.COLOR_GRAY2BGR)
    for bubble in L.layout("vote").field("mark").bubbles:
        if bubble.value == "Y":
            C._mark(np.random.default_rng(1), picture, bubble, "dot", (20, 20, 20))
    folder = tmp_path / "scans"
    folder.mkdir()
    cv2.imwrite(str(folder / "card.png"), picture)
    os.utime(folder / "card.png", (time.time() - 5, time.time() - 5))     # the scanner has finished writing
    session, _ = game(tmp_path / "g.db", "turn1_voting")
    sources, problems = from_event(event, lambda: session.state.place, str(folder))
    assert problems == [] and set(sources) == {"scanner"}
    app = ConsoleApp(session, sources=sources)

    async def body(pilot):
        await settle(pilot, lambda app: any(b.serial == "V0101" for b in session.state.ballots), timeout=20)
        assert [b.choice for b in session.state.ballots if b.serial == "V0101"] == ["Y"]
        await settle(pilot, lambda app: (folder / "done" / "card.png").exists())
        assert "card scanner ● ok" in text_of(pilot.app)

    drive(app, body, (120, 36))


def test_the_panel_buzzer_follows_the_turn_clock_and_its_led_the_hardware(tmp_path):
    session, _ = game(tmp_path / "g.db", "turn1_voting")
    sources, problems = from_event(event_with(panel={"pin_factory": "mock", "bounce_ms": 0}),
                                   lambda: session.state.place)
    panel, warned = sources["panel"].panel, []
    panel.warn = lambda: warned.append(True)
    now = {"t": 0.0}
    app = ConsoleApp(session, sources=sources, clock=lambda: now["t"])

    async def body(pilot):
        from tui.widgets import Countdown
        await settle(pilot, lambda app: app.query_one(Countdown).deadline is not None)
        now["t"] = pilot.app.query_one(Countdown).deadline - 10            # 10 s left: under warn_seconds
        await settle(pilot, lambda app: warned, timeout=5)
        assert warned == [True] and panel.led_ok.value == 1              # no other hardware to fault

    drive(app, body, (120, 36))
