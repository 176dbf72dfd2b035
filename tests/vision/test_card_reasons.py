"""Reasons as codes: each reason the scanner gives for review, invalid or ignored is a code
(vision.cards.reasons.Code) with its message in English and Japanese; the Result keeps both (the
message where the console, journal and review queue read it), the bench counts codes."""
import json
import re
from types import SimpleNamespace

import cv2
import pytest

import printed_cards as P
from vision.cards import Result
from vision.cards.reasons import Code, why
from vision.sim import card_bench

cv2.setNumThreads(1)


def values(code: Code) -> dict:
    """Values enough for any message (those it does not name are ignored)."""
    return {"field": "ball", "value": "7", "score": 0.41, "cover": 0.5, "count": 2, "kind": "bingo",
            "circled": (("ball", "3"),), "other": (("ball", "4"),), "counts": [("ball", 0), ("cell", 2)],
            "outline": 0.3}


@pytest.mark.parametrize("code", list(Code))
def test_every_code_has_a_message_in_english_and_japanese(code):
    reason = why(code, **values(code))
    english, japanese = reason.message("en"), reason.message("ja")
    assert english and japanese and english != japanese and str(reason) == english
    assert "{" not in english + japanese
    assert re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", japanese), japanese      # in Japanese, not a copy


def test_messages_name_what_they_are_about():
    assert why(Code.UNCLEAR_MARK, field="mark", value="X", score=0.4567).message() == "unclear mark at X (mark, score 0.46)"
    assert why(Code.UNCLEAR_MARK, field="mark", value="X", score=0.4567).message("ja") == "X (mark) の印が不明瞭（スコア 0.46）"
    assert why(Code.FIELDS_NOT_ONE, counts=[("robber_units", 0), ("ordinal", 2)]).message() == \
        "robber_units: no mark; ordinal: 2 marks"
    assert why(Code.CIRCLE_REACHES, circled=(("mark", "X"), ("mark", "Y")), field="mark", value="Z").message() == \
        "the circle round X (mark) and Y (mark) reaches into Z (mark): which is meant?"
    assert why(Code.CIRCLE_ROUND_TWO, circled=[("mark", "X")], other=[("mark", "Y")]).message() == \
        "the circle round X (mark) goes round Y (mark) too: which is meant?"
    with pytest.raises(ValueError, match="no messages in 'fr'"):
        why(Code.BLURRED).message("fr")


def test_a_result_keeps_the_code_and_the_message_the_console_shows():
    result = Result("card.png", "invalid")
    result.explain(why(Code.TWO_MARKS))
    assert (result.reason_code, result.reason) == ("two_marks", "two marks (R6)")
    assert json.loads(json.dumps(result.to_json()))["reason_code"] == "two_marks"
    result.explain(None)
    assert result.reason is None and "reason_code" not in result.to_json()


@P.needs_poppler
def test_a_printed_vote_with_two_marks_is_invalid_with_its_code(scanner):
    picture = P.printed(P.card("vote"))
    for value in ("X", "Z"):
        P.ring(picture, P.bubble("vote", "mark", value), 1.3)
    result = scanner.scan_image(P.photo(picture))
    assert (result.decision, result.reason_code, result.reason) == ("invalid", "two_marks", "two marks (R6)")


@P.needs_poppler
def test_a_held_card_carries_the_message_and_the_result_its_code(scanner):
    picture = P.printed(P.card("inout"))
    P.ring(picture, P.bubble("inout", "dir", "IN"), 1.3)        # no ball marked: the operator looks
    result = scanner.scan_image(P.photo(picture))
    assert (result.decision, result.reason_code) == ("review", "fields_not_one"), result
    assert result.command["do"] == "hold" and result.command["reason"] == result.reason
    assert result.reason.startswith("ball") and "no mark" in result.reason
    assert result.command["findings"] == [{"code": f["code"], "message": f["message"]} for f in result.findings]


def test_the_bench_counts_review_reasons_by_code():
    tally = card_bench.Tally()
    truth = {"kind": "vote", "style": "circle", "expected": "counted", "fields": {"mark": ["X"]}}
    for score in (0.41, 0.52):
        result = SimpleNamespace(decision="review", fields={"mark": []}, reason_code="unclear_mark", ms=1.0,
                                 reason=f"unclear mark at X (mark, score {score})")
        tally.add(result, truth, 0, photo=False)
    assert tally.reasons == {"unclear_mark": 2}
