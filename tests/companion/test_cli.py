"""The CLI contracts: replay output, errors as one line with exit codes, journal, event file."""
import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

from companion.cli import main

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "examples" / "demo-game.jsonl"
PLAYER = {"no": 1, "name": "Akiyama", "account": "C", "card": [1, 2, 3, 4, 5, 6, 7, 8, 9]}
SETUP = {"do": "setup", "event": "Night 1", "players": [PLAYER, {**PLAYER, "no": 2, "name": "Baba", "account": "A"}]}


def run(capsys, *argv):
    code = main(list(map(str, argv)))
    out, err = capsys.readouterr()
    return code, out, err


def script(tmp_path, *lines, name="s.jsonl"):
    path = tmp_path / name
    path.write_text("".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines))
    return path


def test_replay_json_has_the_contract_fields(capsys):
    code, out, _ = run(capsys, "replay", DEMO, "--json")
    view = json.loads(out)
    assert code == 0 and {"turn", "phase", "balls", "tally", "players", "log"} <= set(view)
    assert set(view["balls"]) == {"machine", "drawn", "valid", "pool", "trash", "excluded"}
    assert set(view["tally"]) == {"options", "votes", "invalid", "void", "valid"}
    player = view["players"][0]
    assert {"no", "name", "account", "balance", "lines", "cash", "bonus", "penalty", "final", "rank",
            "beats_secretariat"} <= set(player)
    assert all(p["beats_secretariat"] == (p["final"] >= 0) for p in view["players"])     # R2
    assert set(player["lines"][0]) == {"line", "ordinal", "turn"} if player["lines"] else True
    assert {entry["status"] for entry in view["log"]} <= {"ok", "invalid", "rejected"}
    assert len(view["log"]) == sum(1 for line in DEMO.read_text().splitlines() if line.strip())


def test_replay_public_has_only_public_fields_and_no_secrets(capsys):
    code, out, _ = run(capsys, "replay", DEMO, "--public", "--json")
    view = json.loads(out)
    assert set(view) == {"turn", "phase", "balls", "tally", "accounts", "robberies", "ranking"}
    assert type(view["robberies"]) is int         # R13: only how many, never who robbed whom
    assert [a["account"] for a in view["accounts"]] == sorted(a["account"] for a in view["accounts"])
    assert all(set(row) == {"rank", "name", "final", "beats_secretariat"} for row in view["ranking"])
    assert [row["beats_secretariat"] for row in view["ranking"]] == [True] * 5 + [False]   # R2: Endo ends in debt
    accounts = json.dumps(view["accounts"]) + json.dumps(view["tally"]) + json.dumps(view["balls"])
    for name in ("Akiyama", "Baba", "robber", "victim", "serial"):
        assert name not in accounts


def test_invalid_card_is_logged_and_rejected_command_writes_nothing(tmp_path, capsys):
    path = script(tmp_path, SETUP, {"do": "begin_turn"}, {"do": "draw", "balls": [1, 2, 3]},
                  {"do": "draw", "balls": [4, 5, 6]}, {"do": "vote", "serial": "V1", "turn": 1, "marks": []})
    code, out, _ = run(capsys, "replay", path, "--json", "--journal", tmp_path / "j.db")
    log = json.loads(out)["log"]
    assert code == 0 and [e["status"] for e in log] == ["ok", "ok", "ok", "rejected", "invalid"]
    assert "blank" in log[4]["reason"] and "not now" in log[3]["reason"]
    code, out, _ = run(capsys, "journal", "show", tmp_path / "j.db")
    assert out.count("\n#") + 1 == 4          # the rejected draw left no trace


def test_strict_stops_at_the_first_rejection(tmp_path, capsys):
    path = script(tmp_path, SETUP, {"do": "draw", "balls": [1, 2, 3]}, {"do": "begin_turn"})
    code, _, err = run(capsys, "replay", path, "--strict")
    assert code == 1 and f"{path}:2: rejected: not now" in err


@pytest.mark.parametrize("line, message", [
    ("{not json", "not JSON"),
    ('{"do":"dance"}', "unknown command 'dance'"),
    ('{"do":"draw","balls":"1,2,3"}', "balls must be a list of whole numbers"),
    ('{"do":"vote","serial":"V1","turn":1,"marks":["W"]}', "marks value 'W' is not one of X, Y, Z"),
    ('{"do":"draw","balls":[1,2,3],"colour":"red"}', "unknown key 'colour'"),
    ('{"do":"hold","card":{"do":"vote","serial":"V1","turn":1,"marks":["X"]},"reason":"r","scores":{"mark":"high"}}',
     "hold: scores: 'mark' must map each bubble to a number"),
    ('{"do":"hold","card":{"do":"vote","serial":"V1","turn":1,"marks":["X"]},"reason":"r","findings":[{"code":"x"}]}',
     'hold: findings: each is {"code": a string, "message": a string}'),
    ('{"do":"cash","player":1}', "missing key 'amount'"),
])
def test_malformed_line_exits_2_naming_file_and_line(tmp_path, capsys, line, message):
    path = script(tmp_path, SETUP, {"do": "begin_turn"}, line)
    code, out, err = run(capsys, "replay", path, "--journal", tmp_path / "j.db")
    assert code == 2 and err.startswith(f"companion: {path}:3: ") and message in err and not out
    assert not (tmp_path / "j.db").exists()   # nothing ran


