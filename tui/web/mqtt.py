"""Publishes the public view to an MQTT broker: retained, QoS 1, on plunder/<event id>/public.

Used by the page server (server.py) when the event file has [publish] mqtt = "mqtt://HOST:PORT"
(or "mqtt://USER:PASSWORD@HOST:PORT" for a broker with authentication; never shown with the password):
the server already serialises the public view once per change; the same bytes go to the broker,
which fans them out to remote screens and overlays. paho's own thread keeps the connection and
retries; a broker that is down or goes away is one warning line (one per outage), never an error
of the display. Only the newest view matters (it is retained), so while disconnected nothing
queues up: the newest view is sent when the connection comes (back).
"""
from __future__ import annotations

import sys
import threading
from urllib.parse import urlsplit

import paho.mqtt.client as paho

RETRY_MIN_S, RETRY_MAX_S = 1, 30


def topic_for(event_id: str) -> str:
    return f"plunder/{event_id}/public"


def parse_url(url: str) -> tuple[str, int, str | None, str | None, str]:
    """mqtt://[USER:PASSWORD@]HOST[:PORT] -> (host, port, user, password, the URL without the
    password, for messages); ValueError (one line, no password in it) otherwise."""
    parts = urlsplit(url)
    shown = f"mqtt://{parts.username + '@' if parts.username else ''}{parts.netloc.rpartition('@')[2]}"
    try:
        port = parts.port or 1883
    except ValueError:
        raise ValueError(f"[publish] mqtt {shown!r}: the port is not a number") from None
    if parts.scheme != "mqtt" or not parts.hostname or parts.path not in ("", "/") or parts.query:
        raise ValueError(f"[publish] mqtt {shown if parts.scheme == 'mqtt' else parts.scheme + '://…'!r}: "
                         "expected mqtt://HOST:PORT or mqtt://USER:PASSWORD@HOST:PORT")
    return parts.hostname, port, parts.username, parts.password, shown


class Publisher:
    def __init__(self, url: str, topic: str, warn=None):
        self.host, self.port, user, password, self.url = parse_url(url)
        self.topic = topic
        self.warn = warn or (lambda line: print(line, file=sys.stderr, flush=True))
        self.lock = threading.Lock()
        self.latest: bytes | None = None
        self.connected = False
        self.down = False                      # warned about this outage already
        self.sent = 0                          # publishes handed to paho (for the tests)
        self.closing = False
        self.client = paho.Client(paho.CallbackAPIVersion.VERSION2, protocol=paho.MQTTv311)
        if user:
            self.client.username_pw_set(user, password)
        self.client.reconnect_delay_set(RETRY_MIN_S, RETRY_MAX_S)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_connect_fail = self._on_connect_fail

    def start(self) -> "Publisher":
        self.client.connect_async(self.host, self.port, keepalive=30)
        self.client.loop_start()
        return self

    def publish(self, payload: bytes) -> None:
        with self.lock:
            self.latest = payload
            if self.connected:
                self._send(payload)

    def close(self) -> None:
        self.closing = True
        self.client.disconnect()
        self.client.loop_stop()

    def _send(self, payload: bytes) -> None:
        self.client.publish(self.topic, payload, qos=1, retain=True)
        self.sent += 1

    def _outage(self, why: str) -> None:
        with self.lock:
            self.connected = False
            if self.down:
                return
            self.down = True
        self.warn(f"companion: warning: MQTT broker {self.url} {why}; retrying (the display goes on)")

    def _on_connect(self, client, userdata, flags, reason, properties) -> None:
        if reason.is_failure:
            self._outage(f"refused the connection ({reason})")
            return
        with self.lock:
            self.connected = True
            back, self.down = self.down, False
            if self.latest is not None:
                self._send(self.latest)
        if back:
            self.warn(f"companion: MQTT broker {self.url} reached again; publishing to {self.topic}")

    def _on_disconnect(self, client, userdata, flags, reason, properties) -> None:
        if self.closing:
            return
        self._outage(f"disconnected ({reason})")

    def _on_connect_fail(self, client, userdata) -> None:
        self._outage("cannot be reached")
