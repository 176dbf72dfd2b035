"""The night report's data (companion/core/report.py and each game's night.py), without drawing it:
what each game's report holds, that the public one is made of public views only, and the refusals."""
import json
from pathlib import Path

import pytest

from companion.bingo.demo import demo_script
from companion.bingo.events import TurnEnded
from companion.core.report import Chart, NotFinished, Table, moments, night
from companion.core.journal import Journal
from companion.core.session import Session
from journal_games import run

ROOT = Path(__file__).resolve().parents[2]


def journal_of(lines, strict: bool = True) -> Journal:
    """The lines through a session; the shipped examples show refusals too (not strict)."""
    session = Session(Journal())
    for line in lines:
        assert session.submit(line).status != "rejected" or not strict, line
    return session.journal


def script(name: str) -> list[dict]:
    text = (ROOT / "examples" / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in text if line.strip() and not line.startswith("#")]


def tables(report) -> dict[str, Table]:
    return {block.title.en: block for section in report.sections for block in section.blocks if isinstance(block, Table)}


def test_R13_the_public_view_counts_the_robberies_each_turns_end_carried_out():
    journal = journal_of(demo_script(6, seed=3))
    _, found = moments(journal, staff=True)
    ended = [(m.view, event) for m in found for event in m.events if isinstance(event, TurnEnded)]
    assert sum(len(event.transfers) for _, event in ended) > 3, "the demo must rob, or this proves nothing"
    assert all(view["robberies"] == len(event.transfers) for view, event in ended)


def test_the_bingo_report_has_each_turn_the_ranking_with_R2_and_the_boards_by_letter():
    lines = demo_script(6, seed=3)
    report = night(journal_of(lines), staff=False, event="Test night")
    found = tables(report)
    turns = found["Each turn: draw, votes, valid number, robberies"].rows
    assert [row[0] for row in turns] == [str(n) for n in range(1, 16)] + ["最終 final"]
    ranking = found["Ranking"].rows
    assert len(ranking) == 6 and all(row[3] in ("○", "—") for row in ranking)
    assert all((row[3] == "○") == (row[2] >= 0) for row in ranking)
    chart = next(b for s in report.sections for b in s.blocks if isinstance(b, Chart) and b.kind == "line")
    assert sorted(chart.series) == list("ABCDEF") and len(chart.x) == 16
    assert report.event == "Test night" and not report.staff


def test_the_public_report_is_made_of_the_public_views_alone(capsys, tmp_path):
    """The public report built from `journal export --public` (what the audience saw) is the one
    `companion report` builds from the journal."""
    from companion.bingo.night import build
    from companion.core.report import Moment
    path = tmp_path / "j.db"
    session = Session(Journal(path))
    for line in demo_script(6, seed=4):
        session.submit(line)
    session.journal.close()
    code, out, _ = run("journal", "export", path, "--public")
    exported = [Moment(n, json.loads(line)["view"]) for n, line in enumerate(out.splitlines())]
    assert build(exported, staff=False) == night(Journal(path, readonly=True), staff=False)


def test_the_staff_report_adds_owners_every_robbery_and_held_cards_with_rulings():
    lines = demo_script(6, seed=3)
    first_vote = next(i for i, line in enumerate(lines) if line["do"] == "vote")
    vote = lines[first_vote]              # held for review, then counted as read: the game goes on the same
    held = {"do": "hold", "card": vote, "reason": "a faint mark", "crop": f"crops/{vote['serial']}.png"}
    lines[first_vote:first_vote + 1] = [held, {"do": "rule", "serial": vote["serial"], "card": vote}]
    report = night(journal_of(lines), staff=True)
    found = tables(report)
    owners = {row[1]: row[2] for row in found["Players and accounts"].rows}
    assert sorted(owners.values()) == list("ABCDEF")
    assert found["Robberies"].rows and all(row[1].startswith("R") for row in found["Robberies"].rows)
    assert found["Cards held for review, and the rulings"].rows == (("1", vote["serial"], "vote", "a faint mark",
                                                                    "counted as read"),)
    assert any(getattr(b, "path", None) == f"crops/{vote['serial']}.png" for s in report.sections for b in s.blocks)