def test_first_line_must_be_setup(tmp_path, capsys):
    code, _, err = run(capsys, "replay", script(tmp_path, {"do": "begin_turn"}))
    assert code == 2 and ":1: the first command must be setup" in err


def test_replay_refuses_a_journal_that_holds_a_game(tmp_path, capsys):
    path = script(tmp_path, SETUP)
    assert run(capsys, "replay", path, "--journal", tmp_path / "j.db")[0] == 0
    code, _, err = run(capsys, "replay", path, "--journal", tmp_path / "j.db")
    assert code == 1 and "already holds a game" in err


def test_journal_export_public_has_no_names_or_robberies(tmp_path, capsys):
    run(capsys, "replay", DEMO, "--journal", tmp_path / "j.db")
    code, out, _ = run(capsys, "journal", "export", tmp_path / "j.db")
    kinds = {json.loads(line)["kind"] for line in out.splitlines()}
    assert code == 0 and {"GameSetUp", "VotingClosed", "RobberyFiled", "TurnEnded"} <= kinds
    code, out, _ = run(capsys, "journal", "export", tmp_path / "j.db", "--public")
    views = [json.loads(line)["view"] for line in out.splitlines()]
    assert code == 0 and views[-1]["phase"] == "finished"
    before_ranking = json.dumps([v for v in views if "ranking" not in v])
    for secret in ("Akiyama", "Baba", "robber", "victim", "card", "serial", "items"):
        assert f'"{secret}"' not in before_ranking       # a key or a name; "robberies" is only a count


def test_init_start_do_status(tmp_path, capsys):
    event = tmp_path / "event.toml"
    assert run(capsys, "init", "--out", event, "--players", 4, "--seed", 11)[0] == 0
    assert "seed 11" in event.read_text()
    code, _, err = run(capsys, "init", "--out", event)
    assert code == 1 and "exists" in err
    assert run(capsys, "start", "--event", event)[0] == 0
    assert (tmp_path / "night-1.db").exists()
    code, out, _ = run(capsys, "do", "--event", event, '{"do":"begin_turn"}', '{"do":"draw","balls":[1,2,99]}')
    assert code == 1 and out.splitlines() == ["rejected: command 2 of 2: there is no ball 99 (balls are 1-27); "
                                              "none of the 2 commands applied"]
    before = json.loads(run(capsys, "status", "--event", event, "--public", "--json")[1])["phase"]
    code, out, _ = run(capsys, "do", "--event", event, '{"do":"begin_turn"}')
    assert code == 0 and out == "ok\n" and before != "draw"
    code, out, _ = run(capsys, "status", "--event", event, "--public", "--json")
    assert json.loads(out)["phase"] == "draw" and "Player" not in out


NAMES = ["秋山 花子", "Bartholomew Fitzgerald-Smythe", "Zoë"]     # wide, long, and an accent


def test_display_width_counts_the_columns_a_terminal_draws():
    from companion.core.columns import display_width, table
    assert [display_width(text) for text in ("秋山", "ＡＢ", "Zoe\u0308", "a\u200db", "abc")] == [4, 4, 3, 2, 3]
    assert table([["1", "秋山", "x"], ["10", "Bo", "y"]], right=(0,)) == ["   1 秋山 x", "  10 Bo   y"]


@pytest.mark.parametrize("text,shown", [
    ("投票 V0101.jpg", "投票 V0101.jpg"),                                # wide text and spaces kept
    ("bad\udcff\nname\x1b[31m.png", "bad\\xff\\nname\\x1b[31m.png"),   # a byte no UTF-8, a newline, an escape
    ("tab\there\ud800", "tab\\there\\ud800"),                          # a lone surrogate of no byte
])
def test_anyones_text_is_shown_literally_on_one_line(text, shown):
    from companion.core.columns import literal
    assert literal(text) == shown and shown.encode("utf-8")


