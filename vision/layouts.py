"""Card layouts: the one definition per card kind that drives printing, rendering and scanning.

Units are millimetres on the card, origin at the top-left corner, y down. A layout holds its
fields (each bubble's value, centre and radius) and its drawing items; texts may name the
card's own data ({turn}, {owner}, {serial}, {name}, {n1}..{n9}), filled in by items(card).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

CARD_W, CARD_H = 96.0, 90.0
MARKER_SIZE, MARKER_INSET = 8.0, 3.0
# ArUco DICT_4X4_50 ids at the corners, clockwise from top-left: the scanner's orientation.
MARKER_IDS = (0, 1, 2, 3)
QR_BOX = (63.0, 3.0, 19.0)            # x, y, side (the code's quiet zone included)
FRAME_INSET, FRAME_LINE = 1.2, 0.5    # the printed outline: the scanner's fallback when a marker is hidden
BETWEEN_MARKERS = CARD_W - 2 * (MARKER_INSET + MARKER_SIZE + 1.0)   # the footers' room, clear of the markers
INK, PRINT_GREY = 0.0, 0.55           # grey levels (0 black, 1 white); bubbles print grey so pen shows
# Robbery cards carry player numbers as two digit rows, tens 0-2 and units 0-9: every number up to
# MAX_PLAYERS (an event has 2-26 players); a number that is no player is the referee's to refuse.
TENS, UNITS = range(3), range(10)
MAX_PLAYERS = 10 * (len(TENS) - 1) + len(UNITS) - 1

KINDS = ("vote", "robbery", "inout", "change", "exclusion", "bingo", "number",      # number: Voters' card
         "bluff_dice", "bluff_declare")                                          # Auction Bluff's (AB7)
KIND_CODES = {"vote": "V", "robbery": "R", "inout": "I", "change": "C", "exclusion": "E", "bingo": "B",
              "number": "N", "bluff_dice": "D", "bluff_declare": "A"}
# Each kind's serial: its code, the owner and its number (a turn, a card's count, a game, a period),
# and on a dice-vote card the gem it is for (signed with it).
SERIALS = {"vote": "{code}{owner:02d}{number:02d}", "robbery": "{code}{owner:02d}{number:02d}",
           "inout": "{code}{owner:02d}{number:03d}", "change": "{code}{owner:02d}{number:03d}",
           "exclusion": "{code}{owner:02d}{number:03d}", "bingo": "{code}{owner:02d}",
           "number": "{code}{owner:02d}{number:02d}", "bluff_dice": "{code}{owner:02d}{number:02d}{gem}",
           "bluff_declare": "{code}{owner:02d}{number:02d}"}
GEM_AT = len("D0102")          # a dice-vote serial's gem follows its code, owner and period
FACES = ("1", "2", "3", "4", "5", "★")      # Auction Bluff's die (AB1)
DICE_ROWS = 5                               # AB7: a gem has 5 dice, so a player holds at most 5 of one gem


@dataclass(frozen=True)
class Bubble:
    value: str
    x: float
    y: float
    r: float


@dataclass(frozen=True)
class Field:
    name: str
    label: str
    bubbles: tuple[Bubble, ...]


@dataclass(frozen=True)
class Text:
    x: float
    y: float            # baseline
    size: float         # em height in mm
    text: str
    anchor: str = "start"   # start | middle | end
    grey: float = INK
    room: float = 0.0       # widest it may print (mm): a longer text (a name, an event) prints smaller; 0: no limit


@dataclass(frozen=True)
class Rect:
    x: float
    y: float
    w: float
    h: float
    line: float
    grey: float = INK


@dataclass(frozen=True)
class Circle:
    x: float
    y: float
    r: float
    line: float
    grey: float = PRINT_GREY


@dataclass(frozen=True)
class Marker:
    id: int
    x: float
    y: float
    size: float


@dataclass(frozen=True)
class QR:
    x: float
    y: float
    size: float


@dataclass(frozen=True)
class Layout:
    kind: str
    title: str
    fields: tuple[Field, ...]
    items: tuple = ()
    width: float = CARD_W
    height: float = CARD_H

    def field(self, name: str) -> Field:
        return next(f for f in self.fields if f.name == name)

    def bubbles(self):
        """(field name, bubble) for every bubble on the card."""
        return [(f.name, b) for f in self.fields for b in f.bubbles]

    def to_json(self) -> dict:
        return {"kind": self.kind, "title": self.title, "units": "mm",
                "size": {"width": self.width, "height": self.height},
                "markers": [asdict(m) | {"corner": c} for m, c in zip(markers(), ("top-left", "top-right",
                                                                                 "bottom-right", "bottom-left"))],
                "qr": asdict(QR(*QR_BOX)),
                "fields": [{"name": f.name, "label": f.label,
                            "bubbles": [asdict(b) for b in f.bubbles]} for f in self.fields]}


@dataclass(frozen=True)
class Card:
    """One physical card: what its code says and what its texts show."""
    kind: str
    event: str
    serial: str
    owner: int
    turn: int = 0
    name: str = ""
    numbers: tuple[int, ...] = ()

    def values(self) -> dict:
        values = {"turn": self.turn, "owner": self.owner, "serial": self.serial, "name": self.name,
                  "event": self.event, "gem": dice_gem(self.serial) if "{gem}" in SERIALS[self.kind] else ""}
        values.update({f"n{i}": n for i, n in enumerate(self.numbers, 1)})
        return values


def markers() -> list[Marker]:
    far_x, far_y = CARD_W - MARKER_INSET - MARKER_SIZE, CARD_H - MARKER_INSET - MARKER_SIZE
    corners = [(MARKER_INSET, MARKER_INSET), (far_x, MARKER_INSET), (far_x, far_y), (MARKER_INSET, far_y)]
    return [Marker(i, x, y, MARKER_SIZE) for i, (x, y) in zip(MARKER_IDS, corners)]


def marker_corners_mm() -> dict[int, list[tuple[float, float]]]:
    """Each marker's corners in the order ArUco reports them (clockwise from its top-left)."""
    return {m.id: [(m.x, m.y), (m.x + m.size, m.y), (m.x + m.size, m.y + m.size), (m.x, m.y + m.size)]
            for m in markers()}


