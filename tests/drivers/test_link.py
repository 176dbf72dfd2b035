"""The host link (drivers/serial_link.py) against the simulated cage, over a pseudo-terminal,
socket:// on 127.0.0.1 and loop://, with noise, drops, duplicates, reboots and unplugs."""
import queue
import time

import pytest

from companion.core.journal import Journal
from companion.core.session import Session
from drivers import protocol as p
from drivers.cage_sim import Faults, PtyPort, SimCage, SocketPort
from drivers.serial_link import BallRead, LinkError, SerialLink, alert_for
from vision.ball_labels import payload

BOOT = "0badcafe"


def frame(kind, seq=0, payload="", boot=BOOT):
    return p.encode(kind, boot, seq, payload)[:-1]


def until(condition, seconds=5.0):
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def take(q, n, seconds=10.0):
    return [q.get(timeout=seconds) for _ in range(n)]


# -- the receiving rules, line by line --

def test_a_ball_is_delivered_once_and_acked_every_time():
    got = []
    link = SerialLink("loop://", got.append)
    assert link.handle(frame("BALL", 1, "17")) == [p.encode("ACK", BOOT, 1)]
    assert link.handle(frame("BALL", 1, "17")) == [p.encode("ACK", BOOT, 1)]   # our ACK was lost
    assert link.handle(frame("BALL", 2, "4")) == [p.encode("ACK", BOOT, 2)]
    assert [(r.ball, r.source, r.boot_id, r.seq) for r in got] == [(17, "cage", BOOT, 1), (4, "cage", BOOT, 2)]
    h = link.health()
    assert (h.reads, h.duplicates, h.frames, h.gaps) == (2, 1, 3, 0)


def test_the_same_seq_from_another_boot_is_another_ball():
    got = []
    link = SerialLink("loop://", got.append)
    link.handle(frame("HELLO", 0, "fw=1.0.0 reader=qr"))
    link.handle(frame("BALL", 1, "5"))
    link.handle(frame("HELLO", 0, "fw=1.0.0 reader=qr", boot="0badcaff"))
    link.handle(frame("BALL", 1, "5"))                       # the old boot's ball, resent after the reboot
    link.handle(frame("BALL", 1, "6", boot="0badcaff"))
    assert [(r.boot_id, r.ball) for r in got] == [(BOOT, 5), ("0badcaff", 6)]
    h = link.health()
    assert (h.reboots, h.duplicates, h.boot_id, h.firmware) == (1, 1, "0badcaff", "1.0.0")


def test_damaged_lines_are_counted_and_answered_with_nak():
    link = SerialLink("loop://", lambda read: None)
    good = frame("BALL", 1, "17")
    assert link.handle(good[:-1] + b"0") == [p.encode("NAK", p.NO_BOOT, 0)]
    assert link.handle(b"MicroPython v1.22 on Pico") == [p.encode("NAK", p.NO_BOOT, 0)]
    assert link.health().crc_errors == 2 and link.health().reads == 0


def test_a_ball_number_out_of_range_is_refused_not_acked_and_alerted():
    got, alerts = [], []
    link = SerialLink("loop://", got.append, on_alert=alerts.append)
    assert link.handle(frame("BALL", 1, "28")) == []          # never ACK a ball it does not deliver
    h = link.health()
    assert got == [] and h.malformed == 1 and h.alerts == 1 and "'28'" in h.alert and alerts == [h.alert]


def test_heartbeat_fills_the_health():
    link = SerialLink("loop://", lambda read: None)
    link.handle(frame("HB", 3, "pending=2 rtx=5 bad=1 misreads=0 reader=fault"))
    h = link.health()
    assert (h.pending, h.retransmits, h.cage_errors, h.reader, h.boot_id) == (2, 5, 1, "fault", BOOT)
    assert h.heartbeat_age is not None and h.heartbeat_age < 1 and not h.ok   # not connected, reader fault


def test_marks_carry_duplicate_suppression_over_a_host_restart():
    first = SerialLink("loop://", lambda read: None)
    first.handle(frame("BALL", 7, "9"))
    got = []
    second = SerialLink("loop://", got.append, marks=first.marks())
    second.handle(frame("BALL", 7, "9"))
    assert got == [] and second.health().duplicates == 1


# -- alerts: a ball the referee says is not in the machine --

def test_alerts_from_a_place_map_a_list_or_a_callable():
    place = {1: "machine", 2: "pool"}
    assert alert_for(1, place) is None
    assert alert_for(2, place) == "ball 2 is not in the machine (it is pool)"
    assert alert_for(2, [1, 3]) == "ball 2 is not in the machine"
    assert alert_for(2, lambda: {2: "machine"}) is None
    assert alert_for(2, None) is None


