"""Card layouts: the one definition per card kind that drives printing, rendering and scanning.

Units are millimetres on the card, origin at the top-left corner, y down. A layout holds its
fields (each bubble's value, centre and radius) and its drawing items; texts may name the
card's own data ({turn}, {owner}, {serial}, {name}, {n1}..{n9}), filled in by items(card).

This module holds what every card shares (size, markers, code, outline, the drawing helpers) and
the lookup; each game declares its own kinds, layouts and code letters in vision/layouts/<game>.py
(GameRules.layouts), so a new game's cards touch no shared file.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from functools import cache

CARD_W, CARD_H = 96.0, 90.0
MARKER_SIZE, MARKER_INSET = 8.0, 3.0
# ArUco DICT_4X4_50 ids at the corners, clockwise from top-left: the scanner's orientation.
MARKER_IDS = (0, 1, 2, 3)
QR_BOX = (63.0, 3.0, 19.0)            # x, y, side (the code's quiet zone included)
FRAME_INSET, FRAME_LINE = 1.2, 0.5    # the printed outline: the scanner's fallback when a marker is hidden
BETWEEN_MARKERS = CARD_W - 2 * (MARKER_INSET + MARKER_SIZE + 1.0)   # the footers' room, clear of the markers
INK, PRINT_GREY = 0.0, 0.55           # grey levels (0 black, 1 white); bubbles print grey so pen shows


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
                  "event": self.event, "gem": serial_tail(self.kind, self.serial)}
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


def bubble_row(values, x0: float, pitch: float, y: float, r: float) -> list[Bubble]:
    return [Bubble(str(v), round(x0 + i * pitch, 2), y, r) for i, v in enumerate(values)]


def bubble_grid(values, x0: float, y0: float, pitch_x: float, pitch_y: float, per_row: int, r: float) -> tuple:
    values = list(values)
    rows = [values[i:i + per_row] for i in range(0, len(values), per_row)]
    return tuple(b for n, row in enumerate(rows) for b in bubble_row(row, x0, pitch_x, round(y0 + n * pitch_y, 2), r))


def common_items(title_ja: str, title_en: str, footer: str) -> list:
    """What every card prints: outline, markers, code, titles, serial and owner."""
    x, y, side = QR_BOX
    items = [Rect(FRAME_INSET, FRAME_INSET, CARD_W - 2 * FRAME_INSET, CARD_H - 2 * FRAME_INSET, FRAME_LINE),
             *markers(), QR(x, y, side),
             Text(13.5, 8.0, 4.2, title_ja), Text(13.5, 13.5, 3.4, title_en),
             Text(x + side / 2, y + side + 3.2, 2.8, "{serial}", "middle"),
             Text(48.0, CARD_H - 5.5, 2.6, footer, "middle", room=BETWEEN_MARKERS),
             Text(48.0, CARD_H - 2.6, 2.0, "{event} · No.{owner}", "middle", PRINT_GREY, BETWEEN_MARKERS)]
    return items


def bubble_items(fields: tuple[Field, ...], label_scale: float = 1.0) -> list:
    items = []
    for f in fields:
        for b in f.bubbles:
            size = b.r * (1.05 if len(b.value) == 1 else 0.85 if len(b.value) == 2 else 0.6) * label_scale
            items.append(Circle(b.x, b.y, b.r, 0.3))
            items.append(Text(b.x, b.y + size * 0.36, size, b.value, "middle", PRINT_GREY))
    return items


def labels(rows: list[tuple[float, str, str]], x: float = 5.0) -> list:
    return [item for y, ja, en in rows for item in (Text(x, y, 3.0, ja), Text(x, y + 3.6, 2.4, en))]


@dataclass(frozen=True)
class Kind:
    """A printed card kind, as its game declares it (GameRules.layouts, vision/layouts/<game>.py)."""
    layout: Layout
    code: str           # its letter in the card's code and serial
    serial: str         # its serial: the code, the owner, its number (a turn, a count, a game, a period)
                        # and maybe a {gem} after them (signed with it)


@cache
def declared() -> dict[str, tuple[Kind, ...]]:
    """Each game's card kinds, as its layouts declare them (GameRules.layouts, found through the
    games' registry): the one list of the cards a game prints."""
    from companion.core import games
    return {name: tuple(games.load(game.layouts)) for name, game in games.GAMES.items() if game.layouts}


def kinds() -> dict[str, Kind]:
    """Every game's card kinds, in the games' order."""
    return {kind.layout.kind: kind for kinds in declared().values() for kind in kinds}


def kinds_of(game: str) -> tuple[str, ...]:
    """The kinds of the cards a game prints (none: it prints no card)."""
    return tuple(kind.layout.kind for kind in declared().get(game, ()))


def game_of(kind: str):
    """The game (its GameRules) that prints cards of this kind; raises Malformed."""
    from companion.core import games
    from companion.core.commands import Malformed, shown
    for name in declared():
        if kind in kinds_of(name):
            return games.rules(name)
    raise Malformed(f"no game prints {shown(kind)} cards")


def kind(name: str) -> Kind:
    if name not in kinds():
        raise KeyError(f"unknown card kind {name!r}; kinds: {', '.join(kinds())}")
    return kinds()[name]


def layout(name: str) -> Layout:
    return kind(name).layout


def items(card: Card) -> list:
    """The card's drawing items with its own data filled into the texts."""
    values = card.values()
    return [Text(i.x, i.y, i.size, i.text.format(**values), i.anchor, i.grey, i.room) if isinstance(i, Text) and "{" in i.text
            else i for i in layout(card.kind).items]


# --- the code on the card -------------------------------------------------------------------
CODE_PREFIX = "PB"
MAC_BYTES = 8         # 64 bits of HMAC-SHA256: forging a card blind is hopeless, and the code stays small


def card_body(card: Card) -> str:
    return "|".join([CODE_PREFIX, kind(card.kind).code, card.event, card.serial, str(card.turn), str(card.owner)])


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
    by_code = {declared.code: name for name, declared in kinds().items()}
    if len(parts) != 7 or parts[0] != CODE_PREFIX or parts[1] not in by_code \
            or not parts[4].isdigit() or not parts[5].isdigit():
        raise CodeError("unreadable", f"the code {text[:40]!r} is not a table companion card code")
    _, code, card_event, serial, turn, owner, tag = parts
    card = Card(by_code[code], card_event, serial, int(owner), int(turn))
    if card_event != event:
        raise CodeError("other event", f"card {serial} belongs to event {card_event!r}, not {event!r}")
    if not hmac.compare_digest(tag, mac(secret, card_body(card))):
        raise CodeError("forged", f"card {serial}'s signature does not match this event's secret")
    return card


def serial(name: str, owner: int, number: int, gem: str = "") -> str:
    """V0103 = player 1's turn-3 vote card; R0105 = player 1's 5th robbery card; B01 = player 1's bingo card;
    N0103 = player 1's number card for game 3; D0102ruby = player 1's period-2 dice vote for ruby dice;
    A0102 = player 1's period-2 declaration card."""
    return kind(name).serial.format(code=kind(name).code, owner=owner, number=number, gem=gem)


def serial_tail(name: str, serial_text: str) -> str:
    """What a serial carries after its code, owner and number (a dice-vote card's gem), or ""."""
    form, gem, _ = kind(name).serial.partition("{gem}")
    return serial_text[len(form.format(code=kind(name).code, owner=0, number=0)):] if gem else ""