def frame_corners_mm() -> list[tuple[float, float]]:
    a, bx, by = FRAME_INSET, CARD_W - FRAME_INSET, CARD_H - FRAME_INSET
    return [(a, a), (bx, a), (bx, by), (a, by)]


def _row(values, x0: float, pitch: float, y: float, r: float) -> list[Bubble]:
    return [Bubble(str(v), round(x0 + i * pitch, 2), y, r) for i, v in enumerate(values)]


def _grid(values, x0: float, y0: float, pitch_x: float, pitch_y: float, per_row: int, r: float) -> tuple:
    values = list(values)
    rows = [values[i:i + per_row] for i in range(0, len(values), per_row)]
    return tuple(b for n, row in enumerate(rows) for b in _row(row, x0, pitch_x, round(y0 + n * pitch_y, 2), r))


def _common(title_ja: str, title_en: str, footer: str) -> list:
    """What every card prints: outline, markers, code, titles, serial and owner."""
    x, y, side = QR_BOX
    items = [Rect(FRAME_INSET, FRAME_INSET, CARD_W - 2 * FRAME_INSET, CARD_H - 2 * FRAME_INSET, FRAME_LINE),
             *markers(), QR(x, y, side),
             Text(13.5, 8.0, 4.2, title_ja), Text(13.5, 13.5, 3.4, title_en),
             Text(x + side / 2, y + side + 3.2, 2.8, "{serial}", "middle"),
             Text(48.0, CARD_H - 5.5, 2.6, footer, "middle", room=BETWEEN_MARKERS),
             Text(48.0, CARD_H - 2.6, 2.0, "{event} · No.{owner}", "middle", PRINT_GREY, BETWEEN_MARKERS)]
    return items


