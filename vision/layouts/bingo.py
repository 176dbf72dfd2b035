"""Plunder Bingo's printed cards (R…): vote, robbery, the specials (IN/OUT, change, exclusion) and
each player's bingo card; declared in its GameRules (layouts="vision.layouts.bingo:CARDS")."""
from __future__ import annotations

import vision.layouts as L

# Robbery cards carry player numbers as two digit rows, tens 0-2 and units 0-9: every number up to
# MAX_PLAYERS (an event has 2-26 players); a number that is no player is the referee's to refuse.
TENS, UNITS = range(3), range(10)
MAX_PLAYERS = 10 * (len(TENS) - 1) + len(UNITS) - 1


def vote() -> L.Layout:
    fields = (L.Field("mark", "X / Y / Z", tuple(L.bubble_row("XYZ", 22.0, 26.0, 50.0, 8.5))),)
    items = L.common_items("投票カード", "VOTE CARD", "ひとつだけ ○ をつける · Mark exactly one")
    items += [L.Text(13.5, 27.0, 7.0, "第 {turn} ターン"), L.Text(13.5, 34.5, 4.5, "Turn {turn}"),
              *L.bubble_items(fields, 1.1)]
    return L.Layout("vote", "Vote card", fields, tuple(items))


def digit_fields(role: str) -> tuple[str, str]:
    """The two fields a player number is marked in on a robbery card: its tens and its units."""
    return f"{role}_tens", f"{role}_units"


def robbery() -> L.Layout:
    x0, pitch, r = 17.5, 8.0, 3.4
    fields, items = [], []
    for role, ja, en, top in (("robber", "強奪する人", "Robber no.", 26.5), ("victim", "される人", "Victim no.", 48.0)):
        tens, units = digit_fields(role)
        fields += [L.Field(tens, f"{en} (tens)", tuple(L.bubble_row(TENS, x0, pitch, top + 5.0, r))),
                   L.Field(units, f"{en} (units)", tuple(L.bubble_row(UNITS, x0, pitch, top + 13.5, r)))]
        items += [L.Text(5.0, top, 3.0, f"{ja} · {en}"),
                  L.Text(5.0, top + 5.4, 2.4, "十の位"), L.Text(5.0, top + 7.6, 1.8, "tens"),
                  L.Text(5.0, top + 13.9, 2.4, "一の位"), L.Text(5.0, top + 16.1, 1.8, "units")]
    items.append(L.Text(44.0, 30.8, 2.3, "例: 7番 → 0 と 7 · player 7: 0 and 7", grey=L.PRINT_GREY))
    fields.append(L.Field("ordinal", "Line ordinal", tuple(L.bubble_row(range(1, 9), 18.0, 9.2, 74.0, r))))
    fields = tuple(fields)
    items = L.common_items("強奪カード", "ROBBERY CARD", "各欄ひとつ ○ · Mark one in each row") + items
    items += [L.Text(5.0, 69.0, 3.0, "何列目 · Line"), *L.bubble_items(fields)]
    return L.Layout("robbery", "Robbery card", fields, tuple(items))


def inout() -> L.Layout:
    fields = (L.Field("dir", "IN or OUT", (L.Bubble("IN", 40.0, 31.0, 5.5), L.Bubble("OUT", 58.0, 31.0, 5.5))),
              L.Field("ball", "Ball", L.bubble_grid(range(1, 28), 10.5, 48.0, 9.4, 10.0, 9, 3.8)))
    items = L.common_items("IN/OUT申請カード", "IN/OUT REQUEST CARD", "IN か OUT と 玉をひとつ · Mark IN or OUT and one ball")
    items += L.labels([(30.0, "入れる/出す", "Direction")]) + L.bubble_items(fields)
    return L.Layout("inout", "IN/OUT card", fields, tuple(items))


def change() -> L.Layout:
    fields = (L.Field("cell", "Cell", L.bubble_grid(range(1, 10), 11.0, 41.0, 9.0, 9.0, 3, 3.6)),
              L.Field("number", "New number", L.bubble_grid(range(1, 28), 45.0, 33.0, 8.6, 9.2, 6, 3.4)))
    items = L.common_items("チェンジカード", "CHANGE CARD", "マスと新しい数をひとつずつ · One cell, one number")
    items += L.labels([(30.0, "マス", "Cell")]) + L.labels([(25.5, "新しい数", "New number")], 42.0)
    items += L.bubble_items(fields)
    return L.Layout("change", "Change card", fields, tuple(items))


def exclusion() -> L.Layout:
    fields = (L.Field("ball", "Ball", L.bubble_grid(range(1, 28), 10.5, 40.0, 9.4, 12.0, 9, 4.0)),)
    items = L.common_items("除外カード", "EXCLUSION CARD", "除外する玉をひとつ · Mark one ball")
    items += L.labels([(28.0, "玉", "Ball")], 13.5) + L.bubble_items(fields)
    return L.Layout("exclusion", "Exclusion card", fields, tuple(items))


def bingo() -> L.Layout:
    items = L.common_items("ビンゴカード", "BINGO CARD", "{name}")
    x0, y0, cell = 24.0, 27.0, 16.0
    for i in range(9):
        x, y = x0 + (i % 3) * cell, y0 + (i // 3) * cell
        items += [L.Rect(x, y, cell, cell, 0.4), L.Text(x + cell / 2, y + cell / 2 + 2.5, 7.0, f"{{n{i + 1}}}", "middle")]
    return L.Layout("bingo", "Bingo card", (), tuple(items))



CARDS = (L.Kind(vote(), "V", "{code}{owner:02d}{number:02d}"), L.Kind(robbery(), "R", "{code}{owner:02d}{number:02d}"),
         L.Kind(inout(), "I", "{code}{owner:02d}{number:03d}"), L.Kind(change(), "C", "{code}{owner:02d}{number:03d}"),
         L.Kind(exclusion(), "E", "{code}{owner:02d}{number:03d}"), L.Kind(bingo(), "B", "{code}{owner:02d}"))
