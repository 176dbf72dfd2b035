"""Voters' printed card (V1), declared in its GameRules (layouts="vision.layouts.voters:CARDS")."""
from __future__ import annotations

import vision.layouts as L


def number() -> L.Layout:
    """Voters' card (V1): one number 0-9 for one game; the card's turn is the game's number."""
    fields = (L.Field("number", "Number", L.bubble_grid(range(10), 18.0, 50.0, 15.0, 16.0, 5, 6.0)),)
    items = L.common_items("数字カード", "NUMBER CARD", "数字をひとつ ○ · Circle one number")
    items += [L.Text(13.5, 27.0, 4.4, "第 {turn} ゲーム · Game {turn}"),
              L.Text(13.5, 33.5, 3.6, "プレイヤー {owner} · Player {owner}"), *L.bubble_items(fields)]
    return L.Layout("number", "Number card", fields, tuple(items))


CARDS = (L.Kind(number(), "N", "{code}{owner:02d}{number:02d}"),)     # N<owner><game>
