"""Auction Bluff's phone passes over plain HTTP (no browser needed): a malformed pass, in the
address or in the cookie, is 403 or 404 with nothing logged; the first visit moves the pass from the
address into an HttpOnly, SameSite=Strict cookie and sends the browser on to /p/; over HTTPS
(`--cert/--key`) the cookie is Secure too."""
from __future__ import annotations

import http.client
import json
import logging
import shutil
import ssl
import subprocess
import sys
import time
import urllib.parse

import pytest

from companion.cli import main
from tui.bluff import phone as P

from bluff_world import Clock, Server, bluff_night
from screens_chromium import free_port


@pytest.fixture(scope="module")
def night(tmp_path_factory):
    folder = tmp_path_factory.mktemp("phone-pass")
    event, table = bluff_night(folder)
    table.open_door()
    server = Server(event.journal, P.Phone.for_event(event, clock=Clock("20:00")))
    try:
        yield {"event": event, "table": table, "port": server.port, "folder": folder}
    finally:
        server.close()
        table.close_door()
        table.session.journal.close()


def pass_of(night, no: int) -> str:
    event = night["event"]
    return P.token(event.id, event.secret, no, 0)


def ask(port: int, path: str, method: str = "GET", headers: dict | None = None, body=None,
        tls: ssl.SSLContext | None = None) -> tuple[int, http.client.HTTPMessage, bytes]:
    """One request, redirects not followed: (status, headers, body)."""
    connection = (http.client.HTTPSConnection("127.0.0.1", port, timeout=10, context=tls) if tls
                  else http.client.HTTPConnection("127.0.0.1", port, timeout=10))
    try:
        data = None if body is None else json.dumps(body).encode()
        connection.request(method, path, body=data, headers={"Content-Type": "application/json", **(headers or {})})
        answer = connection.getresponse()
        return answer.status, answer.headers, answer.read()
    finally:
        connection.close()


def cookie(value: str) -> dict:
    return {"Cookie": f"{P.COOKIE}={value}"}


MALFORMED = ["１２３.0.AAAAAAAAAAAAAAAAAAAAAA", "٣.0.AAAAAAAAAAAAAAAA", "1.٣.AAAAAAAAAAAAAAAA", "².0.AAAAAAAAAAAAAAAA",
             "9" * 5000 + ".0.AAAAAAAAAAAAAAAA", "1." + "9" * 40 + ".AAAAAAAAAAAAAAAA", "1.0", "1.0.AAAA.extra",
             ".", "..", "1..AAAAAAAAAAAAAAAA", "-1.0.AAAAAAAAAAAAAAAA", "1.0.AAAAAAAAAAAAAAAA", "01.0.AAAAAAAAAAAAAAAA",
             "a" * 7000, "1.0.ＡＡＡＡＡＡＡＡＡＡＡＡＡＡＡＡ", "1.0.AAAAAAAAAAAAAA%00AA", "%FF%FE", "1%2F0%2Fx", "\u202e1.0.x"]


def test_a_malformed_pass_is_403_or_404_and_logs_nothing(night, caplog):
    caplog.set_level(logging.DEBUG)
    port = night["port"]
    for bad in MALFORMED:
        quoted = urllib.parse.quote(bad, safe="%")
        for method, path in (("GET", f"/p/{quoted}"), ("GET", f"/p/{quoted}/state.json"),
                             ("POST", f"/p/{quoted}/dice")):
            status = ask(port, path, method, body={"faces": {"ruby": ["1"] * 5}, "nonce": "x" * 12})[0]
            assert status in (403, 404), (bad[:40], method, path[:60], status)
        if bad.isascii() and "%" not in bad:
            for path in ("/p/", "/p/state.json"):
                assert ask(port, path, headers=cookie(bad))[0] == 403, bad[:40]
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.WARNING], \
        [r.getMessage()[:200] for r in caplog.records if r.exc_info or r.levelno >= logging.WARNING]


