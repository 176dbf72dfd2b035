"""The screens of every game the companion hosts: each game's staff console and audience display
(Plunder Bingo's are console.py and display.py, the others' live in voters/, bluff/ and jail/, on
what game_console.py and game_display.py share), the display as a web page (web/) and the
ball-reader calibration.

Textual apps. They never decide anything: the console sends commands through
companion.core.session, the display folds the journal read-only and shows views.public only.
"""