def _bubble_items(fields: tuple[Field, ...], label_scale: float = 1.0) -> list:
    items = []
    for f in fields:
        for b in f.bubbles:
            size = b.r * (1.05 if len(b.value) == 1 else 0.85 if len(b.value) == 2 else 0.6) * label_scale
            items.append(Circle(b.x, b.y, b.r, 0.3))
            items.append(Text(b.x, b.y + size * 0.36, size, b.value, "middle", PRINT_GREY))
    return items


def _labels(rows: list[tuple[float, str, str]], x: float = 5.0) -> list:
    return [item for y, ja, en in rows for item in (Text(x, y, 3.0, ja), Text(x, y + 3.6, 2.4, en))]


def vote() -> Layout:
    fields = (Field("mark", "X / Y / Z", tuple(_row("XYZ", 22.0, 26.0, 50.0, 8.5))),)
    items = _common("投票カード", "VOTE CARD", "ひとつだけ ○ をつける · Mark exactly one")
    items += [Text(13.5, 27.0, 7.0, "第 {turn} ターン"), Text(13.5, 34.5, 4.5, "Turn {turn}"),
              *_bubble_items(fields, 1.1)]
    return Layout("vote", "Vote card", fields, tuple(items))


def digit_fields(role: str) -> tuple[str, str]:
    """The two fields a player number is marked in on a robbery card: its tens and its units."""
    return f"{role}_tens", f"{role}_units"


def robbery() -> Layout:
    x0, pitch, r = 17.5, 8.0, 3.4
    fields, items = [], []
    for role, ja, en, top in (("robber", "強奪する人", "Robber no.", 26.5), ("victim", "される人", "Victim no.", 48.0)):
        tens, units = digit_fields(role)
        fields += [Field(tens, f"{en} (tens)", tuple(_row(TENS, x0, pitch, top + 5.0, r))),
                   Field(units, f"{en} (units)", tuple(_row(UNITS, x0, pitch, top + 13.5, r)))]
        items += [Text(5.0, top, 3.0, f"{ja} · {en}"),
                  Text(5.0, top + 5.4, 2.4, "十の位"), Text(5.0, top + 7.6, 1.8, "tens"),
                  Text(5.0, top + 13.9, 2.4, "一の位"), Text(5.0, top + 16.1, 1.8, "units")]
    items.append(Text(44.0, 30.8, 2.3, "例: 7番 → 0 と 7 · player 7: 0 and 7", grey=PRINT_GREY))
    fields.append(Field("ordinal", "Line ordinal", tuple(_row(range(1, 9), 18.0, 9.2, 74.0, r))))
    fields = tuple(fields)
    items = _common("強奪カード", "ROBBERY CARD", "各欄ひとつ ○ · Mark one in each row") + items
    items += [Text(5.0, 69.0, 3.0, "何列目 · Line"), *_bubble_items(fields)]
    return Layout("robbery", "Robbery card", fields, tuple(items))


def inout() -> Layout:
    fields = (Field("dir", "IN or OUT", (Bubble("IN", 40.0, 31.0, 5.5), Bubble("OUT", 58.0, 31.0, 5.5))),
              Field("ball", "Ball", _grid(range(1, 28), 10.5, 48.0, 9.4, 10.0, 9, 3.8)))
    items = _common("IN/OUT申請カード", "IN/OUT REQUEST CARD", "IN か OUT と 玉をひとつ · Mark IN or OUT and one ball")
    items += _labels([(30.0, "入れる/出す", "Direction")]) + _bubble_items(fields)
    return Layout("inout", "IN/OUT card", fields, tuple(items))


def change() -> Layout:
    fields = (Field("cell", "Cell", _grid(range(1, 10), 11.0, 41.0, 9.0, 9.0, 3, 3.6)),
              Field("number", "New number", _grid(range(1, 28), 45.0, 33.0, 8.6, 9.2, 6, 3.4)))
    items = _common("チェンジカード", "CHANGE CARD", "マスと新しい数をひとつずつ · One cell, one number")
    items += _labels([(30.0, "マス", "Cell")]) + _labels([(25.5, "新しい数", "New number")], 42.0)
    items += _bubble_items(fields)
    return Layout("change", "Change card", fields, tuple(items))


