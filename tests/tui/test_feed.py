"""The journal follower behind both screens: the state and the voting countdown."""
from __future__ import annotations

from companion import views
from companion.core.journal import Journal
from tui.feed import Feed, epoch

from screens_game import START, game, play


def test_countdown_runs_from_the_draw_and_comes_back_with_an_undo(tmp_path):
    session, clock = game(tmp_path / "g.db", "turn1_voting")
    feed = Feed(Journal(tmp_path / "g.db", readonly=True))
    assert feed.poll()
    draw = next(b for b in session.journal.batches() if b.command["do"] == "draw")
    opened = epoch(draw.at)
    assert feed.deadline() == opened + 120           # turn_seconds of the test game
    play(session, "turn1_counted")
    assert feed.poll() and feed.deadline() is None
    session.submit({"do": "undo"})                   # takes back close_voting: voting again
    feed.poll()
    assert feed.deadline() == opened + 120
    assert views.public(feed.state) == views.public(session.state)
    assert feed.poll() == []                         # nothing new: nothing folded


def test_epoch_reads_the_journal_times():
    assert epoch(START.isoformat(timespec="milliseconds")) == START.timestamp()
