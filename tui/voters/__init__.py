"""Voters' screens: the dealer's console and the audience display (the web page is tui/web)."""
