"""The staff panel on the Pi's GPIO (gpiozero): break-beam at the cage exit, Draw / Close
voting / Undo buttons, a buzzer for the turn clock, the cage motor relay and two status LEDs.

The panel holds no rules: buttons call on_button(name) and the caller submits the command
(BUTTON_COMMANDS maps close and undo to theirs; a draw needs the balls read first). The
beam calls on_beam(count) as each ball passes, to open the ball reader's window. Pins come
from the event file's [panel] section; hardware/WIRING.md shows the default map. Tests
inject gpiozero's MockFactory as pin_factory.
"""
from __future__ import annotations

import time
import warnings
from dataclasses import dataclass
from importlib.metadata import entry_points

from gpiozero import LED, Button, Buzzer, DigitalInputDevice, DigitalOutputDevice, GPIOZeroError, PinFactoryFallback

from . import settings

NOT_FITTED = -1
PINS = ("beam", "draw", "close", "undo", "buzzer", "motor", "led_ok", "led_fault")
BUTTONS = ("draw", "close", "undo")
BUTTON_COMMANDS = {"close": {"do": "close_voting"}, "undo": {"do": "undo"}}
WARN_BEEPS = (0.15, 0.15, 3)     # on, off, count: the turn has warn_seconds left
TIME_UP_BEEPS = (1.5, 0.0, 1)    # the turn's time is up


class PanelError(ValueError):
    pass


@dataclass(frozen=True)
class PanelConfig:
    """Defaults are the wiring in hardware/WIRING.md (BCM numbers)."""
    pin_factory: str = ""          # "" = gpiozero's default (lgpio on a Pi 5); "mock" for a laptop
    beam: int = 17
    draw: int = 5
    close: int = 6
    undo: int = 13
    buzzer: int = 12
    motor: int = 16
    led_ok: int = 20
    led_fault: int = 21
    motor_seconds: float = 3.0     # the cage turns this long on Draw
    motor_active_high: bool = True  # False for relay boards that switch on a low input
    bounce_ms: int = 30
    undo_hold_seconds: float = 1.0  # Undo must be held this long (0: a press is enough)
    warn_seconds: int = 30

    @classmethod
    def from_section(cls, section: dict) -> "PanelConfig":
        """From the event file's [panel] section; raises PanelError naming the key."""
        config = settings.from_section(cls, section, "panel", PanelError)
        used: dict[int, str] = {}
        for name in PINS:
            pin = getattr(config, name)
            if pin in used:
                raise PanelError(f"[panel] {name} = {pin}: pin {pin} is already {used[pin]}")
            if pin != NOT_FITTED:
                used[pin] = name
        return config


def make_factory(name: str):
    """A gpiozero pin factory by name ("mock", "lgpio", ...), or None for gpiozero's default."""
    if not name:
        return None
    found = entry_points(group="gpiozero_pin_factories", name=name)
    if not found:
        raise PanelError(f"[panel] pin_factory {name!r} is not installed")
    try:
        return next(iter(found)).load()()
    except (ImportError, GPIOZeroError, OSError) as error:
        raise PanelError(f"[panel] pin_factory {name!r} cannot start: {error}") from None


class Panel:
    """with Panel(config, pin_factory=MockFactory(), on_button=..., on_beam=...) as panel: ..."""

    def __init__(self, config: PanelConfig = PanelConfig(), *, pin_factory=None, on_button=None, on_beam=None):
        self.config = config
        self.balls = 0                   # balls through the beam since the panel started
        self._factory = pin_factory
        self._on_button = on_button or (lambda name: None)
        self._on_beam = on_beam or (lambda count: None)
        self._spin_until = 0.0
        self._signalled: set[str] = set()
        self._link_ok: bool | None = None
        self._devices = []
        try:
            with warnings.catch_warnings():
                # gpiozero warns of each default pin factory it cannot load (lgpio, RPi, pigpio,
                # native) before it gives up; the one line below says what matters
                warnings.simplefilter("ignore", PinFactoryFallback)
                self._build()
        except GPIOZeroError as error:
            self.close()
            raise PanelError(f"[panel] GPIO: {error}") from None

    @classmethod
    def from_config(cls, section: dict, **callbacks) -> "Panel":
        config = PanelConfig.from_section(section)
        return cls(config, pin_factory=make_factory(config.pin_factory), **callbacks)

    def _build(self) -> None:
        c, bounce = self.config, self.config.bounce_ms / 1000 or None
        self.beam = self._device("beam", DigitalInputDevice, pull_up=True, bounce_time=bounce)   # low = broken
        self.buttons = {name: self._device(name, Button, pull_up=True, bounce_time=bounce,
                                           hold_time=c.undo_hold_seconds or 1) for name in BUTTONS}
        self.buzzer = self._device("buzzer", Buzzer)
        self.motor = self._device("motor", DigitalOutputDevice, active_high=c.motor_active_high)
        self.led_ok = self._device("led_ok", LED)
        self.led_fault = self._device("led_fault", LED)
        if self.beam:
            self.beam.when_activated = self._beam_broken
        for name, button in self.buttons.items():
            if button is None:
                continue
            if name == "undo" and c.undo_hold_seconds:
                button.when_held = lambda: self._press("undo")
            else:
                button.when_pressed = lambda name=name: self._press(name)

    def _device(self, name: str, kind, **options):
        pin = getattr(self.config, name)
        if pin == NOT_FITTED:
            return None
        device = kind(pin, pin_factory=self._factory, **options)
        self._devices.append(device)
        return device

    def close(self) -> None:
        for device in reversed(self._devices):
            device.close()
        self._devices.clear()

    def __enter__(self) -> "Panel":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- inputs --

    def _beam_broken(self) -> None:
        self.balls += 1
        self._on_beam(self.balls)

    def _press(self, name: str) -> None:
        if name == "draw":
            if self.spinning:
                return   # a second press while the cage still turns is the same draw
            self.spin()
        self._on_button(name)

    # -- outputs --

    @property
    def spinning(self) -> bool:
        return time.monotonic() < self._spin_until

    def spin(self, seconds: float | None = None) -> None:
        """Run the cage motor for `seconds` (default motor_seconds), in the background."""
        seconds = self.config.motor_seconds if seconds is None else seconds
        if self.motor is None or seconds <= 0:
            return
        self._spin_until = time.monotonic() + seconds
        self.motor.blink(on_time=seconds, off_time=0, n=1, background=True)

    def warn(self) -> None:
        self._beep(WARN_BEEPS)

    def time_up(self) -> None:
        self._beep(TIME_UP_BEEPS)

    def _beep(self, pattern) -> None:
        if self.buzzer is not None:
            on, off, count = pattern
            self.buzzer.beep(on_time=on, off_time=off, n=count, background=True)

    def update_turn(self, remaining: float | None) -> None:
        """Call with the seconds left in the turn (None: no turn running), e.g. once a second:
        beeps the warning at warn_seconds and the time-up at 0, each once per turn."""
        if remaining is None or remaining > self.config.warn_seconds:
            self._signalled.clear()
            return
        signal = "time_up" if remaining <= 0 else "warn"
        if signal not in self._signalled:
            self._signalled.add(signal)
            self.time_up() if signal == "time_up" else self.warn()

    def show_link(self, ok: bool) -> None:
        """All well: green steady; a fault (the console passes the other hardware's health): red blinking."""
        if ok == self._link_ok:
            return
        self._link_ok = ok
        if self.led_ok:
            self.led_ok.value = ok
        if self.led_fault:
            self.led_fault.off() if ok else self.led_fault.blink(on_time=0.5, off_time=0.5)
