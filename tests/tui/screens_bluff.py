"""A short Auction Bluff game with known names, written through a Session with a fixed clock so
that every screen of it is the same on every run. Period 1: a transfer during the dice vote
(D5), Chen's 9 fives fail on 8 (AB2, ★ wild): eliminated; period 2: Dana's 6 threes hold: she wins."""
from __future__ import annotations

from companion.core.session import Session

from screens_game import Clock, play_step, played

NAMES = {1: "Aki Tanaka", 2: "Bruno Diaz", 3: "Chen Wei", 4: "Dana Smith", 5: "Emi Sato", 6: "Fumi Ito"}
GEMS = {1: "ruby", 2: "sapphire", 3: "emerald", 4: "garnet", 5: "amethyst", 6: "diamond"}
FACES1 = {1: "555★1", 2: "5★123", 3: "55123", 4: "12341", 5: "44441", 6: "22222"}   # fives: 4+2+2 = 8
FACES2 = {1: "333★1", 2: "3★111", 4: "3", 5: "22222", 6: "11111"}                 # threes: 4+2+1 = 7


def setup() -> dict:
    return {"do": "setup", "game": "bluff", "event": "Bluff night",
            "players": [{"no": no, "name": name, "gem": GEMS[no]} for no, name in NAMES.items()]}


def dice(faces: dict[int, str], held: dict[int, dict[str, int]] | None = None) -> list[dict]:
    """Each player's faces, their own gem's dice first, then the dice given to them."""
    commands = []
    for no, text in faces.items():
        gems = held.get(no, {GEMS[no]: 5}) if held else {GEMS[no]: 5}
        at, vote = 0, {}
        for gem, n in gems.items():
            vote[gem], at = list(text[at:at + n]), at + n
        commands.append({"do": "dice", "player": no, "faces": vote})
    return commands


GIVEN = {4: {"garnet": 1}, 5: {"amethyst": 5, "garnet": 4}}     # Dana gives Emi four garnets
# The game in steps; screens are looked at between steps.
STEPS = {
    "ready": [setup()],
    "dice": [{"do": "period"}, *dice({1: FACES1[1], 2: FACES1[2]})],
    "declare": [*dice({no: f for no, f in FACES1.items() if no > 2}), {"do": "close_dice"},
                {"do": "declare", "player": 3, "face": 5, "count": 9}, {"do": "declare", "player": 1, "face": 4, "count": 6},
                {"do": "declare", "player": 6, "face": "★", "count": 2}],
    "eliminated": [{"do": "judge"}],
    "won": [{"do": "period"}, {"do": "transfer", "from": 4, "to": 5, "gem": "garnet", "count": 4},
            *dice({no: (f + "2222" if no == 5 else f) for no, f in FACES2.items()}, GIVEN), {"do": "close_dice"},
            {"do": "declare", "player": 4, "face": 3, "count": 6}, {"do": "judge"}],
}
EXPECTED = {"ok", "invalid"}     # Fumi's ★ declaration is journaled "invalid" (AB2)


def play(session: Session, step: str) -> None:
    play_step(session, STEPS[step], EXPECTED)


def night(path, upto: str) -> tuple[Session, Clock]:
    """A journal at `path` played up to and including step `upto`."""
    return played(path, STEPS, upto, EXPECTED)
