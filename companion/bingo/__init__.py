"""Plunder Bingo rules as pure functions: decide(state, command) and evolve(state, event)."""
