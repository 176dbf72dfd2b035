"""Why a card goes to review, is invalid or is ignored: one code per finding, with its message in Japanese and English.
The scanner's checks give Findings (a code, the bubble it concerns, the measured quantities its message names);
decide's table picks the one that decides, the Result keeps its code (reason_code) and English message (reason), which
the console, the journal and the review queue show, and every finding seen; `companion bench cards` counts the codes.
"""
from __future__ import annotations

from dataclasses import dataclass, field as default
from enum import StrEnum, auto


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


class Code(StrEnum):
    """A finding's code (its name in lower case) with its message in English and Japanese: a format string
    over the finding's values, or a function (values, lang) -> text."""

    def __new__(cls, code: str, english, japanese):
        member = str.__new__(cls, code)
        member._value_ = code
        member.messages = {"en": english, "ja": japanese}
        return member

    # the picture
    BLURRED = auto(), "too blurred to read the marks safely", "ぼやけていて印を確実に読めない"
    BUBBLES_UNSEEN = auto(), "cannot see the printed bubbles (washed out or misaligned)", "印刷の丸が見えない（白飛びか位置ずれ）"
    GLARE = auto(), "glare over bubble {value} ({field})", "{value} ({field}) の丸に反射光"
    GLARE_RING_INKED = (auto(), "glare over bubble {value} ({field}), its printed ring inked over: a mark drawn on it?",
                        "{value} ({field}) の丸に反射光、印刷の輪がなぞられている：印が描かれている？")
    GLARE_FAINT_MARK = (auto(), "glare over bubble {value} ({field}): a faint mark under it?",
                        "{value} ({field}) の丸に反射光：下に薄い印？")
    GLARE_BLANK_FIELD = (auto(), "glare over bubble {value} ({field}) in a field read blank: a mark under it?",
                         "未記入と読んだ欄の {value} ({field}) の丸に反射光：下に印？")
    GLARE_HALO = (auto(), "glare over bubble {value} ({field}): its mark, or the glare's halo?",
                  "{value} ({field}) の丸に反射光：印か、反射光のにじみか？")
    NOISY_BLANK = (auto(), "{field} read blank, but the picture is too noisy to see light pencil",
                   "{field} は未記入と読んだが、画像のノイズが多く薄い鉛筆が見えない")
    # lines
    LINE_TOUCHES = (auto(), "a line touches {value} ({field}): mark or stray stroke?",
                    "線が {value} ({field}) に触れている：印か、はみ出た線か？")
    LINE_INK_BESIDE = (auto(), "a line runs into {value} ({field}) with a little ink beside it: the line's or a mark?",
                       "線が {value} ({field}) に入り、横に少しインク：線のものか、印か？")
    LINE_OVER_INK = (auto(), "a line runs into {value} ({field}) over more ink than its own: a mark under it?",
                     "線が {value} ({field}) に入り、線より多いインクの上を通る：下に印？")
    LINE_THROUGH = (auto(), "a line runs through {value} ({field}): mark or stray stroke?",
                    "線が {value} ({field}) を通っている：印か、はみ出た線か？")
    BROKEN_LINE = (auto(), "a line in pieces runs through {value} ({field}): mark or stray stroke?",
                   "途切れた線が {value} ({field}) を通っている：印か、はみ出た線か？")
    # circles
    CIRCLE_ROUND_TWO = (auto(), "the circle round {circled} goes round {other} too: which is meant?",
                        "{circled} を囲む丸が {other} も囲んでいる：どちらの意図か？")
    CIRCLE_JOINED_INK = (auto(), "ink joined to the circle round {circled} fills the middle of {value} ({field}): "
                         "a mark of its own?",
                         "{circled} を囲む丸につながるインクが {value} ({field}) の中を埋めている：その丸自身の印？")
    CIRCLE_REACHES = (auto(), "the circle round {circled} reaches into {value} ({field}): which is meant?",
                      "{circled} を囲む丸が {value} ({field}) に入り込んでいる：どちらの意図か？")
    CIRCLE_OVER_INK = (auto(), "the circle round {circled} runs over ink in {value} ({field}): a mark under it?",
                       "{circled} を囲む丸が {value} ({field}) のインクの上を通る：下に印？")
    PART_CIRCLE = (auto(), "ink round {value} ({field}, {cover:.0%} of the way): part of a circle drawn round it?",
                   "{value} ({field}) の周りにインク（{cover:.0%}）：囲む丸の一部？")
    FAINT_CIRCLE = (auto(), "faint ink all round {value} ({field}): a light pencil circle?",
                    "{value} ({field}) の周り一周に薄いインク：薄い鉛筆の丸？")
    # marks
    UNCLEAR_MARK = (auto(), "unclear mark at {value} ({field}, score {score:.2f})",
                    "{value} ({field}) の印が不明瞭（スコア {score:.2f}）")
    CORRECTION = (auto(), "{count} marks in {field}, one filled in: maybe a correction",
                  "{field} に印が {count} つ、ひとつは塗りつぶし：訂正かもしれない")
    MARKS_JOINED = (auto(), "the marks in {field} are one stroke running from one bubble into the other: "
                    "a scribble reaching a neighbour, or two marks?",
                    "{field} の印がひと筆で隣の丸まで続いている：はみ出した線か、ふたつの印か？")
    FAINT_INK = (auto(), "faint ink at {value} ({field}, score {score:.2f}): a light mark?",
                 "{value} ({field}) に薄いインク（スコア {score:.2f}）：薄い印？")
    FAINT_INK_CLOSER = (auto(), "faint ink at {value} ({field}, {score:.2f} looked at closer): a light mark?",
                        "{value} ({field}) に薄いインク（詳しく見て {score:.2f}）：薄い印？")
    RING_INKED = (auto(), "the printed ring of {value} ({field}) is inked over: a mark drawn on it?",
                  "{value} ({field}) の印刷の輪がなぞられている：印が描かれている？")
    LABEL_INKED = (auto(), "the printed label {value} ({field}) looks inked over: a light mark drawn along it?",
                   "{value} ({field}) の印刷の文字がなぞられているように見える：薄い印？")
    SOFT_MARK = (auto(), "the mark at {value} ({field}) has a soft outline ({outline:.0%} of it sharp): a mark or a shade?",
                 "{value} ({field}) の印の輪郭がぼやけている（くっきりした縁 {outline:.0%}）：印か、影か？")
    # the rules' verdicts on what was read
    BLANK_VOTE = auto(), "blank: nothing marked (R6)", "白票：印がない (R6)"
    TWO_MARKS = auto(), "two marks (R6)", "印がふたつ (R6)"
    MANY_MARKS = auto(), "more than one mark (R6)", "印が複数 (R6)"
    BLANK_NUMBER = auto(), "blank: nothing marked (V7)", "白票：印がない (V7)"
    MANY_NUMBERS = auto(), "{count} numbers marked (V7)", "数字に {count} つ印 (V7)"
    FACES_TWICE = auto(), _faces, _faces
    NO_FACE = auto(), "no face marked", "どの面にも印がない"
    FIELDS_NOT_ONE = auto(), _marks, _marks
    NOTHING_TO_COUNT = auto(), "a {kind} card has nothing to count", "{kind} カードには数えるものがない"


@dataclass(frozen=True)
class Finding:
    """One thing seen on a card that the decision table rules on: its code, the field and bubble it concerns
    (if one) and the measured quantities that made it (those its message names)."""
    code: Code
    field: str | None = None
    value: str | None = None
    measured: dict = default(default_factory=dict)

    def message(self, lang: str = "en") -> str:
        if lang not in self.code.messages:
            raise ValueError(f"no messages in {lang!r}: en or ja")
        template = self.code.messages[lang]
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
