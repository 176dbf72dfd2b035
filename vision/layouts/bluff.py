"""Auction Bluff's printed cards (AB7), declared in its GameRules (layouts="vision.layouts.bluff:CARDS")."""
from __future__ import annotations

import vision.layouts as L

FACES = ("1", "2", "3", "4", "5", "★")      # Auction Bluff's die (AB1)
DICE_ROWS = 5                               # AB7: a gem has 5 dice, so a player holds at most 5 of one gem


def die_field(row: int) -> str:
    return f"die{row}"


def bluff_dice() -> L.Layout:
    """Auction Bluff's dice-vote card (AB7): the faces of one gem's dice, one row of 6 bubbles per die;
    its turn is the period, its serial names the gem. Rows for dice not held stay blank."""
    fields = tuple(L.Field(die_field(row), f"Die {row}", tuple(L.bubble_row(FACES, 25.0, 11.0, 23.0 + 10.0 * row, 3.4)))
                   for row in range(1, DICE_ROWS + 1))
    items = L.common_items("ダイス投票カード", "DICE VOTE CARD", "ダイスごとに ひとつ ○ · One per die")
    items += [L.Text(13.5, 20.5, 3.4, "第 {turn} 期 · Period {turn}"), L.Text(13.5, 26.0, 3.0, "{gem} · Player {owner}")]
    items += [L.Text(5.0, 23.0 + 10.0 * row + 1.0, 2.6, f"ダイス{row}") for row in range(1, DICE_ROWS + 1)]
    return L.Layout("bluff_dice", "Dice vote card", fields, tuple(items + L.bubble_items(fields)))


def bluff_declare() -> L.Layout:
    """Auction Bluff's declaration card (AB7): a face 1-5 and a count as two digit rows, for one period."""
    x0, pitch, r = 17.5, 8.0, 3.4
    fields = (L.Field("face", "Face", tuple(L.bubble_row(range(1, 6), x0, pitch, 37.0, r))),
              L.Field("count_tens", "Count (tens)", tuple(L.bubble_row(range(4), x0, pitch, 54.0, r))),
              L.Field("count_units", "Count (units)", tuple(L.bubble_row(range(10), x0, pitch, 65.5, r))))
    items = L.common_items("宣言カード", "DECLARATION CARD", "各欄ひとつ ○ · Mark one in each row")
    items += [L.Text(13.5, 20.5, 3.4, "第 {turn} 期 · Period {turn}"), L.Text(13.5, 26.0, 3.0, "Player {owner}"),
              L.Text(5.0, 31.5, 3.0, "面 · Face (1-5)"), L.Text(5.0, 48.0, 3.0, "個数 · Count (1-30)"),
              L.Text(44.0, 48.0, 2.3, "例: 12個 → 1 と 2 · 12: 1 and 2", grey=L.PRINT_GREY),
              L.Text(5.0, 54.4, 2.4, "十の位"), L.Text(5.0, 56.6, 1.8, "tens"),
              L.Text(5.0, 65.9, 2.4, "一の位"), L.Text(5.0, 68.1, 1.8, "units"), *L.bubble_items(fields)]
    return L.Layout("bluff_declare", "Declaration card", fields, tuple(items))



# A dice-vote card's serial ends in the gem it is for (signed with it): D0102ruby.
CARDS = (L.Kind(bluff_dice(), "D", "{code}{owner:02d}{number:02d}{gem}"),
         L.Kind(bluff_declare(), "A", "{code}{owner:02d}{number:02d}"))


def dice_gem(serial_text: str) -> str:
    """The gem a dice-vote card's serial names."""
    return L.serial_tail("bluff_dice", serial_text)
