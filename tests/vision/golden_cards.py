"""The golden card corpus: a fixed set of printed cards (cut from `companion print cards` output,
rasterised by poppler: vision.sim.card_deck), marked in every style of the simulator's catalogue and
photographed on both tiers, with what the scanner decided on each, kept in golden/cards.jsonl.

Every Plunder Bingo kind in every style on both tiers (three votes, two robbery cards and one of
each special card a style and tier), and Voters' number cards and Auction Bluff's dice-vote and
declaration cards in every style on both tiers. Seeds are the corpus's own (not the bench's tuning
or reporting seeds). Cards are made once and cached beside the bench's corpus
(~/.cache/companion/cards-golden/...); a record is one line per card, sorted by card name.
"""
from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np

from vision.sim import card_bench, card_deck, card_photo, cards as C

SEED = 2929                 # the golden corpus's own: not the bench's (1 tuning, 89 and 97 reporting)
VERSION = 1                 # raise when the corpus's make-up changes: cached cards are made afresh
GOLDEN = Path(__file__).parent / "golden" / "cards.jsonl"
BINGO = {"vote": 3, "robbery": 2, "inout": 1, "change": 1, "exclusion": 1}     # cards a style and tier
GAMES = {"voters": ("number",), "bluff": ("bluff_dice", "bluff_declare")}
DIGITS = 2                  # scores rounded to this: coarse enough that float noise does not move them


@dataclass(frozen=True)
class Game:
    deck: card_deck.Deck
    event: str
    secret: str


@lru_cache(maxsize=None)
def games() -> dict[str, Game]:
    """The printed decks: Plunder Bingo's (the bench's), a Voters event's and an Auction Bluff event's."""
    out = {"bingo": Game(card_deck.deck(), card_deck.event_id(), card_deck.SECRET)}
    for game, option in (("voters", ["--games", "1"]), ("bluff", ["--periods", "1"])):
        out[game] = _printed(game, option)
    return out


def _printed(game: str, option: list[str]) -> Game:
    from reportlab import rl_config

    from companion.core import event_file
    rl_config.invariant = 1          # the same PDF each time: its raster is cut once (card_deck.of_pdf)
    with tempfile.TemporaryDirectory() as work:
        event, pdf = Path(work) / "event.toml", Path(work) / "cards.pdf"
        event.write_text(event_file.example(f"Golden {game}", 3, 7, f"golden-{game}-secret", game), encoding="utf-8")
        card_deck._companion(["print", "cards", "--event", str(event), "--out", str(pdf), *option])
        loaded = event_file.load(event)
        return Game(card_deck.of_pdf(pdf), loaded.id, loaded.secret)


def names() -> list[tuple[str, str, str, str, int]]:
    """(name, game, kind, tier, style) of every card of the corpus, sorted by name."""
    out = []
    for tier in ("clean", "hard"):
        for s, style in enumerate(C.STYLES):
            for kind, count in BINGO.items():
                out += [(f"{tier}/{kind}/{style}/{n}", "bingo", kind, tier, s) for n in range(count)]
            for game, kinds in GAMES.items():
                out += [(f"{tier}/{kind}/{style}/0", game, kind, tier, s) for kind in kinds]
    return sorted(out)


def make(game: Game, kind: str, tier: str, style_index: int, name: str) -> C.Sample:
    """One card of the corpus: depends only on the printed deck, the seed and its name."""
    n = int(name.rsplit("/", 1)[1])
    rng = np.random.default_rng([SEED, tier == "hard", style_index, list(card_deck.L.kinds()).index(kind), n])
    style = C.STYLES[style_index]
    if kind in C.KIND_WEIGHTS:
        return C.sample(game.deck, rng, tier, kinds=(kind,), styles=(style,))
    card = game.deck.of(kind)[0]
    picture = cv2.cvtColor(game.deck.raster(card), cv2.COLOR_GRAY2BGR).astype(np.float32)
    fields, _, _ = C.mark_card(rng, picture, kind, game.deck.bubbles[kind], style)
    truth = {"kind": kind, "serial": card.serial, "style": style, "fields": fields, "expected": expected(kind, fields)}
    image, capture = card_photo.take(rng, np.clip(picture, 0, 255).astype(np.uint8), tier == "hard")
    return C.Sample(image, truth, capture.get("jpeg"))


