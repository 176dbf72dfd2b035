"""Plunder Bingo's screens: the staff console, the audience display and the widgets they share
(the web page is tui/web), and the demo night on simulated hardware."""
