"""The staff panel (drivers/panel.py) on gpiozero's MockFactory."""
import re
import time
import tomllib
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from companion.core import event_file
from drivers.panel import BUTTON_COMMANDS, Panel, PanelConfig, PanelError, make_factory

QUICK = PanelConfig(bounce_ms=0, motor_seconds=0.15, undo_hold_seconds=0.1)


@pytest.fixture
def rig():
    factory = MockFactory()
    pressed, beams = [], []
    with Panel(QUICK, pin_factory=factory, on_button=pressed.append, on_beam=beams.append) as panel:
        yield panel, factory, pressed, beams


def pulse(pin, seconds=0.0):
    pin.drive_low()
    time.sleep(seconds)
    pin.drive_high()


def wait(condition, seconds=10.0):
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def test_each_break_of_the_beam_counts_a_ball_and_opens_a_read_window(rig):
    panel, factory, _, beams = rig
    for _ in range(3):
        pulse(factory.pin(17))
    assert beams == [1, 2, 3] and panel.balls == 3


def test_draw_spins_the_motor_for_its_seconds_and_a_second_press_meanwhile_is_the_same_draw():
    # A motor run long enough that a loaded machine still presses again while it turns.
    factory, pressed = MockFactory(), []
    config = PanelConfig(bounce_ms=0, motor_seconds=1.0, undo_hold_seconds=0.1)
    with Panel(config, pin_factory=factory, on_button=pressed.append):
        motor = factory.pin(16)
        pulse(factory.pin(5))
        assert pressed == ["draw"]
        wait(lambda: len(motor.states) >= 2)
        pulse(factory.pin(5))
        assert pressed == ["draw"]
        wait(lambda: len(motor.states) >= 3, seconds=30)
        assert [s.state for s in motor.states] == [False, True, False]
        assert 1.0 <= motor.states[2].timestamp < 10
        pulse(factory.pin(5))
        assert pressed == ["draw", "draw"]


def test_close_posts_at_once_and_undo_only_when_held(rig):
    panel, factory, pressed, _ = rig
    pulse(factory.pin(6))
    pulse(factory.pin(13))                    # a brush against Undo does nothing
    assert pressed == ["close"]
    pulse(factory.pin(13), 0.25)
    assert pressed == ["close", "undo"]
    assert [BUTTON_COMMANDS[name] for name in pressed] == [{"do": "close_voting"}, {"do": "undo"}]


def test_undo_on_a_plain_press_when_no_hold_is_set():
    factory, pressed = MockFactory(), []
    with Panel(PanelConfig(bounce_ms=0, undo_hold_seconds=0), pin_factory=factory, on_button=pressed.append):
        pulse(factory.pin(13))
    assert pressed == ["undo"]


def test_bounce_time_reaches_the_pins():
    # MockPin does not filter bounce itself (the real pin drivers do): check it is asked for.
    factory = MockFactory()
    with Panel(PanelConfig(bounce_ms=50), pin_factory=factory):
        assert [factory.pin(n).bounce for n in (17, 5, 6, 13)] == [0.05] * 4


def test_buzzer_warns_at_30_seconds_and_sounds_time_up_once_each(rig):
    panel, factory, _, _ = rig
    buzzer = factory.pin(12)
    for remaining in (300, 120, 31):
        panel.update_turn(remaining)
    assert not buzzer.states[1:]
    panel.update_turn(30)
    panel.update_turn(29)
    wait(lambda: len(buzzer.states) >= 7)
    time.sleep(0.2)
    assert [s.state for s in buzzer.states] == [False] + [True, False] * 3          # three short beeps
    assert all(0.1 <= s.timestamp < 1.0 for s in buzzer.states[2:])        # short beside the long one, on a loaded machine too
    buzzer.clear_states()
    panel.update_turn(0)
    panel.update_turn(-1)
    wait(lambda: len(buzzer.states) >= 3, 30)
    assert [s.state for s in buzzer.states] == [False, True, False]
    assert buzzer.states[2].timestamp >= 1.4                                          # one long beep
    buzzer.clear_states()
    panel.update_turn(300)                   # the next turn starts: the signals are due again
    panel.update_turn(25)
    wait(lambda: len(buzzer.states) >= 2)


