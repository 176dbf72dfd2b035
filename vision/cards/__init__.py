"""Card scanner: one image in, one decision out — counted, invalid, review or rejected.

Per image: find the four ArUco fiducials and fit a homography (or, with a marker hidden, the printed outline), rectify
the card, read and verify its QR code (locate), then score every bubble's new ink against the blank card, the paper's
own light taken out first (blank, measure), with a stray pen line's ink taken out (strokes) and a circle drawn round a
bubble scored as its mark (circles). Every doubt is a finding with a code (reasons); one table (decide) turns them
into counted / invalid / review. A confident wrong answer is the worst failure: whenever a check is unsure, review.
The watched scanner folder and the way into the referee are in watch.
"""
from .result import Result
from .scanner import Scanner
from .tuning import Settings, TuningError, settings_for
from .watch import FolderWatcher, referee, workers_for

__all__ = ["Settings", "TuningError", "settings_for", "Result", "Scanner", "FolderWatcher", "referee", "workers_for"]
