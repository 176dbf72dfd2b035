"""Why a card goes to review, is invalid or is ignored: one code per finding, with its message in
Japanese and English. The scanner's checks give Findings (a code, the bubble it concerns, the measured
quantities its message names); decide's table picks the one that decides, the Result keeps its code
(reason_code) and English message (reason), which the console, the journal and the review queue show,
and every finding seen; `companion bench cards` counts the codes.
"""
from __future__ import annotations

from dataclasses import dataclass, field as default
from enum import Enum


class Code(str, Enum):
    # the picture
    BLURRED = "blurred"
    BUBBLES_UNSEEN = "bubbles_unseen"
    GLARE = "glare"
    GLARE_RING_INKED = "glare_ring_inked"
    GLARE_FAINT_MARK = "glare_faint_mark"
    GLARE_BLANK_FIELD = "glare_blank_field"
    GLARE_HALO = "glare_halo"
    NOISY_BLANK = "noisy_blank"
    # lines
    LINE_TOUCHES = "line_touches"
    LINE_INK_BESIDE = "line_ink_beside"
    LINE_OVER_INK = "line_over_ink"
    LINE_THROUGH = "line_through"
    BROKEN_LINE = "broken_line"
    # circles
    CIRCLE_ROUND_TWO = "circle_round_two"
    CIRCLE_JOINED_INK = "circle_joined_ink"
    CIRCLE_REACHES = "circle_reaches"
    CIRCLE_OVER_INK = "circle_over_ink"
    PART_CIRCLE = "part_circle"
    FAINT_CIRCLE = "faint_circle"
    # marks
    UNCLEAR_MARK = "unclear_mark"
    CORRECTION = "correction"
    MARKS_JOINED = "marks_joined"
    FAINT_INK = "faint_ink"
    FAINT_INK_CLOSER = "faint_ink_closer"
    RING_INKED = "ring_inked"
    LABEL_INKED = "label_inked"
    # the rules' verdicts on what was read
    BLANK_VOTE = "blank_vote"
    TWO_MARKS = "two_marks"
    MANY_MARKS = "many_marks"
    BLANK_NUMBER = "blank_number"
    MANY_NUMBERS = "many_numbers"
    FACES_TWICE = "faces_twice"
    NO_FACE = "no_face"
    FIELDS_NOT_ONE = "fields_not_one"
    NOTHING_TO_COUNT = "nothing_to_count"


BUBBLES = ("circled", "other")      # values naming bubbles by their keys (field, value)


def _bubbles(keys, lang: str) -> str:
    """Bubbles named as the messages name one: '1 (ball) and 2 (ball)'."""
    return ("と" if lang == "ja" else " and ").join(f"{value} ({name})" for name, value in keys)


def _counts(counts, lang: str, none: tuple[str, str], some: tuple[str, str]) -> str:
    """'field: no mark; other: 2 marks' for (field, count) pairs."""
    ja = lang == "ja"
    return "; ".join(f"{name}: " + ((none[ja]) if not n else some[ja].format(n=n)) for name, n in counts)


def _faces(values: dict, lang: str) -> str:
    return _counts(values["counts"], lang, ("", ""), ("{n} faces", "{n} 面"))


def _marks(values: dict, lang: str) -> str:
    return _counts(values["counts"], lang, ("no mark", "印なし"), ("{n} marks", "印 {n} つ"))


