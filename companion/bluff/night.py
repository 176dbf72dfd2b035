"""Auction Bluff's night report (`companion report`): each period's judged declaration, verdict and
true count, and every player's payout (AB6), all public once the game is over (D8); the staff
report adds every declaration made, the dice transfers and the held cards with their rulings."""
from __future__ import annotations

from ..core.report import Moment, NightReport, Report, Section, Table, Words, held_section, last_each

VERDICT = {"won": "成功・勝利 held: wins", "eliminated": "失敗・脱落 failed: out",
           "no_declaration": "宣言なし no declaration: the game ends (AB4)"}


def unfinished(view: dict) -> str | None:
    return None if view["phase"] == "finished" else f"the game is not finished (period {view['period']}, {view['phase']})"


def _declaration(d: dict) -> str:
    return f"{d['count']} × {d['face']}"


def _periods(view: dict, names: dict) -> Table:
    rows = tuple((p["no"], names[p["selected"]["player"]] if p["selected"] else "—",
                  _declaration(p["selected"]) if p["selected"] else "—",
                  "—" if p["true_count"] is None else p["true_count"], VERDICT[p["result"]]) for p in view["periods"])
    return Table(Words("各期間の判定", "Each period's judgement"),
                 (Words("期間", "period"), Words("宣言者", "declarer"), Words("宣言（個数 × 目）", "declaration (count × face)"),
                  Words("実際の個数", "true count"), Words("判定", "verdict")), rows)


def _payouts(view: dict) -> Table:
    rows = tuple((p["no"], p["name"], p["gem"], ", ".join(f"{gem} {n}" for gem, n in p["dice"].items()) or "—",
                  "脱落 out" if p["eliminated"] else "—", p["result"]) for p in view["players"])
    winner = {p["no"]: p["name"] for p in view["players"]}.get(view["winner"])
    return Table(Words("配当", "Payouts"),
                 (Words("番号", "no."), Words("名前", "name"), Words("宝石", "gem"), Words("持っているダイス", "dice held"),
                  Words("脱落", "out"), Words("結果（円）", "result (yen)")), rows,
                 f"勝者 winner: {view['winner']} {winner}" if winner else "勝者なし no winner (D4)")


def _declarations(moments: list[Moment], names: dict) -> Table:
    """Each period's declarations as the dealer last saw them before its judgement."""
    periods = last_each(moments, lambda view: view["current"]["no"] if view["current"] else None, staff=True)
    rows = tuple((no, names[d["player"]], _declaration(d), d["serial"] or "—", d["reason"] or "有効 valid")
                 for no, view in periods.items() for d in view["current"]["declarations"])
    return Table(Words("すべての宣言", "Every declaration made"),
                 (Words("期間", "period"), Words("宣言者", "declarer"), Words("宣言", "declaration"),
                  Words("カード", "card"), Words("有効・無効", "valid or why not")), rows)


def _transfers(view: dict, names: dict) -> Table:
    rows = tuple((t["period"], names[t["from"]], names[t["to"]], t["gem"], t["count"]) for t in view["transfers"])
    return Table(Words("ダイスの交換・譲渡", "Dice transfers (AB5)"),
                 (Words("期間", "period"), Words("渡した人", "from"), Words("受けた人", "to"), Words("宝石", "gem"),
                  Words("個数", "dice")), rows)


def build(moments: list[Moment], staff: bool) -> Report:
    view = moments[-1].view
    names = {p["no"]: f"{p['no']} {p['name']}" for p in view["players"]}
    sections = [Section(Words("期間", "The periods"), (_periods(view, names),)),
                Section(Words("結果", "Results"), (_payouts(view),))]
    if staff:
        sections += [Section(Words("宣言と交換", "Declarations and transfers"),
                             (_declarations(moments, names), _transfers(moments[-1].staff, names))),
                     held_section(moments, lambda v: f"period {v['period']}")]
    return Report(Words("オークションブラフ", "Auction Bluff"), staff, tuple(s for s in sections if s is not None))


REPORT = NightReport(unfinished, build)