def test_the_first_visit_moves_the_pass_into_a_cookie_and_sends_the_browser_on_without_it(night):
    port, genuine = night["port"], pass_of(night, 1)
    status, headers, _ = ask(port, f"/p/{genuine}", headers={"Sec-Fetch-Site": "none"})
    assert status == 303 and headers["Location"] == "/p/"
    [set_cookie] = headers.get_all("Set-Cookie")
    attributes = [part.strip() for part in set_cookie.split(";")]
    assert attributes[0] == f"{P.COOKIE}={genuine}"
    assert {"HttpOnly", "SameSite=Strict", "Path=/p/"} <= set(attributes) and "Secure" not in attributes
    assert "no-store" in headers["Cache-Control"]
    status, _, page = ask(port, "/p/", headers=cookie(genuine))
    assert status == 200 and b'src="/phone.js"' in page
    status, _, body = ask(port, "/p/state.json", headers=cookie(genuine))
    assert status == 200 and json.loads(body)["me"]["no"] == 1
    before = night["table"].session.journal.count()
    status, _, body = ask(port, "/p/dice", "POST", headers=cookie(genuine),
                          body={"faces": {"ruby": ["2"] * 5}, "nonce": "cookie-vote-1"})
    assert status == 200 and json.loads(body)["status"] == "ok"
    assert night["table"].session.journal.count() == before + 1
    assert night["table"].session.state.period.votes[1] == {"ruby": ["2"] * 5}
    status, _, body = ask(port, "/p/")
    assert status == 403 and body.decode().strip() == \
        "パスがありません: シートのQRコードからこのページを開いてください · no pass: open this page from the QR code on your sheet"


def test_a_browser_coming_from_another_site_is_sent_on_by_a_same_origin_page(night):
    # SameSite=Strict withholds the cookie all along a redirect chain begun on another site
    status, headers, body = ask(night["port"], f"/p/{pass_of(night, 2)}", headers={"Sec-Fetch-Site": "cross-site"})
    assert status == 200 and b'http-equiv="refresh" content="0; url=/p/"' in body
    assert pass_of(night, 2).encode() not in body
    assert headers["Set-Cookie"].startswith(f"{P.COOKIE}={pass_of(night, 2)};")


def test_a_revoked_pass_in_a_cookie_is_refused(night):
    old = pass_of(night, 3)
    P.revoke(night["event"].journal, [3])
    try:
        assert ask(night["port"], "/p/state.json", headers=cookie(old))[0] == 403
        assert ask(night["port"], f"/p/{old}")[0] == 403
    finally:
        P.passes_path(night["event"].journal).unlink()


def self_signed(folder) -> tuple:
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                    "-nodes", "-keyout", str(key), "-out", str(cert), "-days", "1", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1"], check=True, capture_output=True, timeout=60)
    return cert, key


@pytest.mark.skipif(not shutil.which("openssl"), reason="needs the openssl command to make a certificate")
def test_over_https_the_page_and_the_passes_are_served_and_the_cookie_is_secure(night, tmp_path):
    cert, key = self_signed(tmp_path)
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "companion", "display", "--event",
                               str(night["folder"] / "event.toml"), "--serve", "--port", str(port),
                               "--cert", str(cert), "--key", str(key)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    trusting = ssl.create_default_context(cafile=str(cert))
    try:
        assert server.stdout.readline().decode().startswith(f"companion: the audience page on https://127.0.0.1:{port}/")
        for _ in range(50):                                   # 503 until the journal is first folded
            status, _, body = ask(port, "/public.json", tls=trusting)
            if status != 503:
                break
            time.sleep(0.2)
        assert status == 200 and json.loads(body)["game"] == "bluff"
        status, headers, _ = ask(port, f"/p/{pass_of(night, 1)}", tls=trusting)
        assert status == 303 and "Secure" in [part.strip() for part in headers["Set-Cookie"].split(";")]
        assert ask(port, "/p/state.json", headers=cookie(pass_of(night, 1)), tls=trusting)[0] == 200
    finally:
        server.terminate()
        _, errors = server.communicate(timeout=10)
    assert b"Traceback" not in errors


def test_a_bad_certificate_or_key_is_one_line(night, tmp_path, capsys):
    event = str(night["folder"] / "event.toml")
    not_pem = tmp_path / "cert.pem"
    not_pem.write_text("not a certificate\n")
    for options, said in ((["--cert", str(tmp_path / "none.pem")], "cannot read"),
                          (["--cert", str(not_pem)], "not a PEM certificate and its private key"),
                          (["--key", str(not_pem)], "--key needs --cert")):
        assert main(["display", "--event", event, "--serve", "--port", str(free_port()), *options]) in (1, 2)
        err = capsys.readouterr().err
        assert said in err and len(err.strip().splitlines()) == 1, err
