"""The night's report as data (`companion report`): each game builds a Report from the views folded
out of its journal; vision/report.py draws it as a PDF or an HTML page. Nothing here knows a game.

The public report is built from public views only (Moment.events is empty for it), so it can show
nothing the audience display did not; the staff report also sees staff views and each batch's events.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable, Union

from .journal import Journal
from .session import Game
from .events import CardHeld, CardRuled, Undone


@dataclass(frozen=True)
class Words:
    """A heading in Japanese and English, as the printed cards have them."""
    ja: str
    en: str


@dataclass(frozen=True)
class Table:
    title: Words
    columns: tuple[Words, ...]
    rows: tuple[tuple, ...]            # cells: text (people's text is shown literally) or whole numbers
    note: str = ""


@dataclass(frozen=True)
class Chart:
    title: Words
    x: tuple[str, ...]                  # a label for each point along the bottom
    series: dict[str, tuple]            # short label (an account letter, a player number) -> value per x, or None
    kind: str = "line"                  # line | bar
    x_label: Words = Words("ターン", "turn")
    y_label: str = "L$"


@dataclass(frozen=True)
class Picture:
    """A held card's crop: the path the journal keeps (relative: beside the journal), drawn if found."""
    path: str
    caption: str


Block = Union[Table, Chart, Picture]


@dataclass(frozen=True)
class Section:
    title: Words
    blocks: tuple[Block, ...]


@dataclass(frozen=True)
class Report:
    game: Words
    staff: bool
    sections: tuple[Section, ...]
    event: str = ""                     # the event's name, from its event file


@dataclass(frozen=True)
class Moment:
    """The game after one journal batch: its public view; for the staff report only, its staff view
    and the batch's events."""
    batch: int
    view: dict
    staff: dict | None = None
    events: tuple = field(default=())


@dataclass(frozen=True)
class NightReport:
    """A game's part of `companion report` (GameRules.night)."""
    unfinished: Callable[[dict], str | None]     # the last public view -> why there is no report yet, or None
    build: Callable[[list[Moment], bool], Report]   # (moments, staff) -> the report


STAFF = Words("スタッフ用", "staff only")
PUBLIC = Words("公開", "public")


class NotFinished(Exception):
    """No report yet: the message says why (one line)."""


def night(journal: Journal, staff: bool, event: str = "") -> Report:
    """The report of the game the journal holds; raises NotFinished while it is still being played."""
    rules, found = moments(journal, staff)
    if rules.night is None:
        raise NotFinished(f"{rules.title} has no night report")
    why = rules.night.unfinished(found[-1].view) if found else "the journal holds no game"
    if why:
        raise NotFinished(why)
    return replace(rules.night.build(found, staff), event=event)


def moments(journal: Journal, staff: bool) -> tuple[object, list[Moment]]:
    """(the game's rules, the game after every batch as applied): an undone batch's moment is taken
    back with it. Without `staff`, a moment carries the public view and nothing else."""
    game, found = Game(), []
    for batch in game.follow(journal):
        events = tuple(game.rules.events.decode(kind, data) for _, kind, data in batch.events)
        if events and isinstance(events[0], Undone):
            found.pop()
            continue
        public = game.rules.public(game.state)
        found.append(Moment(batch.number, public, game.rules.staff(game.state), events) if staff
                     else Moment(batch.number, public))
    return game.rules, found


def last_each(moments: list[Moment], key: Callable[[dict], object], staff: bool = False) -> dict:
    """{key: the last view (public, or staff) with that key} in the order the keys first came; views
    keyed None are left out."""
    kept: dict = {}
    for moment in moments:
        view = moment.staff if staff else moment.view
        k = key(view)
        if k is not None:
            kept[k] = view
    return kept


def events_of(moments: list[Moment], kind: type) -> list[tuple[dict, object]]:
    """(the staff view after it, the event) for each event of that class, oldest first (staff moments only)."""
    return [(m.staff, event) for m in moments for event in m.events if isinstance(event, kind)]


def held_section(moments: list[Moment], when: Callable[[dict], str]) -> Section | None:
    """Staff: every card held for review, with its crop and the operator's ruling (D2); `when` names
    the moment of the game a view shows (a turn, a game, a period)."""
    rulings = {event.serial: event.ruling for _, event in events_of(moments, CardRuled)}
    held = events_of(moments, CardHeld)
    if not held:
        return None
    table = Table(Words("保留されたカードと裁定", "Cards held for review, and the rulings"),
                  (Words("時点", "when"), Words("カード", "card"), Words("種類", "kind"), Words("理由", "why held"),
                   Words("裁定", "ruling")),
                  tuple((when(view), ev.serial, str(ev.card.get("do", "")), ev.reason, rulings.get(ev.serial, "未裁定 not ruled"))
                        for view, ev in held))
    crops = tuple(Picture(ev.crop, f"{ev.serial}: {ev.reason}") for _, ev in held if ev.crop)
    return Section(Words("保留カード", "Held cards"), (table, *crops))
