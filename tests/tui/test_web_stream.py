"""The page server's event stream, in this process (no browser): keep-alive comments, and the
public view encoded once per change whatever the number of viewers."""
from __future__ import annotations

import asyncio
import json

import pytest
import aiohttp
from aiohttp import web

from companion.core.journal import Journal
from companion.core.session import Session
from tui.web import server as web_server

from screens_chromium import free_port
from screens_game import game


async def serving(journal, keep_alive=15.0):
    runner = web_server.app_runner(web_server.make_app(journal, poll=0.05, keep_alive=keep_alive))
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    return runner, f"http://127.0.0.1:{port}"


async def views_on(stream, count: int) -> list[dict]:
    found = []
    async for line in stream.content:
        if line.startswith(b'data: {"turn"'):
            found.append(json.loads(line[len(b"data: "):]))
            if len(found) == count:
                return found


def test_a_quiet_stream_gets_a_keep_alive_comment(tmp_path):
    game(tmp_path / "g.db", "turn1_counted")[0].journal.close()

    async def check():
        runner, url = await serving(tmp_path / "g.db", keep_alive=0.3)
        try:
            async with aiohttp.ClientSession() as http, http.get(url + "/events") as stream:
                assert stream.headers["Content-Type"] == "text/event-stream"
                lines = []
                while b": keep-alive\n" not in lines:
                    lines.append(await asyncio.wait_for(stream.content.readline(), 5))
        finally:
            await runner.cleanup()
    asyncio.run(check())


@pytest.mark.slow
def test_each_change_is_encoded_once_for_every_viewer(tmp_path, monkeypatch):
    session, _ = game(tmp_path / "g.db", "turn1_counted")
    encoded = []
    real = web_server.sse
    monkeypatch.setattr(web_server, "sse", lambda data, event=None: encoded.append(event) or real(data, event))

    async def check():
        runner, url = await serving(tmp_path / "g.db")
        try:
            async with aiohttp.ClientSession() as http:
                streams = [await http.get(url + "/events") for _ in range(20)]
                await asyncio.gather(*(views_on(s, 1) for s in streams))
                before = encoded.count(None)
                await asyncio.to_thread(session.submit, {"do": "end_turn"})
                seen = await asyncio.wait_for(asyncio.gather(*(views_on(s, 1) for s in streams)), 5)
                assert all(v == seen[0] for v in seen) and seen[0][0]["phase"] != "resolve"
                assert encoded.count(None) - before == 1
                for s in streams:
                    s.close()
        finally:
            await runner.cleanup()
    asyncio.run(check())
    session.journal.close()


def test_the_page_files_and_words_are_cached_by_their_etag(tmp_path):
    """First load: each file with an ETag (Cache-Control no-cache: the browser asks again each load);
    a reload with If-None-Match: 304 and no body; a file that changed would be sent again."""
    game(tmp_path / "g.db", "turn1_counted")[0].journal.close()

    async def check():
        runner, url = await serving(tmp_path / "g.db")
        try:
            async with aiohttp.ClientSession() as http:
                for path in (*web_server.page_files(), web_server.WORDS):
                    async with http.get(url + path) as first:
                        assert first.status == 200 and first.headers["Cache-Control"] == "no-cache", path
                        tag, body = first.headers["ETag"], await first.read()
                    async with http.get(url + path, headers={"If-None-Match": tag}) as again:
                        assert again.status == 304 and await again.read() == b"", path
                    async with http.get(url + path, headers={"If-None-Match": '"another"'}) as other:
                        assert other.status == 200 and await other.read() == body, path
                async with http.get(url + web_server.WORDS) as answer:
                    said = await answer.json()
                assert said["language"] == "ja+en" and said["words"]["TURN"] == "ターン · TURN"
        finally:
            await runner.cleanup()
    asyncio.run(check())
