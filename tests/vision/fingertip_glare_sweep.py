"""A sweep of one failure class drawn on the printed PDF (printed_cards.py): a glare spot in a blank bubble's
middle at a fingertip in shade, on a blank vote card or beside a vote for Y. Counts the silent errors
(a decision other than review that is wrong) per group of light and glare strength.

    python tests/vision/fingertip_glare_sweep.py        # 1,152 cards, about 4 minutes on one core
"""
import itertools
import sys
from collections import Counter
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).parent))
import printed_cards as P          # noqa: E402
from vision.cards import Scanner    # noqa: E402

X, Y = (P.bubble("vote", "mark", v) for v in "XY")
GROUPS = {"light 0.55-0.85, glare 200-250": ((0.55, 0.7, 0.85), (8, 10, 13), (200, 250)),
          "light 0.55-0.85, glare 80-160": ((0.55, 0.7, 0.85), (8, 13), (80, 120, 160)),
          "light 0.95-1.0, glare 120-250": ((0.95, 1.0), (8, 13), (120, 160, 250))}
OFFSETS = ((0, 0), (0.5, -0.5), (0, -1), (-1, 0))      # the spot's centre from the bubble's, mm
RADII = (1.0, 1.5, 2.5)                                 # the spot's size (a Gaussian's sigma), mm


def silent(scanner: Scanner, light, width, at, radius, strength, voted) -> bool:
    picture = P.printed(P.card("vote", 3, 4))
    P.light(picture, light, light)
    if voted:
        P.ring(picture, voted, 1.2)
    P.shadow(picture, P.finger((X.x, X.y), 90, width), depth=0.5, soft_mm=1.6)
    P.glare(picture, (X.x + at[0], X.y + at[1]), radius, strength)
    result = scanner.scan_image(P.photo(picture))
    want = ("counted", {"mark": ["Y"]}) if voted else ("invalid", {"mark": []})
    return result.decision != "review" and (result.decision, result.fields) != want


def main() -> None:
    cv2.setNumThreads(1)
    scanner, counts = Scanner(P.EVENT, P.SECRET), Counter()
    for group, (lights, widths, strengths) in GROUPS.items():
        for case in itertools.product(lights, widths, OFFSETS, RADII, strengths, (None, Y)):
            counts[group, "cards"] += 1
            counts[group, "silent"] += silent(scanner, *case)
        print(f"{group}: {counts[group, 'silent']} silent errors of {counts[group, 'cards']} cards", flush=True)


if __name__ == "__main__":
    main()