def drawing_session() -> Session:
    """A two-player game in its first turn's draw."""
    session = Session(Journal())
    session.submit({"do": "setup", "event": "t", "players": [
        {"no": 1, "name": "A", "account": "A", "card": [1, 2, 3, 4, 5, 6, 7, 8, 9]},
        {"no": 2, "name": "B", "account": "B", "card": [10, 11, 12, 13, 14, 15, 16, 17, 18]}]})
    session.submit({"do": "begin_turn"})
    return session


def test_the_link_alerts_with_the_referees_own_state():
    session = drawing_session()
    assert session.submit({"do": "draw", "balls": [3, 4, 5]}).status == "ok"
    got = []
    link = SerialLink("loop://", got.append, machine=lambda: session.state.place)
    link.handle(frame("BALL", 1, "4"))
    link.handle(frame("BALL", 2, "20"))
    assert [r.alert for r in got] == ["ball 4 is not in the machine (it is drawn)", None]
    assert link.health().alerts == 1


def test_a_ball_resent_after_a_restart_without_marks_is_journaled_once():
    from tui.sources import LinkSource
    session = drawing_session()
    outcomes = []
    for _ in range(2):                     # the console, then the console after a restart with no marks file
        source = LinkSource({"url": "loop://"}, lambda: session.state.place)
        source.send, source.note = lambda command, reply=None: outcomes.append(session.submit(command)), print
        assert source.link.handle(frame("BALL", 7, "9")) == [p.encode("ACK", BOOT, 7)]
    assert [o.status for o in outcomes] == ["ok", "ok"] and outcomes[1].already
    assert session.state.drawn == [9]


def test_the_console_shows_a_refused_frame_as_an_alert_and_the_link_as_degraded():
    from tui.sources import LinkSource
    notes = []
    source = LinkSource({"url": "loop://"}, None)
    source.start(lambda command, reply=None: None, lambda text, level="info": notes.append((text, level)))
    try:
        until(lambda: source.link.health().connected)
        source.link.handle(frame("HELLO", 0, "fw=1.1.0 reader=qr"))
        source.link.handle(frame("HB", 0, "pending=0 rtx=0 bad=0 misreads=0 reader=ok"))
        source.link.handle(frame("BALL", 1, "4"))
        assert source.link.handle(frame("BALL", 3, "6")) == []      # seq 2 never came: refused
        health = source.health()
    finally:
        source.stop()
    assert notes == [(f"cage link: refused ball 6 of cage boot {BOOT} seq 3: seq 2 has not arrived "
                      "(one ball at a time); not acknowledged", "warning")]
    assert health.state == "degraded" and "refused ball 6" in health.detail


# -- raw mode: a plain barcode scanner --

def test_raw_scanner_lines_with_repeat_suppression_and_a_custom_pattern():
    got = []
    link = SerialLink("loop://", got.append, mode="raw", raw_repeat=0.2, machine=[5, 6])
    five, six = payload(5).encode(), payload(6).encode()
    for line in (five, b"]Q1" + five + b"\r", b"junk", b"", six, b"5"):
        link.handle(line)
    time.sleep(0.25)
    link.handle(five)                                        # after the window: a new read
    assert [(r.ball, r.source, r.alert) for r in got] == [(5, "scanner", None), (6, "scanner", None),
                                                          (5, "scanner", None)]
    h = link.health()
    assert (h.duplicates, h.malformed, h.crc_errors) == (1, 2, 0)
    custom = []
    link = SerialLink("loop://", custom.append, mode="raw", raw_pattern=r"PB(?P<ball>\d+)-[A-Z]")
    for line in (b"PB12-K", b"12", b"PB30-K"):
        link.handle(line)
    assert [r.ball for r in custom] == [12]


@pytest.mark.parametrize("kwargs, message", [
    ({"url": "nosuch://x"}, "serial url 'nosuch://x'"),
    ({"url": "loop://", "mode": "hex"}, "serial mode must be one of framed, raw"),
    ({"url": "loop://", "raw_pattern": "(unclosed"}, "raw_pattern"),
])
def test_bad_configuration_says_what(kwargs, message):
    url = kwargs.pop("url")
    with pytest.raises(LinkError, match=message.replace("(", r"\(")):
        SerialLink(url, print, **kwargs)


def test_from_config_needs_a_url():
    with pytest.raises(LinkError, match="needs url"):
        SerialLink.from_config({"mode": "raw"}, print)


# -- over real pyserial ports --

def test_loop_url_reads_in_a_thread():
    got = []
    with SerialLink("loop://", got.append) as link:
        until(lambda: link.health().frames >= 1)   # its own SYNC came back round the loop, whole
        h = link.health()
        assert h.connected and h.crc_errors == 0 and h.reconnects == 0 and got == []
    assert not link.health().connected


