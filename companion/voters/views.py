"""What screens and exports may see. public() is all the audience display gets: no number of a
game still open (V2: the cards are secret until the open) or never opened (V6), no held card,
crop or score."""
from __future__ import annotations

from dataclasses import asdict

from .decide import unique_numbers
from .state import Game, State


def game_view(game: Game) -> dict:
    return {"no": game.no, "dealer": game.dealer, "stake": game.stake,
            "bets": {str(player): number for player, number in sorted(game.bets.items())},
            "result": game.result, "winner": game.winner, "number": game.number, "pot": game.pot}


def players(s: State) -> list[dict]:
    return [{"no": p.no, "name": p.name, "net": p.net} for p in sorted(s.players.values(), key=lambda p: p.no)]


def replay(s: State, log: list) -> dict:
    """`companion replay --json`: the contract's keys exactly."""
    return {"game": "voters", "phase": s.phase, "games": [game_view(g) for g in s.games],
            "players": players(s), "log": log}


def staff(s: State) -> dict:
    return {"game": "voters", "event": s.event, "phase": s.phase, "games": [game_view(g) for g in s.games],
            "players": players(s), "held": [{"serial": serial, **asdict(held)} for serial, held in s.held.items()]}


def public_game(game: Game) -> dict:
    """A game's numbers are public once opened; one still open, or with no game (V6: the cards
    were lost, nothing was revealed), shows only who has bet."""
    view = game_view(game)
    if game.result in (None, "no_game"):
        del view["bets"]
        return {**view, "bettors": sorted(game.bets)}
    return {**view, "unique": unique_numbers(game.bets)}


def public(s: State) -> dict:
    return {"game": "voters", "event": s.event, "phase": s.phase,
            "games": [public_game(g) for g in s.games], "players": players(s)}
