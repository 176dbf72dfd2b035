"""What screens and exports may see, for the game the state is of. public() is all the audience
display gets: secrets are absent from it, not hidden by a widget."""
from __future__ import annotations

from .core.games import of_state


def staff(state) -> dict:
    return of_state(state).staff(state)


def public(state) -> dict:
    return of_state(state).public(state)
