"""The jail card game's night report (`companion report`): each round's takings and scores (J5) and
the totals with the winner (J6); the staff report adds the hands as they ended."""
from __future__ import annotations

from ..core.report import Chart, Moment, NightReport, Report, Section, Table, Words
from .report import cards


def unfinished(view: dict) -> str | None:
    return None if view["phase"] == "finished" else f"the game is not finished (round {view['round']}, {view['phase']})"


def _rounds(view: dict, names: dict) -> Table:
    players = [p["no"] for p in view["players"]]
    rows = tuple((r["no"], names[r["ended_by"]],
                  *(f"{r['scores'].get(str(no), 0)}  ({cards(r['collected'].get(str(no), {}))})" for no in players))
                 for r in view["rounds"])
    return Table(Words("各ラウンド", "Each round"),
                 (Words("ラウンド", "round"), Words("終わらせた人", "ended by"),
                  *(Words(f"{no} の得点", f"{no}: score (cards taken)") for no in players)), rows,
                 "得点 = 取った枚数 × 種類数 · score = cards taken × kinds taken (J5)")


def _scores(view: dict) -> Table:
    winners = set(view["winner"] or ())
    rows = tuple((p["no"], p["name"], " + ".join(map(str, p["scores"])) or "0", p["total"],
                  "勝者 winner" if p["no"] in winners else "—") for p in view["players"])
    return Table(Words("得点", "Scores"),
                 (Words("番号", "no."), Words("名前", "name"), Words("ラウンドごと", "by round"), Words("合計", "total"),
                  Words("勝者", "winner")), rows)


def _chart(view: dict) -> Chart:
    running = {str(p["no"]): tuple(sum(p["scores"][:n]) for n in range(1, len(p["scores"]) + 1)) for p in view["players"]}
    return Chart(Words("合計得点の推移（プレイヤー番号別）", "Running totals by player number"),
                 tuple(str(r["no"]) for r in view["rounds"]), running, x_label=Words("ラウンド", "round"), y_label="")


def _hands(view: dict) -> Table:
    return Table(Words("終了時の手札", "Hands at the end"), (Words("番号", "no."), Words("名前", "name"), Words("手札", "hand")),
                 tuple((p["no"], p["name"], cards(p["hand"])) for p in view["players"]))


def build(moments: list[Moment], staff: bool) -> Report:
    view = moments[-1].view
    names = {p["no"]: f"{p['no']} {p['name']}" for p in view["players"]}
    sections = [Section(Words("ラウンド", "The rounds"), (_rounds(view, names),)),
                Section(Words("結果", "Results"), (_scores(view), _chart(view)))]
    if staff:
        sections.append(Section(Words("手札", "Hands"), (_hands(moments[-1].staff),)))
    return Report(Words("ならず者の脱獄", "The jail card game"), staff, tuple(sections))


REPORT = NightReport(unfinished, build)
