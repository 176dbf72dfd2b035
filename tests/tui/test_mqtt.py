"""[publish] mqtt: the page server publishes the public view, retained, QoS 1, to
plunder/<event id>/public on a real Mosquitto (Debian's package) started on free local ports;
the page reads it over the broker's websocket listener with /?mqtt=ws://HOST:PORT."""
from __future__ import annotations

import getpass
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import paho.mqtt.client as paho
import pytest

from companion import views
from companion.core.journal import Journal
from companion.core.session import Session
from screens_chromium import chromium, free_port

ROOT = Path(__file__).resolve().parents[2]
DEMO = [json.loads(line) for line in (ROOT / "examples/demo-game.jsonl").read_text().splitlines()
        if line.strip() and not line.startswith("#")]
NAMES = [p["name"] for p in DEMO[0]["players"]]
MOSQUITTO = shutil.which("mosquitto") or shutil.which("mosquitto", path="/usr/sbin:/sbin")
TOPIC = "plunder/spring-night/public"

pytestmark = pytest.mark.skipif(MOSQUITTO is None, reason="mosquitto is not installed (apt-get install mosquitto)")


def companion(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "companion", *args], capture_output=True, text=True, timeout=60)


# The README's setup: the Pi publishes with a password, viewers (anonymous on websockets, or a
# "viewer" user) may only read.
ACL = """topic read plunder/+/public
user plunder
topic readwrite plunder/+/public
user viewer
topic read plunder/+/public
"""


