"""The screens: the staff console, the audience display and the ball-reader calibration.

Textual apps. They never decide anything: the console sends commands through
companion.session, the display folds the journal read-only and shows views.public only.
"""
