"""Hostile input (testing ladder, step 6): fuzzed `do` arguments, `replay` scripts and `status`
event files and journals. Every answer is an exit code and at most one line on stderr, never a
traceback; refused input changes nothing. Commands run in-process through the CLI's main()
(a few subprocess checks at the end)."""
import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import companion.cli
from companion.bingo import commands as c
from companion.cli import main
from companion.core.journal import Journal

SCALE = int(os.environ.get("FUZZ_SCALE", "1"))      # FUZZ_SCALE=10: a longer campaign, same tests
PLAYERS = [{"no": no, "name": f"Name{no}", "account": "ABCDEF"[no - 1], "card": [9 * (no % 3) + i for i in range(1, 10)]}
           for no in range(1, 7)]
SETUP = {"do": "setup", "event": "Fuzz night", "players": PLAYERS}
OPENING = [SETUP, {"do": "begin_turn"}, {"do": "draw", "balls": [1, 2, 3]}]
# One well-formed command of each kind, for the fuzzer to bend.
TEMPLATES = [
    {"do": "vote", "serial": "V0101", "turn": 1, "marks": ["X"]}, {"do": "buy", "player": 1, "item": "in"},
    {"do": "inout", "player": 1, "dir": "in", "ball": 4}, {"do": "change", "player": 2, "cell": 1, "number": 20},
    {"do": "exclude", "player": 2, "ball": 7}, {"do": "rob", "serial": "R0101", "robber": 1, "victim": 2, "ordinal": 1},
    {"do": "order_lines", "player": 1, "lines": ["row1"]}, {"do": "cash", "player": 1, "amount": 1_100_000},
    {"do": "void", "serial": "V0101"}, {"do": "draw_ball", "ball": 5},
    {"do": "hold", "card": {"do": "vote", "serial": "V0201", "turn": 1, "marks": ["Y"]}, "reason": "faint",
     "scores": {"mark": {"X": 0.1}}},
    {"do": "rule", "serial": "V0201", "invalid": "smudge"}, {"do": "setup", "event": "Again", "players": PLAYERS},
]
KEYS = sorted({key for template in TEMPLATES for key in template} | {"id", "owner", "rules", "reveal_accounts"})

scalars = (st.none() | st.booleans() | st.integers(-10, 30) | st.integers(-10**40, 10**40)
           | st.floats(allow_nan=True, allow_infinity=True)
           | st.text(st.characters(exclude_categories=()), max_size=12)     # lone surrogates too
           | st.sampled_from(["V0101", "V0901", "V0110", "R0102", "banana", "X", "in", "row1", ""]))
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=6), inner, max_size=4), max_leaves=12)


@st.composite
def bent_commands(draw) -> dict:
    """A well-formed command with one key changed, added or dropped."""
    command = dict(draw(st.sampled_from(TEMPLATES)))
    key = draw(st.sampled_from(KEYS + list(command)))
    if draw(st.integers(0, 4)) == 0:
        command.pop(key, None)
    else:
        command[key] = draw(values)
    return command


deep = st.integers(5, 50_000).map(lambda n: "[" * n + "]" * n) | st.integers(2, 3_000).map(
    lambda n: '{"do":"hold","card":' * n + "1" + "}" * n)
do_texts = (bent_commands().map(lambda v: json.dumps(v, ensure_ascii=False))
            | values.map(lambda v: json.dumps(v, ensure_ascii=False))
            | st.text(st.characters(exclude_categories=()), max_size=40) | deep)


PARSER = companion.cli.build_parser()    # built once: building it is most of a command's time