@pytest.mark.parametrize("game", ["bingo", "bluff", "voters", "jail"])
def test_status_tables_line_up_with_japanese_and_long_names(tmp_path, capsys, game):
    """The column after the name starts at the same screen column on every player's line."""
    from companion.core.columns import display_width
    event = tmp_path / "event.toml"
    run(capsys, "init", "--game", game, "--out", event, "--players", 4, "--seed", 1)
    text = event.read_text()
    for no, name in enumerate(NAMES, 1):
        text = text.replace(f'name = "Player {no}"', f'name = "{name}"')
    event.write_text(text)
    assert run(capsys, "start", "--event", event)[0] == 0
    for public in ([], ["--public"]):
        code, out, _ = run(capsys, "status", "--event", event, *public)
        rows = [line for line in out.splitlines() if any(name in line for name in [*NAMES, "Player 4"])]
        assert code == 0 and len(rows) == (4 if not public or game != "bingo" else 0), out   # bingo: a ranking at the end
        after_name = set()
        for row in rows:
            name = next(name for name in [*NAMES, "Player 4"] if name in row)
            end = row.index(name) + len(name)
            after_name.add(display_width(row[:end]) + len(row[end:]) - len(row[end:].lstrip(" ")))
        assert len(after_name) <= 1, out


def test_events_of_two_games_in_one_folder_keep_their_journals_apart(tmp_path, capsys):
    bingo, bluff = tmp_path / "event.toml", tmp_path / "bluff.toml"
    run(capsys, "init", "--out", bingo)
    run(capsys, "init", "--game", "bluff", "--out", bluff)
    assert run(capsys, "start", "--event", bingo)[0] == 0
    code, out, err = run(capsys, "start", "--event", bluff)
    assert code == 0, err
    assert sorted(path.name for path in tmp_path.glob("*.db")) == ["night-1-bluff.db", "night-1.db"]


def test_init_deals_the_same_cards_for_the_same_seed(tmp_path, capsys):
    run(capsys, "init", "--out", tmp_path / "a.toml", "--seed", 5)
    run(capsys, "init", "--out", tmp_path / "b.toml", "--seed", 5)
    cards = lambda p: [line for line in p.read_text().splitlines() if line.startswith(("card", "account"))]
    assert cards(tmp_path / "a.toml") == cards(tmp_path / "b.toml")


@pytest.mark.parametrize("edit, message", [
    (("turns = 15", "turns = 15\nturn_minutes = 5"), ":16: unknown key 'turn_minutes' in [rules]"),
    (('robbery_base = "snapshot"', 'robbery_base = "random"'), ":12: [rules] robbery_base must be one of"),
    (("version = 1", "version = 1\ncolour = 3"), ":3: unknown section or key 'colour'"),
    (("no = 2", "no = 2\nage = 30"), "unknown key 'age' in [players]"),
    (("no = 2", 'no = "two"'), "no must be int"),
    (("[rules]", "[rules"), "Expected ']'"),
    (("version = 1", 'version = 1\n[display]\nlanguage = "fr"'), ":4: [display] language must be one of 'ja+en', 'ja', 'en', not 'fr'"),
    (("version = 1", 'version = 1\n[display]\nfont = "big"'), ":4: unknown key 'font' in [display]"),
])
def test_event_file_errors_name_the_key_and_line(tmp_path, capsys, edit, message):
    event = tmp_path / "event.toml"
    run(capsys, "init", "--out", event, "--seed", 1)
    event.write_text(event.read_text().replace(*edit, 1))
    code, _, err = run(capsys, "start", "--event", event)
    assert code == 2 and message in err and str(event) in err


def test_errors_are_one_line_without_traceback(tmp_path):
    result = subprocess.run([sys.executable, "-m", "companion", "journal", "show", str(tmp_path / "none.db")],
                            capture_output=True, text=True)
    assert result.returncode == 1 and result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


def test_help_lists_every_command(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    for command in ("init", "start", "do", "status", "replay", "journal", "bench"):
        assert command in out


def every_parser(parser, path=("companion",)):
    yield " ".join(path), parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from every_parser(sub, (*path, name))


def test_every_command_s_help_renders():
    """`--help` of any command prints, never a traceback (a bare % in a help text broke `bench balls --help`)."""
    from companion.cli import build_parser
    shown = {name: parser.format_help() for name, parser in every_parser(build_parser())}
    assert "companion bench balls" in shown and "30%" in shown["companion bench balls"]


def test_a_file_name_of_bytes_no_utf8_is_printed_escaped_under_a_strict_locale(tmp_path):
    """A UTF-8 locale's stdout is strict (a Pi's is; this machine's C locale hides it): a name that is no UTF-8
    printed by any command is escaped, never a traceback after the work is done."""
    import os
    out = os.fsdecode(os.fsencode(tmp_path) + b"/night\xff.toml")
    done = subprocess.run([sys.executable, "-m", "companion", "init", "--out", out, "--players", "3"], capture_output=True,
                          text=True, env={**os.environ, "PYTHONIOENCODING": "utf-8:strict"}, timeout=60)
    assert done.returncode == 0 and "night\\udcff.toml: 3 players" in done.stdout, done.stderr