def expected(kind: str, fields: dict) -> str:
    """The decision the rules ask for on another game's card: a number card blank or marked twice is
    invalid (V7); a dice-vote card counts with rows left blank (AB7), the first row held blank too
    (what the scanner does with no face marked: review); a field marked twice is held."""
    if kind == "number":
        return "counted" if len(fields["number"]) == 1 else "invalid"
    if kind == "bluff_dice":
        return "counted" if all(len(v) <= 1 for v in fields.values()) and any(fields.values()) else "held"
    return C.expected(kind, fields, "ok")


def cached(name: str, game: str, kind: str, tier: str, style_index: int) -> Path:
    """The card's file (its truth beside it as JSON), made only once."""
    deck = games()[game].deck
    folder = card_deck.cache_root() / "cards-golden" / f"v{VERSION}-c{C.CORPUS_VERSION}-{deck.folder.name}"
    stem = folder / name.replace("/", "-").replace(" ", "_").replace("+", "and")
    found = [stem.with_suffix(s) for s in (".png", ".jpg") if stem.with_suffix(s).exists()]
    if found and stem.with_suffix(".json").exists():
        return found[0]
    folder.mkdir(parents=True, exist_ok=True)
    return C.save(make(games()[game], kind, tier, style_index, name), stem)


def scanners() -> dict:
    from vision.cards import Scanner, Settings
    settings = Settings(time_limit_ms=60_000)      # what is read, not how fast: a busy machine
    return {game: Scanner(g.event, g.secret, settings) for game, g in games().items()}


def record(name: str, result, truth: dict) -> dict:
    """What the golden file keeps of one card: the truth it is judged by, and what the scanner said (its
    reason as a code, and the message the console shows)."""
    return {"card": name, "expected": truth["expected"], "truth": truth["fields"], "decision": result.decision,
            "reason": result.reason_code, "message": result.reason, "fields": result.fields,
            "scores": {f: {v: round(x, DIGITS) for v, x in values.items()} for f, values in result.scores.items()}}


def run(progress=None) -> list[dict]:
    """Every card of the corpus scanned: its records, sorted by card name."""
    cv2.setNumThreads(1)
    by_game = scanners()
    out = []
    for name, game, kind, tier, style_index in names():
        path = cached(name, game, kind, tier, style_index)
        image, truth = C.load(path)
        out.append(record(name, by_game[game].scan_image(image, name), truth))
        if progress:
            progress(len(out))
    return out


# --- the golden file ----------------------------------------------------------------------------
def dump(records: list[dict]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False, separators=(", ", ": ")) + "\n" for r in records)


def read(path: Path = GOLDEN) -> dict[str, dict]:
    if not path.exists():
        return {}
    return {r["card"]: r for r in map(json.loads, path.read_text(encoding="utf-8").splitlines())}


def outcome(r: dict | None) -> str:
    """right | review | unread | wrong (a silent error) | absent, judged against the simulator's truth."""
    if r is None:
        return "absent"
    v = card_bench.verdict(SimpleNamespace(decision=r["decision"], fields=r["fields"]),
                           {"expected": r["expected"], "fields": r["truth"]})
    return {"review": "review", "unread": "unread", "silent error": "wrong"}.get(v, "right")


def moved(old: dict[str, dict], new: dict[str, dict]) -> dict[str, list[str]]:
    """Cards whose record changed, by class: 'right→review', 'review→right', 'right→wrong' (any
    '→wrong' is a silent error), ... or 'other' (the same outcome, another reason, field or score)."""
    out: dict[str, list[str]] = {}
    for name in sorted(old.keys() | new.keys()):
        before, after = old.get(name), new.get(name)
        if before == after:
            continue
        a, b = outcome(before), outcome(after)
        what = f"{a}→{b}" if a != b else "other"
        out.setdefault(what, []).append(f"{name}: {_change(before, after)}")
    return dict(sorted(out.items(), key=lambda kv: (not kv[0].endswith("wrong"), kv[0] == "other", kv[0])))


def _change(before: dict | None, after: dict | None) -> str:
    if before is None or after is None:
        return "new card" if before is None else "card gone"
    keys = [k for k in after if before.get(k) != after[k]]
    return "; ".join(f"{k} {_short(before.get(k))} → {_short(after[k])}" for k in keys)


def _short(value) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 120 else text[:117] + "..."


def report(classes: dict[str, list[str]], limit: int = 40) -> str:
    lines = []
    for what, cards in classes.items():
        lines.append(f"{what}: {len(cards)}")
        lines += [f"  {c}" for c in cards[:limit]] + ([f"  ... {len(cards) - limit} more"] if len(cards) > limit else [])
    return "\n".join(lines)


def update_asked() -> bool:
    return os.environ.get("UPDATE_GOLDEN", "") not in ("", "0")