def test_raw_scanner_on_a_pty():
    import os
    import tty
    master, slave = os.openpty()
    tty.setraw(slave)
    q = queue.Queue()
    try:
        with SerialLink(os.ttyname(slave), q, mode="raw") as link:
            until(lambda: link.health().connected)
            os.write(master, payload(17).encode() + b"\r\n" + payload(3).encode() + b"\r\n")
            assert [r.ball for r in take(q, 2)] == [17, 3]
    finally:
        os.close(master)
        os.close(slave)


@pytest.fixture(params=["pty", "socket"])
def port(request, tmp_path):
    return PtyPort(str(tmp_path / "cage")) if request.param == "pty" else SocketPort()


def test_balls_arrive_in_order_through_noise_drops_and_duplicates(port):
    q = queue.Queue()
    faults = Faults(corrupt=0.02, drop=0.03, duplicate=0.05, garbage=50)
    with SimCage(port, faults=faults, seed=7) as sim, SerialLink(sim.url, q) as link:
        drawn = [sim.draw() for _ in range(40)]
        got = take(q, 40)
        assert [(r.ball, r.boot_id, r.seq) for r in got] == drawn
        time.sleep(0.3)
        assert q.empty()
        h = link.health()
        assert h.crc_errors > 0 and h.duplicates > 0 and h.reads == 40
        assert sim.counts.corrupted_lines > 0 and sim.counts.dropped_to_host + sim.counts.dropped_to_cage > 0


def test_unplug_and_replug_loses_nothing_and_reconnects_within_2_s(port):
    q = queue.Queue()
    with SimCage(port, seed=3) as sim, SerialLink(sim.url, q) as link:
        until(lambda: link.health().connected)
        first = sim.draw()
        assert take(q, 1)[0].seq == first[2]
        sim.unplug(0.4)
        during = [sim.draw() for _ in range(3)]                # read while the cable is out
        until(lambda: not link.health().connected, 2)
        got = take(q, 3)
        assert [(r.ball, r.boot_id, r.seq) for r in got] == during
        h = link.health()
        assert h.reconnects == 1 and h.connected_at - sim.replugged_at[0] < 2.0


def test_a_reboot_mid_stream_keeps_the_unacked_ball():
    q = queue.Queue()
    with SimCage(SocketPort(), faults=Faults(garbage=80), seed=5) as sim, SerialLink(sim.url, q) as link:
        until(lambda: link.health().boot_id == sim.boot)
        sim.unplug(0.3)                                        # so the ball cannot be ACKed before the reboot
        ball, boot, seq = sim.draw()
        sim.reboot()
        assert sim.flash.saved == [(boot, seq, ball)]
        got = take(q, 1)[0]
        assert (got.ball, got.boot_id, got.seq) == (ball, boot, seq)   # sent after the reboot, under its old boot
        until(lambda: link.health().boot_id == sim.boot)
        assert sim.counts.carried_over == 1 and link.health().reboots == 1


def test_the_cage_draws_only_what_the_referee_says_is_in_the_machine(port):
    machine = {ball: "machine" if ball in (2, 9) else "valid" for ball in range(1, 28)}
    with SimCage(port, machine=lambda: machine, seed=1) as sim:
        first, second = sim.draw()[0], sim.draw()[0]
        assert {first, second} == {2, 9}
        assert sim.draw() is None                              # both read, neither recorded yet
        machine[first] = machine[second] = "drawn"             # the referee records the draw
        assert sim.draw() is None
        machine[2] = "machine"                                 # an IN card brings 2 back
        assert sim.draw()[0] == 2


def test_a_link_survives_a_port_that_is_not_there_yet(tmp_path):
    q = queue.Queue()
    port = PtyPort(str(tmp_path / "later"))
    with SerialLink(port.url, q) as link:
        time.sleep(0.3)
        assert not link.health().connected and "cannot open" in link.health().last_error
        with SimCage(port, seed=2) as sim:
            ball = sim.draw()
            assert take(q, 1)[0].ball == ball[0]


def test_a_consumer_that_fails_does_not_kill_the_reader():
    def broken(read):
        raise RuntimeError("screen gone")
    link = SerialLink("loop://", broken)
    assert link.handle(frame("BALL", 1, "3")) == []           # not handed on: not ACKed, the cage resends
    assert "screen gone" in link.health().alert and link.health().reads == 0


def test_ball_read_is_a_small_value():
    read = BallRead(3, "cage", BOOT, 1, 0.0, "$BALL...")
    assert read.alert is None
    with pytest.raises(AttributeError):
        read.ball = 4


def test_a_device_not_plugged_in_yet_is_not_a_configuration_error():
    with SerialLink("hwgrep://ffff:fff0", print) as link:
        until(lambda: link.health().last_error is not None)
        assert not link.health().connected and "ffff:fff0" in link.health().last_error
