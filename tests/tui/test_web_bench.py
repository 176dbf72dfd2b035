"""`companion bench display`: any game's view counts as one arriving, and --game chooses the night."""
from companion.cli import main
from tui.web import bench
from tui.web.server import sse


def views_seen(stream: bytes) -> int:
    lines = stream.splitlines(keepends=True)
    return sum(bench.is_view(line, previous) for previous, line in zip([b"", *lines], lines))


def test_every_game_s_view_counts_and_the_named_events_do_not():
    jail_view = {"game": "jail", "round": 1, "players": []}
    stream = (b"retry: 2000\n" + sse({"now": 1.0}, "now") + sse([], "boards") + sse({"deadline": None}, "clock")
              + sse(jail_view) + sse({"waiting": "no journal"}, "waiting") + sse({"turn": 2}))
    assert views_seen(stream) == 2


def test_bench_display_takes_the_game_whose_night_it_plays(capsys):
    assert main(["bench", "display", "--game", "voters", "--viewers", "1", "--commits", "1"]) == 2
    assert capsys.readouterr().err.startswith("companion: --game voters: Voters has no demo night; games with one: bingo")
