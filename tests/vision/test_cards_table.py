"""The decision table (vision.cards.decide.TABLE): every finding code has exactly one row, the doubts come
before the rules on the marks read, every row's code is made somewhere, and the Result records the row
that fired and every finding seen (on golden cards of several kinds)."""
import ast
from pathlib import Path

import pytest

import golden_cards as G
from test_cards_golden import needs_poppler
from vision.cards import decide as D
from vision.cards.reasons import Code, why

CARDS = Path(D.__file__).parent
RULE_CODES = {f.code for kind, fields in (("vote", {"mark": []}), ("vote", {"mark": ["X", "Y"]}),
                                          ("vote", {"mark": ["X", "Y", "Z"]}), ("number", {"number": []}),
                                          ("number", {"number": ["1", "2"]}), ("bluff_dice", {"a": []}),
                                          ("bluff_dice", {"a": ["1", "2"]}), ("inout", {"dir": [], "ball": []}))
              for f in D.rules(kind, fields)}


def test_every_finding_code_has_exactly_one_row_and_each_decides_review_or_invalid():
    codes = [code for code, _ in D.TABLE]
    assert len(codes) == len(set(codes))
    assert set(codes) == set(Code) - {Code.NOTHING_TO_COUNT}        # that one is no finding: the card is ignored
    assert {decision for _, decision in D.TABLE} == {"review", "invalid"}


def test_the_doubts_come_before_the_rules_on_the_marks_read():
    codes = [code for code, _ in D.TABLE]
    first_rule = min(codes.index(code) for code in RULE_CODES)
    assert set(codes[first_rule:]) == RULE_CODES
    assert [decision for code, decision in D.TABLE if code not in RULE_CODES] == ["review"] * first_rule


def test_every_row_is_reachable_its_code_made_by_a_check():
    """A doubt's code by a check in vision/cards; a rule's by its game's rules (RULE_CODES: made by calling them)."""
    made = set()
    for path in CARDS.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        table = [node for node in ast.walk(tree) if isinstance(node, ast.Assign)
                 and any(getattr(t, "id", "") == "TABLE" for t in node.targets)]
        skip = {id(n) for node in table for n in ast.walk(node)}
        made |= {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute) and id(node) not in skip
                 and getattr(node.value, "id", "") == "Code"}
    assert {code.name for code, _ in D.TABLE if code not in RULE_CODES} <= made


def test_the_first_row_holding_a_finding_decides_whatever_order_they_were_found_in():
    found = (why(Code.FAINT_INK, "mark", "X", score=0.2), why(Code.TWO_MARKS), why(Code.BLURRED))
    assert D.decide(found) == ("review", found[2])
    assert D.decide(found[:2]) == ("review", found[0])
    assert D.decide(found[1:2]) == ("invalid", found[1])
    assert D.decide(()) == ("counted", None)
    assert D.decide(tuple(D.rules("vote", {"mark": ["Y"]}))) == ("counted", None)


@needs_poppler
@pytest.mark.parametrize("card, decision, rule, found", [
    ("clean/vote/circle/0", "counted", None, []),
    ("clean/vote/two marks/0", "invalid", "two_marks", ["two_marks"]),
    ("clean/vote/pencil/1", "review", "faint_circle", ["faint_circle", "blank_vote"]),
    ("clean/robbery/two marks/0", "review", "line_touches", ["line_touches", "fields_not_one"]),
    ("hard/bluff_dice/two marks/0", "review", "faces_twice", ["faces_twice"]),
    # ink beside a line, not apart from it, is held however much of it there is (no second rule above 2x definite)
    ("hard/robbery/stray line/0", "review", "line_ink_beside", ["line_ink_beside"]),
    # the paper's own light taken out first: fewer faint; a shade's outline that does not rise out of it: none
    ("hard/inout/circle/0", "review", "glare_ring_inked", ["glare_ring_inked"]),
])
def test_a_golden_card_records_the_row_that_fired_and_every_finding(card, decision, rule, found):
    name, game, kind, tier, style = next(entry for entry in G.names() if entry[0] == card)
    image, _ = G.C.load(G.cached(name, game, kind, tier, style))
    result = G.scanners()[game].scan_image(image, name)
    assert (result.decision, result.reason_code) == (decision, rule)
    assert [f["code"] for f in result.findings] == found
    assert all(f["message"] for f in result.findings)
    assert all(f.get("measured") for f in result.findings if Code(f["code"]) not in RULE_CODES)     # what made it
    assert result.to_json().get("findings", []) == result.findings


def test_the_scanner_holds_fewer_thresholds_and_lines_than_before_the_table():
    """Fewer rules: 155 thresholds and 3,429 lines before the findings table (tests/vision/thresholds.py);
    one measured quantity and one threshold where several checks described one phenomenon (151 and 3,392
    after it; then 3 thresholds more for the paper's own light, measure.py's shade stage, and 68 lines
    more for the watched folder's pool of scanning processes in watch.py, and one check, 29 lines, for
    two marks that are one stroke: a scribble's loop into a neighbour, and 6 for measuring a faint circle
    against the other bubbles read blank only); then 150 and 3,462 with locate, scanner, watch and reasons
    leaner; then blank_ring gone, a ring inked over judged all round by its ink alone, and a neighbour's
    scribble running on read by where its stroke goes: 149 and 3,461; then 3,419 with what several places took
    again kept once (a bubble patch's pixels, the strokes' refit and width check); then 148 and 3,416 with a faint circle
    judged per ray by ink standing out of the paper on both sides; then 3,415 with glare in a bubble's disc
    (measure.glare_on: no threshold more); then 3,418 with a photo's name shown literally and its crop named and
    written by companion.core.review.save_crop (a name of bytes no UTF-8 crashed the process); then 3,428 with the
    watched folder that fails (a full disk, its stick pulled) said and tried again, not stopped for the night: still
    one line under the 3,429 before the table. A ratchet: never more again."""
    import thresholds
    counted = thresholds.count(CARDS)
    assert counted["thresholds"] <= 148 and counted["lines"] <= 3428, counted