def test_the_voters_report_has_each_games_numbers_winner_or_dobon_and_the_ledger():
    report = night(journal_of(script("voters-night.jsonl"), strict=False), staff=False)
    games = tables(report)["Each game"].rows
    assert [row[0] for row in games] == list(range(1, 8))
    assert games[0][4] == "1: 1  2: 2  3: 1  4: 0  5: 3" and "4 Daiki" in games[0][6] and "0" in games[0][6]
    assert "DOBON" in games[2][6] and "no game" in games[5][6] and "not opened" in games[5][4]
    assert tables(report)["Ledger"].rows[1] == (2, "Ben", -3800)


def test_the_bluff_report_has_periods_verdicts_payouts_and_for_staff_every_declaration():
    public, staff = (night(journal_of(script("bluff-night.jsonl"), strict=False), staff=s) for s in (False, True))
    periods = tables(public)["Each period's judgement"].rows
    assert periods[2] == (3, "4 Daiki", "8 × 3", 9, "成功・勝利 held: wins")
    assert tables(public)["Payouts"].rows[3][-1] == 400_000_000
    assert "Every declaration made" not in tables(public)
    made = tables(staff)["Every declaration made"].rows
    assert len(made) > len(periods) and any("cannot be declared" in row[4] for row in made)


def jail_game() -> list[dict]:
    """Three quick rounds (tests/companion/test_jail.py's J6 game): player 1 scores 6 each round."""
    six_b, six_e, mixed = list("AABBBBBBCC"), list("DDEEEEEEFF"), list("GHGHGHGHGH")
    lines = [{"do": "setup", "game": "jail", "event": "Jail night", "deck": {kind: 30 for kind in "ABCDEFGH"},
              "players": [{"no": 1, "name": "Aki"}, {"no": 2, "name": "Ben"}]},
             {"do": "layout", "rows": [six_b, six_e, mixed]}, {"do": "deal", "hands": {"1": list("BBE"), "2": list("CDEF")}},
             {"do": "take", "player": 1, "row": 3, "end": "left"}, {"do": "play", "player": 1, "kind": "B", "count": 1},
             {"do": "refill", "player": 1, "kind": "A"}, {"do": "take", "player": 2, "row": 3, "end": "left"},
             {"do": "refill", "player": 2, "kind": "A"}]
    for round_no in (1, 2, 3):
        lines += [{"do": "take", "player": 1, "row": 1, "end": "left"}, {"do": "refill", "player": 1, "kind": "A"},
                  {"do": "take", "player": 2, "row": 2, "end": "left"}]
        if round_no < 3:
            lines.append({"do": "layout", "rows": [six_b, six_e, mixed]})
    return lines


def test_the_jail_report_has_rounds_and_scores():
    report = night(journal_of(jail_game()), staff=False)
    assert tables(report)["Scores"].rows == ((1, "Aki", "6 + 6 + 6", 18, "勝者 winner"), (2, "Ben", "0 + 0 + 0", 0, "—"))
    assert [row[:2] for row in tables(report)["Each round"].rows] == [(1, "2 Ben"), (2, "2 Ben"), (3, "2 Ben")]
    assert "Hands at the end" not in tables(report)


@pytest.mark.parametrize("lines, why", [
    (demo_script(6, seed=3)[:40], "the game is not finished (turn"),
    (script("voters-night.jsonl")[:4], "game 1 is still open (betting)"),
    (script("voters-night.jsonl")[:1], "no game has been played yet"),
    (script("bluff-night.jsonl")[:8], "the game is not finished (period"),
    (jail_game()[:-1], "the game is not finished (round 3"),
])
def test_no_report_before_the_finish(lines, why):
    with pytest.raises(NotFinished) as refusal:
        night(journal_of(lines, strict=False), staff=False)
    assert str(refusal.value).startswith(why)
