"""The table companion: referee, journal and views for the table games it hosts, Plunder Bingo
(強奪ビンゴ), Voters, Auction Bluff and the jail card game.

The shared core (core/, session, journal, event file) names no game; each game is one package
beside it (bingo/, voters/, bluff/, jail/) and cli/ is the composition root."""
