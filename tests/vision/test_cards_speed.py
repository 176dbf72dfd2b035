"""Work the card scanner spares (CPU per card) changes nothing it finds."""
import cv2
import numpy as np
import pytest

from vision.cards import measure as M, strokes as S
from vision.cards.tuning import CIRCLES, LIGHT, STROKES

cv2.setNumThreads(1)


def _ink(rng) -> np.ndarray:
    """Half-size card ink: a few straight strokes, some dashed (gaps about Hough's maxLineGap), and speckle."""
    half = np.zeros((270, 288), np.uint8)
    for _ in range(rng.integers(1, 4)):
        x, y, angle, length = rng.integers(0, 288), rng.integers(0, 270), rng.random() * np.pi, rng.integers(5, 90)
        dash, gap = rng.integers(3, 30), rng.integers(10, 20) if rng.random() < 0.5 else 0
        for start in range(0, length, dash + gap):
            a, b = (start, min(start + dash, length))
            cv2.line(half, (int(x + a * np.cos(angle)), int(y + a * np.sin(angle))),
                     (int(x + b * np.cos(angle)), int(y + b * np.sin(angle))), 1, int(rng.integers(1, 4)))
    half[rng.random(half.shape) < rng.random() * 0.0005] = 1
    return half


def test_a_stroke_search_spared_hough_finds_the_same_segments(monkeypatch):
    """_segments runs HoughLinesP only where some piece of ink is long enough to hold a segment:
    where it does not run, Hough would have found none."""
    rng = np.random.default_rng(11)
    cases = [(_ink(rng), mm) for _ in range(150) for mm in (STROKES.piece_mm, 0.8 * STROKES.length_mm, 0.8 * STROKES.crease_mm)]
    spared = [not S._long_piece(half, round(mm * S.PX / 2 / np.sqrt(2)), round(2.5 * S.PX)) for half, mm in cases]
    found = [S._segments(half, mm) for half, mm in cases]
    monkeypatch.setattr(S, "_long_piece", lambda *_: True)
    for (half, mm), segments in zip(cases, found):
        assert _plain(segments) == _plain(S._segments(half, mm))
    assert sum(spared) >= 100 and sum(f == [] for f in found) > sum(spared)     # spared often, not always


def _plain(segments):
    return [(tuple(p), tuple(u), t0, t1) for p, u, t0, t1 in segments]


def test_the_noise_floor_shown_under_its_least_by_counting_is_the_medians_own():
    """_noise_floor skips the two medians where counting shows the paper's median and 5 deviations stay
    under NOISE_FLOOR: on quiet paper and noisy, odd and even counts, it is what the medians give."""
    rng = np.random.default_rng(7)
    kind = "vote"
    paper = M._paper(kind)
    skipped = 0
    for n in range(200):
        amount = np.zeros(M.blank_card(kind).shape, np.float32)
        spread = rng.choice([0.002, 0.005, 0.01, 0.02, 0.05])
        amount.ravel()[paper] = np.clip(rng.normal(rng.uniform(0, 0.09), spread, len(paper)), 0, 1)
        if n % 2:
            amount.ravel()[paper[rng.integers(len(paper))]] = 1.0      # one speck: a few samples off
        values = amount.ravel()[paper]
        median = float(np.median(values))
        want = max(LIGHT.noise_floor, median + LIGHT.noise_mads * float(np.median(np.abs(values - median))) * M.MAD_SIGMA)
        assert M._noise_floor(amount, kind) == pytest.approx(want, abs=1e-12)
        skipped += M._quiet_paper(values)
    assert 40 <= skipped <= 160     # skipped often, not always


def test_pieces_of_ink_found_in_its_padded_box_are_the_whole_cards():
    """circles._joined joins ink across gaps and numbers the pieces in the box round the ink only: the
    same pieces, in the same order, as on the whole card (ink at the card's edges too)."""
    from vision.cards import circles as Ci
    rng = np.random.default_rng(3)
    join = round(CIRCLES.join_mm * Ci.PX / 2)
    kernel = np.ones((2 * join + 1,) * 2, np.uint8)
    for _ in range(200):
        ink = (_ink(rng) > 0) | (rng.random((270, 288)) < 0.0003)
        whole = cv2.connectedComponents(cv2.dilate(ink.view(np.uint8), kernel), connectivity=8)[1]
        box = M.padded_box(ink, join)
        part = cv2.connectedComponents(cv2.dilate(ink[box].view(np.uint8), kernel), connectivity=8)[1]
        assert np.array_equal(whole[box][ink[box]], part[ink[box]]) and not ink[~_inside(ink.shape, box)].any()


def _inside(shape, box) -> np.ndarray:
    mask = np.zeros(shape, bool)
    mask[box] = True
    return mask


def test_the_steep_edges_found_from_whole_number_slopes_are_the_float_slopes_own():
    """ink()'s _steep takes the slope from Sobel's whole-number sums (scaled by 128, and its bound with it):
    bit for bit the edges the float slope (scale 1/128) marks, on smooth shade, sharp ink and noise."""
    from vision.cards.tuning import SHADE
    rng = np.random.default_rng(5)
    for _ in range(40):
        y, x = np.mgrid[0:540, 0:576]
        grey = 200 - rng.uniform(0, 120) * np.clip((x - rng.uniform(0, 576)) / rng.uniform(5, 300), 0, 1)
        grey = np.clip(grey + rng.normal(0, rng.uniform(0, 8), grey.shape), 0, 255).astype(np.uint8)
        cv2.line(grey, tuple(rng.integers(0, 540, 2).tolist()), tuple(rng.integers(0, 540, 2).tolist()),
                 int(rng.integers(0, 150)), int(rng.integers(1, 6)))
        slope = cv2.magnitude(*(cv2.Sobel(grey, cv2.CV_32F, dx, 1 - dx, ksize=5, scale=1 / 128) for dx in (0, 1)))
        edge = cv2.compare(slope, cv2.dilate(grey, M._step()).astype(np.float32) * (SHADE.edge / M.PX), cv2.CMP_GE)
        want = cv2.resize(cv2.dilate(edge, np.ones((5, 5), np.uint8)), (144, 135), interpolation=cv2.INTER_NEAREST) // 255
        assert np.array_equal(M._steep(grey, (135, 144)), want)


def test_the_marker_search_passes_over_outlines_larger_than_a_corner_marker_can_be():
    """A corner marker's perimeter is a third of the picture's side at most (the card filling it): the
    detector drops larger candidates (the card's frame and edge) unread, so a marker that large is none;
    one of a card's size in the picture is found, its corners where they are."""
    from vision import layouts as L
    from vision.cards import locate as Lo
    marker = cv2.aruco.generateImageMarker(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50), L.MARKER_IDS[0], 60)
    for side, found in ((400, False), (1000, True)):       # perimeter 240: 60% and 24% of the picture's side
        picture = np.full((side, side), 255, np.uint8)
        at = (side - 60) // 2
        picture[at:at + 60, at:at + 60] = marker
        corners, _, _ = Lo.marker_detector().detectMarkers(picture)
        assert len(corners) == found, side
        if found:
            square = [(at, at), (at + 60, at), (at + 60, at + 60), (at, at + 60)]
            assert np.abs(corners[0].reshape(4, 2) - square).max() < 2
