"""Plunder Bingo's forms: its commands typed in (tui/forms.py's CommandForm, with its table)."""
from __future__ import annotations

import re

from ..forms import CARD_SERIAL, FORMS, PLAYER, SERIAL, CommandForm, Field, FormError

TALLY_TOKEN = re.compile(r"(\d{1,2})([xyz-])", re.IGNORECASE)


def tally(text: str) -> list[tuple[int, list[str]]]:
    """A typed tally, `1x 2y 3z 4-` or `1x2y3z4-`: (player, marks) per vote, marks [] for spoilt.
    A token that is not a vote, or a player named twice, is a FormError naming it."""
    votes, seen = [], set()
    for chunk in text.split():
        at = 0
        while at < len(chunk):
            match = TALLY_TOKEN.match(chunk, at)
            if not match:
                raise FormError(f"{chunk[at:]!r} is not a vote: a player number then x, y, z or - (spoilt), e.g. 3x")
            player, choice = int(match.group(1)), match.group(2).upper()
            if player in seen:
                raise FormError(f"{match.group(0)!r}: player {player} is in this line twice")
            seen.add(player)
            votes.append((player, [] if choice == "-" else [choice]))
            at = match.end()
    if not votes:
        raise FormError("no votes typed: e.g. 1x 2y 3z 4-")
    return votes


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
              [Field("votes", "Votes", parse=tally)]),
}


class BingoForm(CommandForm):
    TABLE = FORMS | BINGO_FORMS