class Broker:
    def __init__(self, folder: Path, port: int | None = None, secured: bool = False):
        self.port, self.ws = port or free_port(), free_port()
        config = folder / f"mosquitto-{self.port}.conf"
        runs_as = f"user {getpass.getuser()}\n"     # run as root, mosquitto would drop to a user who cannot read tmp
        text = f"{runs_as}persistence false\nlistener {self.port} 127.0.0.1\nallow_anonymous true\n"
        if secured:
            (folder / "acl").write_text(ACL)
            passwords = folder / "passwd"
            for i, (user, password) in enumerate([("plunder", "pi-pass"), ("viewer", "viewer-pass")]):
                subprocess.run(["mosquitto_passwd", "-b", *(["-c"] if i == 0 else []), str(passwords), user,
                                password], check=True, capture_output=True)
            text = (f"{runs_as}per_listener_settings true\npersistence false\nlistener {self.port} 127.0.0.1\n"
                    f"allow_anonymous false\npassword_file {passwords}\nacl_file {folder / 'acl'}\n")
        config.write_text(text + f"listener {self.ws} 127.0.0.1\nprotocol websockets\nallow_anonymous true\n"
                          + (f"acl_file {folder / 'acl'}\n" if secured else ""))
        self.process = subprocess.Popen([MOSQUITTO, "-c", str(config)], stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while not Subscriber.reachable(self.ws):
            assert time.monotonic() < deadline and self.process.poll() is None, "mosquitto did not start"
            time.sleep(0.05)

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(10)


class Subscriber:
    """Every message on TOPIC: (monotonic arrival, payload, retain flag, qos)."""

    def __init__(self, port: int, user: str | None = None, password: str | None = None):
        self.got: list[tuple[float, bytes, bool, int]] = []
        self.arrived = threading.Condition()
        self.client = paho.Client(paho.CallbackAPIVersion.VERSION2)
        if user:
            self.client.username_pw_set(user, password)
        self.client.on_connect = lambda c, *_: c.subscribe(TOPIC, qos=1)
        self.client.on_message = self._message
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()

    @staticmethod
    def reachable(port: int) -> bool:
        import socket
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return True
        except OSError:
            return False

    def _message(self, client, userdata, message) -> None:
        with self.arrived:
            self.got.append((time.monotonic(), message.payload, message.retain, message.qos))
            self.arrived.notify_all()

    def wait_for(self, view: dict, timeout: float = 10, start: int = 0) -> tuple[float, bytes, bool, int]:
        deadline = time.monotonic() + timeout
        with self.arrived:
            while True:
                for item in self.got[start:]:
                    if json.loads(item[1]) == view:
                        return item
                left = deadline - time.monotonic()
                assert left > 0, f"{TOPIC} never carried the view (last: {self.got[-1][1][:200] if self.got else None})"
                self.arrived.wait(left)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def shows(view: dict) -> str:
    return f"JSON.stringify(state.view) === JSON.stringify({json.dumps(view)})"


def event_file(folder: Path, mqtt: str) -> Path:
    players = "".join(f'[[players]]\nno = {p["no"]}\nname = "{p["name"]}"\naccount = "{p["account"]}"\n'
                      f'card = {p["card"]}\n' for p in DEMO[0]["players"])
    path = folder / "event.toml"
    path.write_text(f'version = 1\n[event]\nname = "Spring night"\nid = "spring-night"\nsecret = "s3cret-words"\n'
                    f'journal = "{folder / "game.db"}"\n[publish]\nmqtt = "{mqtt}"\n{players}')
    return path


def start_server(event: Path) -> tuple[subprocess.Popen, int]:
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "companion", "display", "--serve", "--event", str(event),
                               "--port", str(port)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return server, port


def public(journal: Path) -> dict:
    return json.loads(companion("status", "--journal", str(journal), "--public", "--json").stdout)


def only_public(payload: bytes) -> None:
    text = payload.decode()
    view = json.loads(text)
    for secret in ("s3cret-words", '"card"', '"player"', '"robber"', '"victim"', '"votes_by"'):
        assert secret not in text
    if "ranking" not in view:
        assert not [name for name in NAMES if name in text], "a player's name in the view"
    for row in view.get("ranking", []):
        assert set(row) == {"rank", "name", "final", "beats_secretariat"}     # a name, never beside its letter (R2)
    for card in (p["card"] for p in DEMO[0]["players"]):
        assert json.dumps(card, separators=(",", ":")) not in text.replace(" ", "")


@pytest.fixture
def folder():
    with tempfile.TemporaryDirectory() as name:
        yield Path(name)


def replayed(folder: Path, commands: list[dict]) -> Path:
    journal = folder / "game.db"
    script = folder / "start.jsonl"
    script.write_text("".join(json.dumps(c) + "\n" for c in commands))
    result = companion("replay", str(script), "--journal", str(journal))
    assert result.returncode == 0, result.stderr
    return journal


def stop(server: subprocess.Popen) -> str:
    server.terminate()
    try:
        return server.communicate(timeout=10)[1]
    except subprocess.TimeoutExpired:
        server.kill()
        return server.communicate()[1]


def test_replayed_then_done_is_on_the_broker_retained_and_public(folder):
    broker = Broker(folder)
    journal = replayed(folder, DEMO[:12])
    server, _ = start_server(event_file(folder, f"mqtt://127.0.0.1:{broker.port}"))
    first = Subscriber(broker.port)
    try:
        _, payload, _, qos = first.wait_for(public(journal))
        only_public(payload)
        result = companion("do", "--journal", str(journal), *[json.dumps(c) for c in DEMO[12:40]])
        assert result.returncode == 0, result.stdout + result.stderr
        view = public(journal)
        first.wait_for(view)
        late = Subscriber(broker.port)                 # subscribes after the change: the retained view
        _, payload, retain, qos = late.wait_for(view)
        late.close()
        assert retain and qos == 1
        only_public(payload)
        result = companion("do", "--journal", str(journal), *[json.dumps(c) for c in DEMO[40:]])
        assert result.returncode == 0, result.stdout + result.stderr
        finished = public(journal)
        assert "ranking" in finished
        only_public(first.wait_for(finished)[1])
    finally:
        first.close()
        errors = stop(server)
        broker.stop()
    assert "Traceback" not in errors and "warning" not in errors, errors


def test_commit_to_broker_latency(folder):
    broker = Broker(folder)
    journal = folder / "game.db"
    session = Session(Journal(journal))
    session.submit(DEMO[0])
    server, _ = start_server(event_file(folder, f"mqtt://127.0.0.1:{broker.port}"))
    watcher = Subscriber(broker.port)
    latencies = []
    try:
        watcher.wait_for(public(journal), 20)
        for command in DEMO[1:]:
            before = len(watcher.got)
            outcome = session.submit(command)
            committed = time.monotonic()
            assert outcome.status != "rejected", outcome.reason
            view = json.loads(json.dumps(views.public(session.state)))   # what the server reads from the journal
            if before and json.loads(watcher.got[before - 1][1]) == view:
                continue                                    # this command changed nothing public
            latencies.append(watcher.wait_for(view, start=before)[0] - committed)
            if len(latencies) == 25:
                break
            time.sleep(0.15)
    finally:
        watcher.close()
        stop(server)
        broker.stop()
    median = statistics.median(latencies)
    print(f"commit -> broker over {len(latencies)} changes: median {median * 1000:.0f} ms, "
          f"max {max(latencies) * 1000:.0f} ms")
    assert median <= 0.1, f"median {median * 1000:.0f} ms"


@pytest.mark.slow
def test_a_broker_that_is_down_is_one_warning_and_then_published_to(folder):
    port = free_port()
    journal = replayed(folder, DEMO[:12])
    server, web = start_server(event_file(folder, f"mqtt://127.0.0.1:{port}"))
    try:
        import urllib.request
        deadline = time.monotonic() + 20
        while True:                                    # the display serves with no broker at all
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{web}/public.json", timeout=2) as answer:
                    assert json.loads(answer.read()) == public(journal)
                    break
            except OSError:
                assert time.monotonic() < deadline, "the page server did not serve without its broker"
                time.sleep(0.1)
        time.sleep(3)                                  # several retries
        broker = Broker(folder, port)
        try:
            watcher = Subscriber(port)
            watcher.wait_for(public(journal), 40)     # the retry reaches it (back-off up to 30 s)
            watcher.close()
            errors = stop(server)
        finally:
            broker.stop()
    finally:
        errors = stop(server) if server.returncode is None else errors
    lines = errors.splitlines()
    assert [line for line in lines if "warning" in line] == [
        f"companion: warning: MQTT broker mqtt://127.0.0.1:{port} cannot be reached; retrying (the display goes on)"
    ], errors
    assert f"companion: MQTT broker mqtt://127.0.0.1:{port} reached again; publishing to {TOPIC}" in lines, errors
    assert "Traceback" not in errors, errors


def test_a_bad_url_is_one_line(folder):
    event = event_file(folder, "http://127.0.0.1:1883")
    result = companion("display", "--serve", "--event", str(event), "--port", str(free_port()))
    assert result.returncode != 0
    assert result.stderr.strip().count("\n") == 0 and "mqtt://HOST:PORT" in result.stderr, result.stderr


@pytest.mark.slow
@pytest.mark.skipif(chromium() is None, reason="chromium is not installed (apt-get install chromium)")
def test_the_page_reads_the_topic_over_websockets(folder):
    from test_web import Browser
    broker = Broker(folder)
    journal = replayed(folder, DEMO[:12])
    server, web = start_server(event_file(folder, f"mqtt://127.0.0.1:{broker.port}"))
    browser = None
    try:
        watcher = Subscriber(broker.port)
        watcher.wait_for(public(journal), 20)
        watcher.close()
        browser = Browser(str(folder / "profile"))
        browser.go(f"http://127.0.0.1:{web}/?mqtt=ws://127.0.0.1:{broker.ws}&topic={TOPIC}")
        browser.wait(shows(public(journal)), 20)
        assert browser.evaluate("typeof mqtt") == "object"
        result = companion("do", "--journal", str(journal), *[json.dumps(c) for c in DEMO[12:30]])
        assert result.returncode == 0, result.stdout + result.stderr
        browser.wait(shows(public(journal)), 5)
        browser.go(f"http://127.0.0.1:{web}/")               # the default page does not load the bundle
        browser.wait("document.body.dataset.shown !== undefined", 20)
        assert browser.evaluate("typeof mqtt") == "undefined"
    finally:
        if browser is not None:
            browser.close()
        stop(server)
        broker.stop()


def test_the_bundle_loads_only_with_mqtt_and_the_default_page_stays_light():
    from tui.web.server import ASSETS, asset, page_files
    default = sum(len(asset(name)) for name, _ in page_files().values())
    print(f"default page {default} bytes; mqtt.min.js {len(asset(ASSETS['/mqtt.min.js'][0]))} bytes")
    assert default <= 300_000
    assert b"mqtt.min.js" not in asset("index.html")          # page.js adds it only for ?mqtt=


def test_a_broker_with_passwords_and_a_read_only_acl(folder):
    broker = Broker(folder, secured=True)
    journal = replayed(folder, DEMO[:12])
    server, _ = start_server(event_file(folder, f"mqtt://plunder:pi-pass@127.0.0.1:{broker.port}"))
    try:
        viewer = Subscriber(broker.port, "viewer", "viewer-pass")
        view = public(journal)
        viewer.wait_for(view, 20)
        viewer.client.publish(TOPIC, b'{"forged": true}', qos=1, retain=True).wait_for_publish(5)
        viewer.close()
        time.sleep(0.3)
        late = Subscriber(broker.port, "viewer", "viewer-pass")
        time.sleep(1)
        late.close()
        assert [json.loads(p) for _, p, _, _ in late.got] == [view]     # the forged view was dropped
        intruder = Subscriber(broker.port)                                # no password: refused
        time.sleep(1)
        intruder.close()
        assert intruder.got == []
    finally:
        errors = stop(server)
        broker.stop()
    assert "pi-pass" not in errors and "warning" not in errors, errors
