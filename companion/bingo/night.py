"""Plunder Bingo's night report (`companion report`): the ranking with R2, each turn's draw, votes
and valid numbers, the boards announced by letter, how many robberies each turn carried out, and
the final board when the event reveals accounts; the staff report adds who owns which letter,
every robbery and every held card with its ruling."""
from __future__ import annotations

from ..core.report import (PUBLIC, STAFF, Chart, Moment, NightReport, Report, Section, Table, Words,
                           events_of, held_section, last_each)
from .events import FinalEnded, TurnEnded

FINAL = "final"
ENDS = {"turn_over": lambda view: view["turn"], "counting": lambda view: FINAL}   # a turn's end, the final's
YES, NO = "○", "—"


def unfinished(view: dict) -> str | None:
    return None if view["phase"] == "finished" else f"the game is not finished (turn {view['turn']}, {view['phase']})"


def turn_label(turn) -> str:
    return "最終 final" if turn == FINAL else str(turn)


def _ends(moments: list[Moment]) -> dict:
    return last_each(moments, lambda view: ENDS[view["phase"]](view) if view["phase"] in ENDS else None)


def _turn_row(turn, view: dict) -> tuple:
    tally = view["tally"] if turn != FINAL else None
    if not tally or not tally["options"]:
        return (turn_label(turn), "—" if turn == FINAL else "抽選なし no draw", "—", "—", "—", view["robberies"])
    draw = "  ".join(f"{letter} {ball}" for letter, ball in tally["options"].items())
    votes = "  ".join(f"{letter} {tally['votes'][letter]}" for letter in tally["options"])
    valid = "不成立 void (no quorum)" if tally["void"] else " ".join(map(str, tally["valid"]))
    return (turn_label(turn), draw, votes, tally["invalid"], valid, view["robberies"])


def _turns(ends: dict) -> Section:
    table = Table(Words("各ターンの抽選・投票・有効数字・強奪", "Each turn: draw, votes, valid number, robberies"),
                  (Words("ターン", "turn"), Words("抽選", "draw"), Words("得票", "votes"), Words("無効票", "invalid"),
                   Words("有効数字", "valid number"), Words("強奪件数", "robberies")),
                  tuple(_turn_row(turn, view) for turn, view in ends.items()),
                  "強奪件数はそのターンの終わりに実行された強奪の数 / robberies: how many the turn's end carried out")
    robberies = Chart(Words("ターンごとの強奪件数", "Robberies per turn"), tuple(turn_label(t) for t in ends),
                      {"": tuple(view["robberies"] for view in ends.values())}, kind="bar", y_label="")
    return Section(Words("ターンの記録", "The turns"), (table, robberies))


def _boards(ends: dict, finished: dict) -> Section | None:
    """Each board announced (R13, D16) as it stood at each turn's end, and the final one when revealed."""
    points = {turn_label(turn): view["accounts"] for turn, view in ends.items()}
    if finished["accounts"]:
        points["結果 end"] = finished["accounts"]
    letters = sorted({row["account"] for board in points.values() for row in board})
    if not letters:
        return None
    by_point = [{row["account"]: row["balance"] for row in board} for board in points.values()]
    chart = Chart(Words("口座残高の推移（口座記号別）", "Account balances by letter over the turns"), tuple(points),
                  {letter: tuple(board.get(letter) for board in by_point) for letter in letters},
                  x_label=Words("各ターン開始時の発表", "as announced at each turn's start"))
    blocks = [chart]
    if finished["accounts"]:
        blocks.append(Table(Words("最終口座残高", "Final account board"), (Words("口座", "account"), Words("残高 L$", "balance L$")),
                            tuple((row["account"], row["balance"]) for row in finished["accounts"])))
    return Section(Words("口座残高", "Account balances"), tuple(blocks))


def _ranking(finished: dict) -> Section:
    ranking = finished["ranking"]
    beats = [row["beats_secretariat"] for row in ranking]   # R2
    secret = not finished["accounts"]
    note = ("最終所持金は1万L$チップ単位（切り捨て）：口座記号は秘密のまま / final money in whole 10,000 L$ chips, "
            "rounded down: account letters stay secret (R13)" if secret else "")
    table = Table(Words("順位", "Ranking"),
                  (Words("順位", "rank"), Words("名前", "name"), Words("最終所持金 L$", "final money L$"),
                   Words("事務局に勝利", "beat the secretariat")),
                  tuple((row["rank"], row["name"], row["final"], YES if beat else NO) for row, beat in zip(ranking, beats)),
                  f"{sum(beats)} / {len(ranking)} 人が事務局に勝利（最終所持金 0 L$ 以上） / "
                  f"{sum(beats)} of {len(ranking)} beat the secretariat (final money of 0 or more, R2)"
                  + (f"; {note}" if note else ""))
    return Section(Words("結果", "Results"), (table,))


def _owners(players: list[dict]) -> Section:
    rows = tuple((p["no"], p["name"], p["account"], p["balance"], len(p["lines"]), p.get("final", "—"))
                 for p in players)
    return Section(Words("口座の持ち主", "Who owns which letter"), (Table(
        Words("プレイヤーと口座", "Players and accounts"),
        (Words("番号", "no."), Words("名前", "name"), Words("口座", "account"), Words("最終残高 L$", "account L$"),
         Words("ライン数", "lines"), Words("最終所持金 L$", "final money L$")), rows),))


def _robberies(moments: list[Moment], names: dict) -> Section:
    ended = [(ev.turn, ev.transfers) for _, ev in events_of(moments, TurnEnded)]
    ended += [(FINAL, ev.transfers) for _, ev in events_of(moments, FinalEnded)]
    rows = tuple((turn_label(turn), t["serial"], names[t["robber"]], names[t["victim"]], t["ordinal"], t["amount"])
                 for turn, transfers in ended for t in transfers)
    return Section(Words("強奪の記録", "Every robbery"), (Table(
        Words("強奪", "Robberies"),
        (Words("ターン", "turn"), Words("カード", "card"), Words("強奪者", "robber"), Words("被害者", "victim"),
         Words("順番", "ordinal"), Words("金額 L$", "amount L$")), rows),))


def build(moments: list[Moment], staff: bool) -> Report:
    finished = moments[-1].view
    ends = _ends(moments)
    sections = [_ranking(finished), _turns(ends), _boards(ends, finished)]
    if staff:
        players = moments[-1].staff["players"]
        names = {p["no"]: f"{p['no']} {p['name']}" for p in players}
        sections += [_owners(players), _robberies(moments, names),
                     held_section(moments, lambda view: turn_label(view["turn"]))]
    return Report(Words("強奪ビンゴ", "Plunder Bingo"), staff, tuple(s for s in sections if s is not None))


REPORT = NightReport(unfinished, build)
