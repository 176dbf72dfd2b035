"""Auction Bluff's commands in the rehearsal-script format ({"do": ...}), described once in a Schema
(companion.core.commands); whether a well-formed command is allowed is for decide() to say."""
from __future__ import annotations

from dataclasses import dataclass

from ..core.commands import Malformed, Schema, check_players, describe, is_a, shown

GEMS = ("ruby", "sapphire", "emerald", "garnet", "amethyst", "diamond")     # AB1
FACES = ("1", "2", "3", "4", "5", "★")                                      # AB1: a die's faces


@dataclass(frozen=True)
class Setup:
    event: str
    players: list[dict]      # no, name, gem
    game: str
    star_wild: bool = True   # D1


@dataclass(frozen=True)
class Period: pass


@dataclass(frozen=True)
class Dice:
    player: int
    faces: dict              # gem -> the face of each die of that gem the player holds
    serial: str = ""         # a printed dice-vote card's serial


@dataclass(frozen=True)
class Transfer:
    from_: int               # "from" in a script: a Python keyword (SCHEMA renames it)
    to: int
    gem: str
    count: int


@dataclass(frozen=True)
class CloseDice: pass


@dataclass(frozen=True)
class Declare:
    player: int
    face: int | str          # anything but 1-5 (★ included) is a declaration journaled invalid
    count: int | None        # None (and face None): a card that cannot be read
    serial: str = ""         # a printed declaration card's serial


@dataclass(frozen=True)
class Cancel:
    player: int
    consent: list[int]


@dataclass(frozen=True)
class Judge: pass


def _check_faces(values: dict) -> None:
    for gem, faces in values["faces"].items():
        if not (is_a(faces, list) and all(is_a(face, str) for face in faces)):
            raise Malformed(f"dice: faces of {shown(gem)} must be {describe(list[str])}, not {shown(faces)}")


class BluffSchema(Schema):
    """The Schema, with the script's key "from" for Transfer's field from_."""
    SCRIPT, FIELD = "from", "from_"

    def parse(self, data, unread_ok: bool = False):
        if isinstance(data, dict) and self.FIELD in data:
            raise Malformed(f"{shown(data.get('do'))}: unknown key {shown(self.FIELD)}")
        renamed = {self.FIELD if key == self.SCRIPT else key: value for key, value in data.items()} \
            if isinstance(data, dict) else data
        try:
            return super().parse(renamed, unread_ok)
        except Malformed as error:
            raise Malformed(str(error).replace(self.FIELD, self.SCRIPT)) from None

    def to_dict(self, command) -> dict:
        return {self.SCRIPT if key == self.FIELD else key: value for key, value in super().to_dict(command).items()}


COMMANDS = {"setup": Setup, "period": Period, "dice": Dice, "transfer": Transfer, "close_dice": CloseDice,
            "declare": Declare, "cancel": Cancel, "judge": Judge}
PLAYER_KEYS = {"no": int, "name": str, "gem": str}
SCHEMA = BluffSchema(
    COMMANDS, cards=(Dice, Declare), enums={("Setup", "game"): ("bluff",)},
    optional={("Setup", "star_wild"): True, ("Dice", "serial"): "", ("Declare", "serial"): ""},
    nullable={("Declare", "face"), ("Declare", "count")},
    checks={Setup: lambda values: check_players("setup", values["players"], PLAYER_KEYS), Dice: _check_faces})