def cli(*argv) -> tuple[int, str, str]:
    """main() in-process: (exit code, stdout, stderr); any exception escaping it fails the test."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
            mock.patch.object(companion.cli, "build_parser", lambda: PARSER):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def one_line(err: str) -> None:
    assert err.count("\n") <= 1 and "Traceback" not in err, err


def lines_of(*commands) -> str:
    return "".join((command if isinstance(command, str) else json.dumps(command, ensure_ascii=False)) + "\n"
                   for command in commands)


@pytest.fixture(scope="module")
def game(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("fuzz")
    (folder / "opening.jsonl").write_text(lines_of(*OPENING))
    assert cli("replay", folder / "opening.jsonl", "--journal", folder / "game.db")[0] == 0
    return folder / "game.db"


def commands_in(journal: Path) -> int:
    """The state is the journal folded, so no new batch means no change."""
    return Journal(journal, readonly=True).count()


# 1,000 `do` arguments
@pytest.mark.slow
@settings(max_examples=500 * SCALE, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=do_texts)
def test_do_answers_every_argument_in_one_line_and_refusals_change_nothing(game, text):
    before = commands_in(game)
    code, out, err = cli("do", "--journal", game, "--", text)
    one_line(err)
    assert code in (0, 1, 2), (code, err)
    refused = code == 2 or out.startswith("rejected")
    assert refused or out.startswith(("ok", "invalid")), out
    if refused:
        assert commands_in(game) == before


# 600 `replay` scripts
@settings(max_examples=300 * SCALE, deadline=None, suppress_health_check=list(HealthCheck))
@given(lines=st.lists(do_texts | st.just("# a comment") | st.just(""), min_size=1, max_size=6))
def test_replay_answers_every_script_and_a_malformed_one_runs_nothing(tmp_path_factory, lines):
    folder = tmp_path_factory.mktemp("replay")
    script = folder / "s.jsonl"
    script.write_text(lines_of(*OPENING, *(line.replace("\n", " ") for line in lines)),
                      encoding="utf-8", errors="surrogatepass")
    code, out, err = cli("replay", script, "--json", "--journal", folder / "j.db")
    one_line(err)
    assert code in (0, 2), (code, err)
    if code == 2:            # FILE:LINE: what is wrong, before anything ran
        assert err.startswith(f"companion: {script}") and not out and not (folder / "j.db").exists()
    else:
        assert {entry["status"] for entry in json.loads(out)["log"]} <= {"ok", "invalid", "rejected"}


# 400 `status` calls: damaged event files (250) and journal files of random bytes (150)
EVENT_EDITS = ["[1, 2]", "{}", "[[players]]", "[event]", "[rules]", "[players]", "no = 0", "no = 99999999999999999999",
               "card = []", "card = [1, 1, 1, 1, 1, 1, 1, 1, 1]", 'name = "\\ud800"', "turns = -1", "turns = 100",
               "journal = 3", 'journal = "/dev/zero"', "version = 2", "[cards]\nmarginal = nan", "[camera]\nroi = [1]",
               'account = "AB"', "reveal_accounts = 1", "reveal_accounts = true", "x = \"\\u0000\"", "=", "nan",
               'name = "Aki\\u001b[2J"', 'name = "two\\nlines"', 'event = "x\\ty"']


@pytest.fixture(scope="module")
def event(game) -> str:
    cli("init", "--out", game.parent / "event.toml", "--players", 6, "--seed", 3, "--force")
    text = (game.parent / "event.toml").read_text()
    return text.replace('journal = "night-1.db"', f'journal = "{game.name}"')


@settings(max_examples=250 * SCALE, deadline=None, suppress_health_check=list(HealthCheck))
@given(edits=st.lists(st.tuples(st.integers(0, 200), st.sampled_from(EVENT_EDITS), st.integers(0, 2)), min_size=1, max_size=3),
       public=st.booleans())
def test_status_answers_every_damaged_event_file_in_one_line(game, event, edits, public):
    code, _, err = cli("status", "--event", damaged(game, event, edits), *(["--public"] if public else []))
    one_line(err)
    assert code in (0, 1, 2), (code, err)


@settings(max_examples=100 * SCALE, deadline=None, suppress_health_check=list(HealthCheck))
@given(edits=st.lists(st.tuples(st.integers(0, 200), st.sampled_from(EVENT_EDITS), st.integers(0, 2)), min_size=1, max_size=3))
def test_start_answers_every_damaged_event_file_in_one_line(game, event, edits, tmp_path_factory):
    journal = tmp_path_factory.mktemp("start") / "night.db"
    code, _, err = cli("start", "--event", damaged(game, event, edits), "--journal", journal)
    one_line(err)
    assert code in (0, 1, 2), (code, err)


def damaged(game: Path, event: str, edits: list) -> Path:
    lines = event.splitlines()
    for where, edit, how in edits:
        where %= len(lines)
        if how == 0:
            lines[where] = edit
        elif how == 1:
            lines.insert(where, edit)
        else:
            lines[where] = lines[where].split("=")[0] + "= " + edit.split("=")[-1]
    path = game.parent / "damaged.toml"
    path.write_text("\n".join(lines))
    return path


@settings(max_examples=150 * SCALE, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.binary(max_size=4096) | st.binary(max_size=64).map(lambda b: b"SQLite format 3\x00" + b))
def test_status_answers_a_journal_of_random_bytes_in_one_line(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("bytes") / "j.db"
    path.write_bytes(data)
    code, _, err = cli("status", "--journal", path)
    one_line(err)
    assert code in (1, 2) and err, (code, err)


@pytest.mark.parametrize("text", ["null", '"draw"', "42", "[]", "NaN", '{"do":["X"]}', "[" * 30_000 + "]" * 30_000,
                                  '{"do":"vote","serial":"\\ud800","turn":1,"marks":["X"]}',
                                  '{"do":"draw","balls":[' + "9" * 5000 + "]}"])
def test_bad_do_arguments_seen_in_the_issue_are_one_line_in_a_real_process(game, text):
    result = subprocess.run([sys.executable, "-m", "companion", "do", "--journal", str(game), text],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "Traceback" not in result.stderr, result.stderr


def test_replay_of_an_unhashable_command_names_file_and_line(tmp_path):
    script = tmp_path / "s.jsonl"
    script.write_text(lines_of(SETUP, '{"do":["X"]}'))
    result = subprocess.run([sys.executable, "-m", "companion", "replay", str(script)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and result.stderr.startswith(f"companion: {script}:2: unknown command ['X']")
    assert result.stderr.count("\n") == 1


def test_bounds_of_a_command_are_named():
    with pytest.raises(c.Malformed, match="out of range"):
        c.parse({"do": "cash", "player": 1, "amount": 10**30})
    with pytest.raises(c.Malformed, match="too long"):
        c.parse({"do": "vote", "serial": "V" * 5000, "turn": 1, "marks": []})
    with pytest.raises(c.Malformed, match="not a number"):
        c.parse({"do": "hold", "card": TEMPLATES[0], "reason": "r", "scores": {"mark": {"X": float("nan")}}})
    with pytest.raises(c.Malformed, match="nested deeper"):
        c.parse({"do": "hold", "card": TEMPLATES[0], "reason": "r", "scores": {"a": {"b": {"c": {"d": {"e": {"f": 1}}}}}}})


@pytest.mark.parametrize("where,text", [("name", "Aki\x1b[2J"), ("name", "two\nlines"), ("reason", "faint\r"),
                                        ("event", "night\x00")])
def test_a_control_character_in_any_text_is_refused_by_name(where, text):
    """A newline or a terminal's escape in a name or a reason would be obeyed by the console's terminal or
    the projector's: no text a command holds needs one."""
    command = {**SETUP, "players": [{**PLAYERS[0], "name": text}, *PLAYERS[1:]]} if where == "name" else \
        {**SETUP, "event": text} if where == "event" else \
        {"do": "hold", "card": TEMPLATES[0], "reason": text, "scores": {"mark": {"X": 0.1}}}
    with pytest.raises(c.Malformed, match="holds the control character") as refused:
        c.parse(command)
    assert "\n" not in str(refused.value) and "\x1b" not in str(refused.value)
    assert c.parse({**SETUP, "players": [{**PLAYERS[0], "name": "秋山\u3000花子 🎲"}, *PLAYERS[1:]]})   # wide, ideographic space
