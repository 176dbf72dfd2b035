"""Auction Bluff's screens: the dealer's console and the audience display."""
