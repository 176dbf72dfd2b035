"""`companion`: the composition root. Each module below registers its commands and imports
heavy libraries (OpenCV, Textual, pyserial) only inside the command that needs them, so
`companion replay` starts fast (ARCHITECTURE.md, law 1)."""
from __future__ import annotations

import argparse
import importlib
import os
import sys

import companion

from ..core.journal import JournalError

# Modules that add commands; each has register(sub, groups).
MODULES = ["companion.cli.game", "companion.cli.bench", "companion.cli.screens", "companion.cli.link", "companion.cli.cards", "companion.cli.balls", "companion.cli.demo", "companion.cli.report"]
# Command groups shared by several modules: `companion print cards`, `companion bench link`, ...
GROUPS = {
    "print": "print cards and ball labels",
    "corpus": "generate test corpora with ground truth",
    "bench": "measure speed and accuracy",
    "read": "read still images",
    "sim": "simulated hardware",
}


# What OpenCV and the FFmpeg inside it write to stderr (a camera that cannot open, a damaged video)
# lands under the console's screen and around the one line a command prints, which says it better.
# Read when OpenCV loads; a value set in the environment wins.
QUIET_LIBRARIES = {"OPENCV_LOG_LEVEL": "OFF", "OPENCV_FFMPEG_LOGLEVEL": "-8"}


class CommandError(Exception):
    """A clear one-line failure: printed as it is, exit code attached."""

    def __init__(self, message: str, code: int = 1):
        super().__init__(message)
        self.code = code


def demo_of(game: str, declared: str = "demo"):
    """The game's demo night (companion.core.games.demo), or its other declaration looked up the
    same way ("drills": companion.core.games.drills), for a bench's --game."""
    from ..core import games
    from ..core.commands import Malformed
    try:
        return getattr(games, declared)(game)
    except Malformed as error:
        raise CommandError(f"--game {game}: {error}", 2)


class Groups(dict):
    """`companion print cards`, `companion bench link`...: a group appears once a module uses it."""

    def __init__(self, sub):
        super().__init__()
        self.sub = sub

    def __missing__(self, name: str):
        group = self.sub.add_parser(name, help=GROUPS[name], description=GROUPS[name])
        self[name] = group.add_subparsers(dest="what", metavar="WHAT", required=True)
        return self[name]


def description() -> str:
    """The package's first line, naming the games it hosts (the registry's)."""
    from ..core import games
    titles = [f"{game.title} ({game.title_ja})" if game.title_ja else game.title for game in games.GAMES.values()]
    first = companion.__doc__.splitlines()[0].rstrip(".")
    return f"{first}: {', '.join(titles[:-1])} and {titles[-1]}." if len(titles) > 1 else f"{first}: {titles[0]}."


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="companion", description=description())
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    groups = Groups(sub)
    for module in MODULES:
        importlib.import_module(module).register(sub, groups)
    return parser


def main(argv: list[str] | None = None) -> int:
    for name, value in QUIET_LIBRARIES.items():
        os.environ.setdefault(name, value)
    for stream in (sys.stdout, sys.stderr):     # a file name of bytes no UTF-8 printed as \udcff, never a traceback
        if hasattr(stream, "reconfigure"):       # (a UTF-8 locale's stdout is strict: a Pi's is)
            stream.reconfigure(errors="backslashreplace")
    args = build_parser().parse_args(argv)
    try:
        return args.run(args) or 0
    except CommandError as error:
        print(f"companion: {error}", file=sys.stderr)
        return error.code
    except JournalError as error:      # a journal damaged beyond what a command checks on opening it
        print(f"companion: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("companion: stopped", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
