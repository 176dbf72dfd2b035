"""Every number in the event file is range-checked on load: out of range, NaN, infinity or the wrong
type is one line naming the file, the line, [section] key, the range and the value."""
from __future__ import annotations

import json
import re

import pytest

from companion.core import event_file
from companion.core import games

# (game, section, key): a value under the range, one over it. [cards] is checked by the card scanner's
# own table (vision/cards/tuning.py, tests/vision/test_card_tuning.py).
LIMITS = {
    ("bingo", "players", "no"): (0, 100),
    ("bingo", "serial", "baud"): (0, 10_000_000),
    ("bingo", "serial", "raw_repeat_seconds"): (-1, 86_400),
    **{("bingo", "panel", pin): (-2, 28) for pin in ("beam", "draw", "close", "undo", "buzzer", "motor",
                                                   "led_ok", "led_fault")},
    ("bingo", "panel", "motor_seconds"): (-0.5, 600),
    ("bingo", "panel", "bounce_ms"): (-1, 5000),
    ("bingo", "panel", "undo_hold_seconds"): (-1, 60),
    ("bingo", "panel", "warn_seconds"): (-1, 86_400),
    ("bingo", "camera", "width"): (0, 100_000),
    ("bingo", "camera", "height"): (-480, 100_000),
    ("bingo", "camera", "fps"): (0, 500),
    ("bingo", "camera", "fov"): (5, 180),
    ("bingo", "camera", "window_ms"): (0, 3_600_000),
    ("bingo", "camera", "agree"): (0, 1000),
    ("bingo", "camera", "gone_ms"): (0, 3_600_000),
    ("bingo", "camera", "ball_diameter"): (5, 500),
    ("bingo", "camera", "workers"): (0, 1000),
    ("bingo", "camera", "fall_deg"): (-181, 361),
    ("bingo", "camera", "exposure_us"): (5, 2_000_000),
    ("bingo", "camera", "gain"): (0.5, 40.0),
    ("bingo", "rules", "turns"): (0, 100),
    ("bingo", "rules", "turn_seconds"): (0, 86_401),
}


def numeric_keys() -> set:
    """Every (game, section, key) of a number in a game's event file, [cards] and the version aside."""
    found = set()
    for game in games.GAMES:
        sections, _ = event_file._keys(games.rules(game).event)
        own = games.rules(game).event.sections
        for section, keys in sections.items():
            for key, (kind, _) in keys.items():
                shared = key not in own.get(section, {})
                if kind in (int, float) and section not in ("", "cards") and (game == "bingo" or not shared):
                    found.add((game, section, key))
    return found


def test_the_limits_here_cover_every_number_of_every_game():
    assert set(LIMITS) == numeric_keys()


def with_setting(tmp_path, game: str, section: str, key: str, value: str):
    """`companion init`'s file for the game with section.key = value; the path and that line's number."""
    text = event_file.example("Night 1", games.rules(game).event.players, 1, "s3cret", game)
    lines = text.splitlines()
    given = [i for i, line in enumerate(lines, 1) if line.startswith(f"{key} = ")]
    if given:                           # in the example already (a player's number, the turns)
        number = given[0]
        lines[number - 1] = f"{key} = {value}"
    elif f"[{section}]" in lines:
        number = lines.index(f"[{section}]") + 2
        lines.insert(number - 1, f"{key} = {value}")
    else:
        lines += [f"[{section}]", f"{key} = {value}"]
        number = len(lines)
    path = tmp_path / "event.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path, number


def bad_values(game, section, key):
    low, high = LIMITS[game, section, key]
    kind = event_file._keys(games.rules(game).event)[0][section][key][0]
    wrong = ['"3"', "true", "[3]"] + (["1.5", "nan"] if kind is int else [])
    out = [str(low), str(high)] + (["nan", "inf", "-inf"] if kind is float else [])
    return [(game, section, key, value, "range") for value in out] + \
        [(game, section, key, value, "type") for value in wrong]


@pytest.mark.parametrize("game, section, key, value, why",
                         [case for limits in sorted(LIMITS) for case in bad_values(*limits)])
