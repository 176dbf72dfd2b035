"""The Textual theme the three apps share: high contrast for the back of a hall."""
from textual.theme import Theme

THEME = Theme(
    name="companion",
    primary="#ffd400",
    secondary="#2f7bff",
    accent="#00d455",
    warning="#ff7a00",
    error="#ff4d4d",
    success="#00d455",
    foreground="#ffffff",
    background="#000000",
    surface="#111111",
    panel="#1e1e1e",
    dark=True,
)