# code -> (English, Japanese): a format string over the reason's values, or a function (values, lang) -> text
MESSAGES = {
    Code.BLURRED: ("too blurred to read the marks safely", "ぼやけていて印を確実に読めない"),
    Code.BUBBLES_UNSEEN: ("cannot see the printed bubbles (washed out or misaligned)",
                          "印刷の丸が見えない（白飛びか位置ずれ）"),
    Code.GLARE: ("glare over bubble {value} ({field})", "{value} ({field}) の丸に反射光"),
    Code.GLARE_RING_INKED: ("glare over bubble {value} ({field}), its printed ring inked over: a mark drawn on it?",
                            "{value} ({field}) の丸に反射光、印刷の輪がなぞられている：印が描かれている？"),
    Code.GLARE_FAINT_MARK: ("glare over bubble {value} ({field}): a faint mark under it?",
                            "{value} ({field}) の丸に反射光：下に薄い印？"),
    Code.GLARE_BLANK_FIELD: ("glare over bubble {value} ({field}) in a field read blank: a mark under it?",
                             "未記入と読んだ欄の {value} ({field}) の丸に反射光：下に印？"),
    Code.GLARE_HALO: ("glare over bubble {value} ({field}): its mark, or the glare's halo?",
                      "{value} ({field}) の丸に反射光：印か、反射光のにじみか？"),
    Code.NOISY_BLANK: ("{field} read blank, but the picture is too noisy to see light pencil",
                       "{field} は未記入と読んだが、画像のノイズが多く薄い鉛筆が見えない"),
    Code.LINE_TOUCHES: ("a line touches {value} ({field}): mark or stray stroke?",
                        "線が {value} ({field}) に触れている：印か、はみ出た線か？"),
    Code.LINE_INK_BESIDE: ("a line runs into {value} ({field}) with a little ink beside it: the line's or a mark?",
                           "線が {value} ({field}) に入り、横に少しインク：線のものか、印か？"),
    Code.LINE_OVER_INK: ("a line runs into {value} ({field}) over more ink than its own: a mark under it?",
                         "線が {value} ({field}) に入り、線より多いインクの上を通る：下に印？"),
    Code.LINE_THROUGH: ("a line runs through {value} ({field}): mark or stray stroke?",
                        "線が {value} ({field}) を通っている：印か、はみ出た線か？"),
    Code.BROKEN_LINE: ("a line in pieces runs through {value} ({field}): mark or stray stroke?",
                       "途切れた線が {value} ({field}) を通っている：印か、はみ出た線か？"),
    Code.CIRCLE_ROUND_TWO: ("the circle round {circled} goes round {other} too: which is meant?",
                            "{circled} を囲む丸が {other} も囲んでいる：どちらの意図か？"),
    Code.CIRCLE_JOINED_INK: ("ink joined to the circle round {circled} fills the middle of {value} ({field}): "
                             "a mark of its own?",
                             "{circled} を囲む丸につながるインクが {value} ({field}) の中を埋めている：その丸自身の印？"),
    Code.CIRCLE_REACHES: ("the circle round {circled} reaches into {value} ({field}): which is meant?",
                          "{circled} を囲む丸が {value} ({field}) に入り込んでいる：どちらの意図か？"),
    Code.CIRCLE_OVER_INK: ("the circle round {circled} runs over ink in {value} ({field}): a mark under it?",
                           "{circled} を囲む丸が {value} ({field}) のインクの上を通る：下に印？"),
    Code.PART_CIRCLE: ("ink round {value} ({field}, {cover:.0%} of the way): part of a circle drawn round it?",
                       "{value} ({field}) の周りにインク（{cover:.0%}）：囲む丸の一部？"),
    Code.FAINT_CIRCLE: ("faint ink all round {value} ({field}): a light pencil circle?",
                        "{value} ({field}) の周り一周に薄いインク：薄い鉛筆の丸？"),
    Code.UNCLEAR_MARK: ("unclear mark at {value} ({field}, score {score:.2f})",
                        "{value} ({field}) の印が不明瞭（スコア {score:.2f}）"),
    Code.CORRECTION: ("{count} marks in {field}, one filled in: maybe a correction",
                      "{field} に印が {count} つ、ひとつは塗りつぶし：訂正かもしれない"),
    Code.MARKS_JOINED: ("the marks in {field} are one stroke running from one bubble into the other: "
                        "a scribble reaching a neighbour, or two marks?",
                        "{field} の印がひと筆で隣の丸まで続いている：はみ出した線か、ふたつの印か？"),
    Code.FAINT_INK: ("faint ink at {value} ({field}, score {score:.2f}): a light mark?",
                     "{value} ({field}) に薄いインク（スコア {score:.2f}）：薄い印？"),
    Code.FAINT_INK_CLOSER: ("faint ink at {value} ({field}, {score:.2f} looked at closer): a light mark?",
                            "{value} ({field}) に薄いインク（詳しく見て {score:.2f}）：薄い印？"),
    Code.RING_INKED: ("the printed ring of {value} ({field}) is inked over: a mark drawn on it?",
                      "{value} ({field}) の印刷の輪がなぞられている：印が描かれている？"),
    Code.LABEL_INKED: ("the printed label {value} ({field}) looks inked over: a light mark drawn along it?",
                       "{value} ({field}) の印刷の文字がなぞられているように見える：薄い印？"),
    Code.BLANK_VOTE: ("blank: nothing marked (R6)", "白票：印がない (R6)"),
    Code.TWO_MARKS: ("two marks (R6)", "印がふたつ (R6)"),
    Code.MANY_MARKS: ("more than one mark (R6)", "印が複数 (R6)"),
    Code.BLANK_NUMBER: ("blank: nothing marked (V7)", "白票：印がない (V7)"),
    Code.MANY_NUMBERS: ("{count} numbers marked (V7)", "数字に {count} つ印 (V7)"),
    Code.FACES_TWICE: (_faces,) * 2,
    Code.NO_FACE: ("no face marked", "どの面にも印がない"),
    Code.FIELDS_NOT_ONE: (_marks,) * 2,
    Code.NOTHING_TO_COUNT: ("a {kind} card has nothing to count", "{kind} カードには数えるものがない"),
}


@dataclass(frozen=True)
class Finding:
    """One thing seen on a card that the decision table rules on: its code, the field and bubble it concerns
    (if one) and the measured quantities that made it (those its message names)."""
    code: Code
    field: str | None = None
    value: str | None = None
    measured: dict = default(default_factory=dict)

    def message(self, lang: str = "en") -> str:
        if lang not in ("en", "ja"):
            raise ValueError(f"no messages in {lang!r}: en or ja")
        template = MESSAGES[self.code][lang == "ja"]
        if callable(template):
            return template(self.measured, lang)
        named = {k: _bubbles(v, lang) if k in BUBBLES else v for k, v in self.measured.items()}
        return template.format(field=self.field, value=self.value, **named)

    def to_json(self) -> dict:
        """What the console and the bench show of it: code, where, what was measured (numbers to 3 places)
        and the message."""
        measured = {k: round(float(v), 3) if isinstance(v, float) or hasattr(v, "dtype") else v
                    for k, v in self.measured.items()}
        return {k: v for k, v in (("code", self.code.value), ("field", self.field), ("value", self.value),
                                  ("measured", measured), ("message", self.message())) if v not in (None, {})}

    def __str__(self) -> str:
        return self.message()


def why(code: Code, field: str | None = None, value: str | None = None, **measured) -> Finding:
    return Finding(code, field, value, measured)


def at(key: tuple[str, str]) -> dict:
    """The values naming a bubble (field, value) in a message."""
    return {"field": key[0], "value": key[1]}
