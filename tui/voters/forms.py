"""Voters' forms: its commands typed in (tui/forms.py's CommandForm, with its table)."""
from __future__ import annotations

from ..forms import CARD_SERIAL, FORMS, PLAYER, CommandForm, Field

VOTERS_FORMS = {
    "deal": ("Deal a new game", [Field("dealer", "Dealer player no.", "int"),
                                 Field("stake", "Stake per player", "int")]),
    "bet": ("Bet: a player's number card", [PLAYER, Field("number", "Number 0-9 (blank: unreadable or miswritten)",
                                                          "int_or_none"), CARD_SERIAL]),
    "held_number": ("Held number card: the number it shows", [Field("number", "Number 0-9", "int")]),
}


class VotersForm(CommandForm):
    TABLE = FORMS | VOTERS_FORMS