def test_a_number_out_of_range_or_of_the_wrong_type_names_file_line_key_and_range(tmp_path, game, section, key,
                                                                                 value, why):
    path, number = with_setting(tmp_path, game, section, key, value)
    with pytest.raises(event_file.EventFileError) as raised:
        event_file.load(path)
    message = str(raised.value)
    assert "\n" not in message
    expected = rf"must be -?\d[\d.]* to -?\d[\d.]*, not " if why == "range" else r"must be (int|float), not "
    assert re.fullmatch(rf"{re.escape(str(path))}:{number}: \[{section}\] {key} {expected}.+", message), message


@pytest.mark.parametrize("game", list(games.GAMES))
def test_the_ends_of_every_range_are_allowed(tmp_path, game):
    for (owner, section, key), _ in LIMITS.items():
        if owner != game and not (owner == "bingo" and section in event_file.SECTIONS):
            continue
        kind = event_file._keys(games.rules(game).event)[0][section][key][0]
        limits = event_file._keys(games.rules(game).event)[0][section][key][1]
        for value in (limits.low, limits.high):
            number = int(value) if kind is int else float(value)
            path, _ = with_setting(tmp_path, game, section, key, repr(number))
            event_file.load(path)


@pytest.mark.parametrize("key, value", [
    ("roi", "[1]"), ("roi", "[-1, 0, 100, 100]"), ("roi", "[0, 0, 8, 100]"), ("roi", "[0, 0, 100, 100.5]"),
    ("roi", "[0, 0, 100, 20000]"), ("roi", '[0, 0, 100, "100"]'), ("roi", "[0, 0, 100, true]"),
    ("ball_distance", "[80]"), ("ball_distance", "[0, 100]"), ("ball_distance", "[80, nan]"),
    ("ball_distance", "[80, inf]"), ("ball_distance", '["80", 100]'), ("ball_distance", "[80, 100, 120]")])
def test_a_list_of_numbers_is_checked_number_by_number(tmp_path, key, value):
    path, number = with_setting(tmp_path, "bingo", "camera", key, value)
    with pytest.raises(event_file.EventFileError) as raised:
        event_file.load(path)
    assert re.fullmatch(rf"{re.escape(str(path))}:{number}: \[camera\] {key} must be \d (int|float)s: .+, not \[.*\]",
                        str(raised.value)), raised.value


@pytest.mark.parametrize("key, value", [("roi", "[0, 0, 16, 10000]"), ("ball_distance", "[5, 5000.0]")])
def test_a_list_of_numbers_within_its_ranges_loads(tmp_path, key, value):
    path, _ = with_setting(tmp_path, "bingo", "camera", key, value)
    assert event_file.load(path).sections["camera"][key] == json.loads(value)


@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
def test_a_number_ranged_by_the_card_scanner_is_refused_on_load_if_not_finite(tmp_path, value):
    path, number = with_setting(tmp_path, "bingo", "cards", "marginal", value)
    with pytest.raises(event_file.EventFileError) as raised:
        event_file.load(path)
    assert str(raised.value) == f"{path}:{number}: [cards] marginal must be a finite number, not {float(value)!r}"


@pytest.mark.parametrize("game", list(games.GAMES))
@pytest.mark.parametrize("value, fault", [('"Aki\\u001b[2J"', r"holds the control character '\\x1b'"),
                                          ('"two\\nlines"', r"holds the control character '\\n'"),
                                          ('"' + "名" * 1001 + '"', r"is too long: 1,001 characters \(at most 1,000\)")])
def test_a_name_no_command_may_hold_names_file_line_and_why(tmp_path, game, value, fault):
    """A name the setup command would refuse (companion start said it in a traceback) is refused on load, on its line."""
    path, number = with_setting(tmp_path, game, "players", "name", value)
    with pytest.raises(event_file.EventFileError) as raised:
        event_file.load(path)
    message = str(raised.value)
    assert "\n" not in message and "\x1b" not in message
    assert re.fullmatch(rf"{re.escape(str(path))}:{number}: \[(event|players)\] name: the text .+ {fault}", message), message