def exclusion() -> Layout:
    fields = (Field("ball", "Ball", _grid(range(1, 28), 10.5, 40.0, 9.4, 12.0, 9, 4.0)),)
    items = _common("除外カード", "EXCLUSION CARD", "除外する玉をひとつ · Mark one ball")
    items += _labels([(28.0, "玉", "Ball")], 13.5) + _bubble_items(fields)
    return Layout("exclusion", "Exclusion card", fields, tuple(items))


def bingo() -> Layout:
    items = _common("ビンゴカード", "BINGO CARD", "{name}")
    x0, y0, cell = 24.0, 27.0, 16.0
    for i in range(9):
        x, y = x0 + (i % 3) * cell, y0 + (i // 3) * cell
        items += [Rect(x, y, cell, cell, 0.4), Text(x + cell / 2, y + cell / 2 + 2.5, 7.0, f"{{n{i + 1}}}", "middle")]
    return Layout("bingo", "Bingo card", (), tuple(items))


def number() -> Layout:
    """Voters' card (V1): one number 0-9 for one game; the card's turn is the game's number."""
    fields = (Field("number", "Number", _grid(range(10), 18.0, 50.0, 15.0, 16.0, 5, 6.0)),)
    items = _common("数字カード", "NUMBER CARD", "数字をひとつ ○ · Circle one number")
    items += [Text(13.5, 27.0, 4.4, "第 {turn} ゲーム · Game {turn}"),
              Text(13.5, 33.5, 3.6, "プレイヤー {owner} · Player {owner}"), *_bubble_items(fields)]
    return Layout("number", "Number card", fields, tuple(items))


def die_field(row: int) -> str:
    return f"die{row}"


def bluff_dice() -> Layout:
    """Auction Bluff's dice-vote card (AB7): the faces of one gem's dice, one row of 6 bubbles per die;
    its turn is the period, its serial names the gem. Rows for dice not held stay blank."""
    fields = tuple(Field(die_field(row), f"Die {row}", tuple(_row(FACES, 25.0, 11.0, 23.0 + 10.0 * row, 3.4)))
                   for row in range(1, DICE_ROWS + 1))
    items = _common("ダイス投票カード", "DICE VOTE CARD", "ダイスごとに ひとつ ○ · One per die")
    items += [Text(13.5, 20.5, 3.4, "第 {turn} 期 · Period {turn}"), Text(13.5, 26.0, 3.0, "{gem} · Player {owner}")]
    items += [Text(5.0, 23.0 + 10.0 * row + 1.0, 2.6, f"ダイス{row}") for row in range(1, DICE_ROWS + 1)]
    return Layout("bluff_dice", "Dice vote card", fields, tuple(items + _bubble_items(fields)))


def bluff_declare() -> Layout:
    """Auction Bluff's declaration card (AB7): a face 1-5 and a count as two digit rows, for one period."""
    x0, pitch, r = 17.5, 8.0, 3.4
    fields = (Field("face", "Face", tuple(_row(range(1, 6), x0, pitch, 37.0, r))),
              Field("count_tens", "Count (tens)", tuple(_row(range(4), x0, pitch, 54.0, r))),
              Field("count_units", "Count (units)", tuple(_row(UNITS, x0, pitch, 65.5, r))))
    items = _common("宣言カード", "DECLARATION CARD", "各欄ひとつ ○ · Mark one in each row")
    items += [Text(13.5, 20.5, 3.4, "第 {turn} 期 · Period {turn}"), Text(13.5, 26.0, 3.0, "Player {owner}"),
              Text(5.0, 31.5, 3.0, "面 · Face (1-5)"), Text(5.0, 48.0, 3.0, "個数 · Count (1-30)"),
              Text(44.0, 48.0, 2.3, "例: 12個 → 1 と 2 · 12: 1 and 2", grey=PRINT_GREY),
              Text(5.0, 54.4, 2.4, "十の位"), Text(5.0, 56.6, 1.8, "tens"),
              Text(5.0, 65.9, 2.4, "一の位"), Text(5.0, 68.1, 1.8, "units"), *_bubble_items(fields)]
    return Layout("bluff_declare", "Declaration card", fields, tuple(items))


LAYOUTS = {"vote": vote(), "robbery": robbery(), "inout": inout(), "change": change(),
           "exclusion": exclusion(), "bingo": bingo(), "number": number(),
           "bluff_dice": bluff_dice(), "bluff_declare": bluff_declare()}


def layout(kind: str) -> Layout:
    if kind not in LAYOUTS:
        raise KeyError(f"unknown card kind {kind!r}; kinds: {', '.join(KINDS)}")
    return LAYOUTS[kind]


def items(card: Card) -> list:
    """The card's drawing items with its own data filled into the texts."""
    values = card.values()
    return [Text(i.x, i.y, i.size, i.text.format(**values), i.anchor, i.grey, i.room) if isinstance(i, Text) and "{" in i.text
            else i for i in layout(card.kind).items]


# --- the code on the card -------------------------------------------------------------------
CODE_PREFIX = "PB"
MAC_BYTES = 8         # 64 bits of HMAC-SHA256: forging a card blind is hopeless, and the code stays small


def card_body(card: Card) -> str:
    return "|".join([CODE_PREFIX, KIND_CODES[card.kind], card.event, card.serial, str(card.turn), str(card.owner)])


def mac(secret: str, body: str) -> str:
    import base64
    import hashlib
    import hmac
    digest = hmac.new(secret.encode("utf-8"), body.encode("utf-8"), hashlib.sha256).digest()[:MAC_BYTES]
    return base64.b32encode(digest).decode("ascii").rstrip("=")


def payload(card: Card, secret: str) -> str:
    """What the card's QR code holds: kind, event id, serial, turn, owner and the truncated HMAC."""
    body = card_body(card)
    return f"{body}|{mac(secret, body)}"


class CodeError(ValueError):
    """Why a code is not one of this event's cards; .reason is unreadable | forged | other event."""

    def __init__(self, reason: str, detail: str):
        super().__init__(f"{reason}: {detail}")
        self.reason, self.detail = reason, detail


def verify(text: str, event: str, secret: str) -> Card:
    """The card a code names, if it is genuine and of this event; raises CodeError otherwise."""
    import hmac
    parts = text.split("|")
    kinds = {code: kind for kind, code in KIND_CODES.items()}
    if len(parts) != 7 or parts[0] != CODE_PREFIX or parts[1] not in kinds \
            or not parts[4].isdigit() or not parts[5].isdigit():
        raise CodeError("unreadable", f"the code {text[:40]!r} is not a table companion card code")
    _, code, card_event, serial, turn, owner, tag = parts
    card = Card(kinds[code], card_event, serial, int(owner), int(turn))
    if card_event != event:
        raise CodeError("other event", f"card {serial} belongs to event {card_event!r}, not {event!r}")
    if not hmac.compare_digest(tag, mac(secret, card_body(card))):
        raise CodeError("forged", f"card {serial}'s signature does not match this event's secret")
    return card


def serial(kind: str, owner: int, number: int, gem: str = "") -> str:
    """V0103 = player 1's turn-3 vote card; R0105 = player 1's 5th robbery card; B01 = player 1's bingo card;
    N0103 = player 1's number card for game 3; D0102ruby = player 1's period-2 dice vote for ruby dice;
    A0102 = player 1's period-2 declaration card."""
    return SERIALS[kind].format(code=KIND_CODES[kind], owner=owner, number=number, gem=gem)


def dice_gem(serial_text: str) -> str:
    """The gem a dice-vote card's serial names (signed with it: the card is for that gem's dice)."""
    return serial_text[GEM_AT:]
