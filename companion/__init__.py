"""The table companion: referee, journal and views for Plunder Bingo (強奪ビンゴ)."""
