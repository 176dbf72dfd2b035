"""Plunder Bingo's forms: its commands typed in (tui/forms.py's CommandForm, with its table)."""
from __future__ import annotations

from ..forms import CARD_SERIAL, FORMS, PLAYER, SERIAL, CommandForm, Field

BINGO_FORMS = {
    "draw": ("Draw: the balls as drawn, X Y Z (one number: just that ball)",
             [Field("balls", "Balls, e.g. 17 4 22", "ints")]),
    "vote": ("Vote card", [SERIAL, Field("turn", "Turn printed on the card", "int"),
                           Field("marks", "Marks: X, Y or Z (empty: blank, XY: two marks)", "marks")]),
    "rob": ("Robbery card", [SERIAL, Field("robber", "Robber player no.", "int"),
                             Field("victim", "Victim player no.", "int"),
                             Field("ordinal", "Line ordinal (1-8)", "int")]),
    "buy": ("Sell a special card", [PLAYER, Field("item", "Item: inout (one IN/OUT card), change or exclusion")]),
    "inout": ("IN/OUT card", [PLAYER, Field("dir", "Direction marked on the card: in or out"), Field("ball", "Ball", "int"),
                              CARD_SERIAL]),
    "change": ("Change card", [PLAYER, Field("cell", "Cell (1-9, row by row)", "int"),
                               Field("number", "New number", "int"), CARD_SERIAL]),
    "exclude": ("Exclusion card", [PLAYER, Field("ball", "Ball", "int"), CARD_SERIAL]),
    "order_lines": ("Order of lines formed together", [PLAYER,
                    Field("lines", "Lines, first first: row1 row2 row3 col1 col2 col3 diag1 diag2", "words")]),
    "cash": ("Cash count", [PLAYER, Field("amount", "Cash in L$", "int")]),
    "tally": ("Typed tally, the scanner down: player and choice, e.g. 1x 2y 3z 4- (- spoilt; spaces optional)",
              [Field("votes", "Votes", "tally")]),
}


class BingoForm(CommandForm):
    TABLE = FORMS | BINGO_FORMS
