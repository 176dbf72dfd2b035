"""The table companion: referee, journal and views for the table games it hosts.

The shared core (core/) names no game; each game is one package beside it, found through the
games' registry (core/games.py), and cli/ is the composition root."""
