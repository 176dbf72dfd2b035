"""The screens of every game the companion hosts: each game's staff console and audience display
in its own folder (tui/<game>/, named by the game's Screens), on what game_console.py and game_display.py
share, the display as a web page (web/) and the ball-reader calibration.

Textual apps. They never decide anything: the console sends commands through
companion.core.session, the display folds the journal read-only and shows views.public only.
"""
