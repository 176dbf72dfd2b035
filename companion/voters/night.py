"""Voters' night report (`companion report`): each game's numbers, the winner or DOBON, and the
ledger (V8) after every game; the staff report adds the cards held for review and their rulings."""
from __future__ import annotations

from ..core.report import Chart, Moment, NightReport, Report, Section, Table, Words, held_section, last_each

OPEN = ("betting", "closed")


def unfinished(view: dict) -> str | None:
    if not view["games"]:
        return "no game has been played yet"
    if view["phase"] in OPEN:
        return f"game {view['games'][-1]['no']} is still open ({view['phase']})"
    return None


def _numbers(game: dict) -> str:
    if "bets" not in game:       # V6: no game, the cards were never opened
        return "明かされず not opened: " + (", ".join(map(str, game["bettors"])) or "—")
    return "  ".join(f"{player}: {'×' if number is None else number}" for player, number in game["bets"].items()) or "—"


def _result(game: dict, names: dict) -> str:
    if game["result"] == "won":
        return f"{names[game['winner']]} の勝ち wins with {game['number']}"
    if game["result"] == "dobon":
        return f"ドボン DOBON: ディーラー dealer {names[game['winner']]}"
    return "ゲームなし no game: stakes returned (V6)"


def _games(view: dict, names: dict) -> Table:
    return Table(Words("各ゲーム", "Each game"),
                 (Words("ゲーム", "game"), Words("ディーラー", "dealer"), Words("賭け金", "stake"), Words("ポット", "pot"),
                  Words("数字（プレイヤー: 数字）", "numbers (player: number)"), Words("唯一の数字", "unique numbers"),
                  Words("結果", "result")),
                 tuple((g["no"], names[g["dealer"]], g["stake"], g["pot"], _numbers(g),
                        " ".join(map(str, g.get("unique", []))) or "—", _result(g, names)) for g in view["games"]),
                 "× 無効なカード · an invalid card (V7)")


def _ledger(view: dict) -> Table:
    return Table(Words("収支", "Ledger"), (Words("番号", "no."), Words("名前", "name"), Words("収支", "net")),
                 tuple((p["no"], p["name"], p["net"]) for p in view["players"]))


def _ledger_chart(moments: list[Moment]) -> Chart:
    settled = last_each(moments, lambda view: len(view["games"]) if view["phase"] not in OPEN and view["games"] else None)
    players = [p["no"] for p in moments[-1].view["players"]]
    nets = [{p["no"]: p["net"] for p in view["players"]} for view in settled.values()]
    return Chart(Words("ゲームごとの収支（プレイヤー番号別）", "The ledger after each game, by player number"),
                 tuple(map(str, settled)), {str(no): tuple(net.get(no) for net in nets) for no in players},
                 x_label=Words("ゲーム", "game"), y_label="")


def build(moments: list[Moment], staff: bool) -> Report:
    view = moments[-1].view
    names = {p["no"]: f"{p['no']} {p['name']}" for p in view["players"]}
    sections = [Section(Words("ゲーム", "The games"), (_games(view, names),)),
                Section(Words("収支", "The ledger"), (_ledger(view), _ledger_chart(moments)))]
    if staff:
        sections.append(held_section(moments, lambda v: f"game {len(v['games'])}"))
    return Report(Words("ボーター", "Voters"), staff, tuple(s for s in sections if s is not None))


REPORT = NightReport(unfinished, build)
