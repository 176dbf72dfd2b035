"""Plunder Bingo's journal drills (`companion bench journal --drills`, companion.core.games.Drills):
what two operators might send at once, after what, and a purchase killed mid-write and retried."""
from ..core.games import Drills

PLAYERS = [{"no": no, "name": f"P{no}", "account": "ABCDEF"[no - 1], "card": [no + i for i in range(9)]}
           for no in range(1, 7)]
SETUP = {"do": "setup", "event": "Drill night", "players": PLAYERS}
TURN = (SETUP, {"do": "begin_turn"})
DRAWN = (*TURN, {"do": "draw", "balls": [1, 2, 3]})

DRILLS = Drills(
    races=((TURN, ({"do": "draw", "balls": [1, 2, 3]}, {"do": "draw", "balls": [4, 5, 6]})),
           (DRAWN, ({"do": "undo"}, {"do": "undo"})),
           (DRAWN, ({"do": "close_voting"}, {"do": "close_voting"}))),
    prepared=DRAWN,
    killed=tuple({"do": "buy", "player": player["no"], "item": "inout"} for player in PLAYERS))
