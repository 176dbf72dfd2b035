"""Driving one game's pure rules in tests, with no journal: attempt, play, rejected, invalid."""
from __future__ import annotations

from companion.core.games import GameRules, Rejected


def referee(game: GameRules):
    """(attempt, play, rejected, invalid) for `game`: a command dict decided on a state; a state
    after commands that must all be accepted; the reason a command is rejected; the reason an
    accepted command is journaled invalid."""
    def attempt(state, command: dict):
        return game.decide(state, game.schema.parse(command))

    def play(state, *commands: dict):
        for command in commands:
            result = attempt(state, command)
            assert not isinstance(result, Rejected), f"{command} rejected: {result.reason}"
            state = game.fold(result, state)
        return state

    def rejected(state, command: dict) -> str:
        result = attempt(state, command)
        assert isinstance(result, Rejected), f"{command} was accepted: {result}"
        return result.reason

    def invalid(state, command: dict) -> str:
        result = attempt(state, command)
        assert not isinstance(result, Rejected), f"{command} rejected: {result.reason}"
        reasons = [game.invalid(event) for event in result if game.invalid(event)]
        assert reasons, f"{command} was not invalid: {result}"
        return reasons[0]

    return attempt, play, rejected, invalid
