"""Secrecy to the end (R13): no finished public view lets a name be tied to an account letter.
Cash is counted in 10,000 L$ chips, so exact final money less a letter's balance is a whole number
of chips only for that player's own letter: the attack below tries exactly that on whole games."""
import json
from pathlib import Path

import pytest

from companion.core import event_file
from companion.bingo.demo import demo_script
from companion.cli import main
from companion.core.journal import Journal
from companion.core.session import Session
from companion.bingo.views import CHIP

DEMO = Path(__file__).resolve().parents[2] / "examples" / "demo-game.jsonl"


def run(capsys, *argv) -> str:
    assert main([str(a) for a in argv]) == 0
    return capsys.readouterr().out


def exported_views(capsys, tmp_path, script: Path) -> list[dict]:
    run(capsys, "replay", script, "--journal", tmp_path / "j.db")
    return [json.loads(line)["view"] for line in run(capsys, "journal", "export", tmp_path / "j.db", "--public").splitlines()]


def letters_each_name_fits(views: list[dict]) -> dict[str, set[str]]:
    """For each name in the ranking: the letters one of whose shown balances its final money fits."""
    shown: dict[str, set[int]] = {}
    for view in views:
        for row in view["accounts"]:
            shown.setdefault(row["account"], set()).add(row["balance"])
    ranking = views[-1]["ranking"]
    return {row["name"]: {letter for letter, balances in shown.items()
                          if any((row["final"] - balance) % CHIP == 0 for balance in balances)} for row in ranking}


def write(tmp_path, lines: list[dict], name: str) -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


@pytest.mark.parametrize("game", ["shipped demo", "12 players"])
def test_R13_the_chip_attack_on_a_whole_public_export_tells_no_name_from_another(capsys, tmp_path, game):
    script = DEMO if game == "shipped demo" else write(tmp_path, demo_script(12, seed=5), "twelve.jsonl")
    views = exported_views(capsys, tmp_path, script)
    assert views[-1]["phase"] == "finished"
    assert any(row["balance"] % CHIP for view in views for row in view["accounts"]), \
        "the game must show a balance that is not a whole number of chips, or the attack proves nothing"
    fits = letters_each_name_fits(views)
    assert len({frozenset(letters) for letters in fits.values()}) == 1, fits     # every name fits the same letters


def test_R13_the_finished_public_view_has_no_board_of_letters(capsys):
    view = json.loads(run(capsys, "replay", DEMO, "--public", "--json"))
    assert view["phase"] == "finished" and view["ranking"] and view["accounts"] == []
    assert all(row["final"] % CHIP == 0 for row in view["ranking"])
    text = run(capsys, "replay", DEMO, "--public")
    assert "Accounts:" not in text and "whole 10,000 L$ chips" in text


def test_the_event_file_may_reveal_accounts_at_the_end(capsys, tmp_path):
    lines = [json.loads(line) for line in DEMO.read_text().splitlines()]
    staff = json.loads(run(capsys, "replay", DEMO, "--json"))
    lines[0]["reveal_accounts"] = True
    view = json.loads(run(capsys, "replay", write(tmp_path, lines, "reveal.jsonl"), "--public", "--json"))
    assert {row["name"]: row["final"] for row in view["ranking"]} == {p["name"]: p["final"] for p in staff["players"]}
    assert {row["account"]: row["balance"] for row in view["accounts"]} == {p["account"]: p["balance"]
                                                                           for p in staff["players"]}
    run(capsys, "init", "--out", tmp_path / "e.toml", "--players", 6, "--seed", 4)
    toml = tmp_path / "e.toml"
    toml.write_text(toml.read_text().replace("[rules]", "reveal_accounts = true\n\n[rules]", 1))
    session = Session(Journal())
    assert session.submit(event_file.load(toml).setup_command()).status == "ok"
    assert session.state.reveal_accounts
