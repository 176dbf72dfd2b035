"""Card scanner: one image in, one decision out — counted, invalid, review or rejected.

Per image: find the four ArUco fiducials and fit a homography (or, with a marker hidden,
the printed outline), rectify the card, read and verify its QR code (locate), then score every
bubble as new ink against the blank card rendered from the same layout (blank, measure). Before
deciding, the ink of long straight strokes (a stray pen line) is taken out of the bubbles they
cross (strokes), and ink that only a neighbour's big circle put into a bubble is that
neighbour's. One table (decide) turns the measurements into blank / mark / review with the
reason. A confident wrong answer is the worst failure: whenever a check is unsure, review.
The watched scanner folder and the way into the referee are in watch.
"""
from .result import Result
from .scanner import Scanner
from .tuning import Settings, TuningError, settings_for
from .watch import FolderWatcher, referee, workers_for

__all__ = ["Settings", "TuningError", "settings_for", "Result", "Scanner", "FolderWatcher", "referee", "workers_for"]
