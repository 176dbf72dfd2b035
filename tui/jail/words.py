"""What the jail card game's console and display both say about a view (staff or public): the
phase, the rows with their groups, the jail with its progress towards the round's end. The words are
msgids of companion/locale (PHASES too)."""
from __future__ import annotations

from rich.text import Text

from companion.core.words import _, word

# one colour per kind, in the deck's order (wraps round for a deck of more kinds)
COLOURS = ["#ff4d4d", "#ffd400", "#00d455", "#4da6ff", "#ff8c1a", "#c77dff", "#00d4d4", "#ff66b3",
           "#b3b300", "#a0a0a0", "#66ff99", "#ff9999"]
PHASES = {"new": "Waiting for the table", "layout": "Lay out the rows", "deal": "Deal the hands",
          "turn": "Take a group", "play": "Play a group, or refill", "refill": "Refill the row",
          "relayout": "No row can be taken from: new rows", "round_over": "Round over",
          "finished": "Game over"}


def names(view: dict) -> dict[int, str]:
    return {p["no"]: p["name"] for p in view["players"]}


def phase_words(view: dict, said=_) -> str:
    """The phase in the chosen language(s); said=stacked: the Japanese above the English."""
    if view["phase"] not in PHASES:
        return view["phase"]
    if view["turn_player"] is not None and view["phase"] in ("turn", "play", "refill", "relayout"):
        return said("{name}: {phase}", name=names(view).get(view["turn_player"], "?"), phase=word(PHASES[view["phase"]]))
    return said(PHASES[view["phase"]])


def colour(view: dict, kind: str) -> str:
    kinds = view.get("kinds") or []
    return COLOURS[kinds.index(kind) % len(COLOURS)] if kind in kinds else "#ffffff"


def row_text(view: dict, row: list[str]) -> Text:
    """A row's cards, left to right, a space between groups (what a take would move)."""
    text = Text()
    for at, kind in enumerate(row):
        if at and row[at - 1] != kind:
            text.append(" ")
        text.append(f"{kind:>2}", style=f"bold {colour(view, kind)}")
    return text or Text("(" + _("empty") + ")", style="italic #808080")


def cards_text(view: dict, counts: dict) -> Text:
    text = Text()
    for kind, count in counts.items():
        text.append(f"{kind}", style=f"bold {colour(view, kind)}")
        text.append(f"×{count} ")
    return text or Text("–", style="#808080")


def progress_text(view: dict) -> Text:
    """Towards both end conditions (J4), a line each: e.g. "6+ of 2 kinds: 1/2"."""
    text = Text()
    for part in view["progress"]:
        near = part["kinds"] >= part["needed"] - 1
        text.append("\n  " + progress_words(part) + ": ")
        text.append(f"{part['kinds']}/{part['needed']}", style="bold #ff4d4d" if near else "bold")
    return text


def progress_words(part: dict) -> str:
    """An end condition (J4), e.g. "6+ of 2 kinds"."""
    return _("{cards}+ of {needed} kinds", cards=part["cards"], needed=part["needed"])


def scores_line(player: dict) -> str:
    return " + ".join(map(str, player["scores"])) or "–"