def test_leds_show_the_link(rig):
    panel, factory, _, _ = rig
    panel.show_link(True)
    assert factory.pin(20).state and not factory.pin(21).state
    panel.show_link(False)
    wait(lambda: factory.pin(21).state)
    assert not factory.pin(20).state
    panel.show_link(True)
    assert factory.pin(20).state and not factory.pin(21).state


def test_pins_not_fitted_are_left_alone():
    factory = MockFactory()
    config = PanelConfig(motor=-1, buzzer=-1, led_fault=-1, bounce_ms=0)
    pressed = []
    with Panel(config, pin_factory=factory, on_button=pressed.append) as panel:
        pulse(factory.pin(5))
        panel.update_turn(10)
        panel.show_link(False)
    assert pressed == ["draw"] and factory.pin(16).function == "input"


def test_closing_releases_the_pins():
    factory = MockFactory()
    Panel(QUICK, pin_factory=factory).close()
    Panel(QUICK, pin_factory=factory).close()   # would raise GPIOPinInUse if the first held on


@pytest.mark.parametrize("section, message", [
    ({"draw": 17}, "draw = 17: pin 17 is already beam"),
    ({"buzzer": 40}, r"\[panel\] buzzer must be -1 to 27, not 40"),
    ({"motor_seconds": -1.0}, r"\[panel\] motor_seconds must be 0 to 60, not -1.0"),
    ({"lamp": 3}, "unknown key 'lamp'"),
])
def test_bad_pin_maps_say_what(section, message):
    with pytest.raises(PanelError, match=message):
        PanelConfig.from_section(section)


def test_from_config_with_the_mock_factory():
    with Panel.from_config({"pin_factory": "mock", "beam": 4}) as panel:
        assert panel.beam.pin.info.name == "GPIO4"
    with pytest.raises(PanelError, match="not installed"):
        make_factory("nosuch")


def test_the_event_file_takes_serial_and_panel_sections(tmp_path):
    base = event_file.example("Night", 2, 1, "s" * 32)
    path = tmp_path / "event.toml"
    path.write_text(base + '\n[serial]\nurl = "/dev/plunder-cage"\nmode = "raw"\nraw_repeat_seconds = 2\n'
                    '\n[panel]\npin_factory = "mock"\nbeam = 4\nmotor_active_high = false\nmotor_seconds = 2.5\n')
    loaded = event_file.load(path)
    assert loaded.sections["serial"]["mode"] == "raw"
    assert PanelConfig.from_section(loaded.sections["panel"]).motor_active_high is False
    path.write_text(base + '\n[panel]\nbeam = 4\nbuzer = 5\n')
    with pytest.raises(event_file.EventFileError, match=r"event.toml:\d+: unknown key 'buzer' in \[panel\]"):
        event_file.load(path)
    path.write_text(base + '\n[serial]\nmode = "hex"\n')
    with pytest.raises(event_file.EventFileError, match="mode must be one of 'framed', 'raw'"):
        event_file.load(path)


WIRING = Path(__file__).resolve().parents[2] / "hardware" / "WIRING.md"


def test_wiring_md_shows_the_defaults_in_the_code():
    text = WIRING.read_text()
    table = dict(re.findall(r"^\| `(\w+)` \| (\d+) \|", text, re.M))
    defaults = PanelConfig()
    assert table == {name: str(getattr(defaults, name)) for name in ("beam", "draw", "close", "undo", "buzzer",
                                                                     "motor", "led_ok", "led_fault")}
    example = tomllib.loads(re.search(r"```toml\n(.*?)```", text, re.S).group(1))["panel"]
    assert PanelConfig.from_section(example) == defaults
