"""ARCHITECTURE.md law 10: a game registers itself once, in its own package. The games are found
(companion.core.games.GAMES: every subpackage of companion defining GAME), so a fifth game is a new
package and touches no shared file."""
from __future__ import annotations

import ast
import json
import re
import sys
from dataclasses import replace
from pathlib import Path

import pytest

import companion
from companion.cli import build_parser, main
from companion.core import event_file, games

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
FIFTH = '''
import json
from copy import copy
from dataclasses import replace
from pathlib import Path

import companion

from companion.core.games import Bench, PrintOption
from companion.jail import GAME as JAIL

schema = copy(JAIL.schema)          # the jail card game's rules under another name
schema.enums = {**schema.enums, ("Setup", "game"): ("chess",)}


def demo(players, seed=1, turns=15):
    """The jail card game's example round, as chess."""
    example = Path(companion.__file__).parents[1] / "examples" / "jail-round.jsonl"
    setup, *rest = map(json.loads, example.read_text(encoding="utf-8").splitlines())
    return [{**setup, "game": "chess"}, *rest]


def bench_moves(args, companion):
    """A bench of its own: replays its demo night through `companion replay`."""
    script = Path(args.out)
    script.write_text("".join(json.dumps(command) + "\\n" for command in demo(4)), encoding="utf-8")
    code = companion(["replay", str(script)])
    print(f"moves bench: {args.moves} moves, replay exit {code}")
    return code


GAME = replace(JAIL, name="chess", title="Chess", title_ja="チェス", schema=schema, order=4,
               page=("chess.css", "chess.js", "chess.html"),
               layouts="chess_layouts:CARDS", demo=demo,
               print_options=(PrintOption("--moves", "a Chess event: each player's move cards for moves 1..N",
                                          "--moves is for a Chess event's move cards", argparse={"type": int}),),
               benches=(Bench("moves", "replay time of a night of moves", bench_moves,
                              {"--moves": {"type": int, "default": 40}, "--out": {"required": True}}),))
'''
CHESS_LAYOUTS = '''
from dataclasses import replace

import vision.layouts as L
from vision.layouts import voters

CARDS = (L.Kind(replace(voters.number(), kind="move", title="Move card"), "Q", "{code}{owner:02d}{number:03d}"),)
'''


CHESS_WORDS = {"ja": 'msgid "Checkmate"\nmsgstr "詰み"\n', "en": 'msgid "Checkmate"\nmsgstr "Checkmate"\n'}


@pytest.fixture
def fifth_game(tmp_path, monkeypatch):
    """A game package "chess" in a folder of its own, added to companion's path, with its words in
    its own locale/, and its card layouts in a module of their own: no shared file edited."""
    from companion.core import words
    from vision import layouts
    (tmp_path / "chess" / "locale").mkdir(parents=True)
    (tmp_path / "chess" / "__init__.py").write_text(FIFTH, encoding="utf-8")
    for language, entries in CHESS_WORDS.items():
        (tmp_path / "chess" / "locale" / f"{language}.po").write_text(entries, encoding="utf-8")
    (tmp_path / "chess_layouts.py").write_text(CHESS_LAYOUTS, encoding="utf-8")
    monkeypatch.setattr(companion, "__path__", [*companion.__path__, str(tmp_path)])
    monkeypatch.syspath_prepend(str(tmp_path))
    forget = [games.discover.cache_clear, layouts.declared.cache_clear, words.entries.cache_clear,
              words.catalogue.cache_clear]
    for cache_clear in forget:
        cache_clear()
    yield games.rules("chess")
    for module in ("companion.chess", "chess_layouts"):
        sys.modules.pop(module, None)
    for cache_clear in forget:
        cache_clear()


def test_the_games_are_found_in_their_order():
    assert list(games.GAMES) == ["bingo", "voters", "bluff", "jail"]
    assert games.DEFAULT in games.GAMES
    assert all(games.GAMES[name].name == name for name in games.GAMES)


def test_a_fifth_game_package_is_listed_and_chosen_like_the_others(fifth_game, tmp_path, capsys):
    assert list(games.GAMES) == ["bingo", "voters", "bluff", "jail", "chess"]
    assert fifth_game.title == "Chess" and games.of_setup({"do": "setup", "game": "chess"}) is fifth_game
    assert event_file.fault("event", "game", "chess") is None
    init = build_parser()._subparsers._group_actions[0].choices["init"]
    assert "{bingo,voters,bluff,jail,chess}" in init.format_help()
    with pytest.raises(games.Malformed, match="games: bingo, voters, bluff, jail, chess$"):
        games.rules("go")
    setup, *rest = EXAMPLES.joinpath("jail-round.jsonl").read_text(encoding="utf-8").splitlines()
    script = tmp_path / "chess.jsonl"
    script.write_text("\n".join([json.dumps({**json.loads(setup), "game": "chess"}), *rest]), encoding="utf-8")
    assert main(["replay", "--json", str(script)]) == 0
    assert json.loads(capsys.readouterr().out)["players"]


def test_without_the_package_the_fifth_game_is_unknown(capsys):
    assert "chess" not in games.GAMES
    assert event_file.fault("event", "game", "chess") == \
        "[event] game must be one of 'bingo', 'voters', 'bluff', 'jail', not 'chess'"


CHESS_MARKUP = b'<main id="chess" aria-label="Chess"></main>\n'
CHESS_FILES = {"chess.html": CHESS_MARKUP, "chess.css": b"#chess { display: none; }", "chess.js": b"DRAWINGS.chess = () => {};"}


@pytest.fixture
def chess_markup(fifth_game, monkeypatch):
    """The fifth game's page files, as its package would ship them in tui/web."""
    from tui.web import server
    shipped = server.asset
    monkeypatch.setattr(server, "asset", lambda name: CHESS_FILES[name] if name in CHESS_FILES else shipped(name))
    return server


def test_a_fifth_game_s_part_of_the_audience_page_is_served_from_its_declaration(chess_markup):
    server = chess_markup
    assert {"/chess.css", "/chess.js", "/jail.js", "/bluff.css"} <= set(server.page_files())
    assert "/chess.html" not in server.page_files()             # markup is written into the page
    page = server.index_page("チェス · Chess").decode()
    assert '<link rel="stylesheet" href="/chess.css"><script src="/chess.js" defer></script>' in page
    assert page.index("/bluff.js") < page.index("/jail.js") < page.index("/chess.js")     # in the games' order
    assert "<title>チェス · Chess</title>" in page
    body = page[page.index("<body"):]
    assert body.index('<main id="voters"') < body.index(CHESS_MARKUP.decode().strip()) < body.index('id="notice"')
    assert server.titles() == {"bingo": "強奪ビンゴ · Plunder Bingo", "voters": "ボーター · Voters",
                               "bluff": "オークションブラフ · Auction Bluff", "jail": "ならず者の脱獄 · The jail card game",
                               "chess": "チェス · Chess"}


def test_the_audience_page_and_the_terminal_page_are_titled_for_the_running_game(chess_markup, tmp_path):
    import asyncio

    from aiohttp.test_utils import TestClient, TestServer

    from companion.core.journal import Journal
    from companion.core.session import Session
    from tui.serve import DisplayServer
    setup, *rest = EXAMPLES.joinpath("jail-round.jsonl").read_text(encoding="utf-8").splitlines()
    session = Session(Journal(tmp_path / "chess.db"))
    for line in [json.dumps({**json.loads(setup), "game": "chess"}), *rest[:2]]:
        session.submit(json.loads(line))
    session.journal.close()

    async def title(journal: Path, until: str) -> tuple[str, dict]:
        """The page's title once it is `until` (or the last one seen in 2 s), and the page's words."""
        async with TestClient(TestServer(chess_markup.make_app(journal, poll=0.02))) as client:
            for _ in range(100):
                page = await (await client.get("/")).text()
                seen = page[page.index("<title>") + len("<title>"):page.index("</title>")]
                if seen == until:
                    break
                await asyncio.sleep(0.02)
            return seen, await (await client.get("/words.json")).json()
    assert asyncio.run(title(tmp_path / "chess.db", "チェス · Chess"))[0] == "チェス · Chess"
    seen, said = asyncio.run(title(tmp_path / "none.db", "強奪ビンゴ · Plunder Bingo"))   # no journal yet: the default game's
    assert seen == "強奪ビンゴ · Plunder Bingo"
    assert said["titles"]["chess"] == "チェス · Chess" and said["default_game"] == "bingo"
    assert said["words"]["Checkmate"] == "詰み · Checkmate"            # its words, from its own locale/
    assert DisplayServer(tmp_path / "chess.db", "127.0.0.1", 1, game="chess").title == "チェス · Chess"


def test_a_fifth_game_s_cards_are_laid_out_coded_and_read_from_its_declaration(fifth_game, capsys):
    from vision import layouts as L
    assert L.game_of("move") is fifth_game and L.layout("move").title == "Move card"
    assert L.kinds_of("chess") == ("move",) and list(L.kinds())[-1] == "move"    # declared once, by its layouts
    card = L.Card("move", "night", L.serial("move", 3, 12), 3, 1)
    assert card.serial == "Q03012" and L.verify(L.payload(card, "s"), "night", "s") == card
    assert main(["layout", "move"]) == 0 and capsys.readouterr().out.startswith("Move card: 96.0 x 90.0 mm")


def test_a_fifth_game_s_print_options_are_offered_and_refused_to_another_game_s_event(fifth_game, tmp_path, capsys):
    printing = build_parser()._subparsers._group_actions[0].choices["print"]._subparsers._group_actions[0]
    assert "--moves MOVES         a Chess event: each player's move cards" in printing.choices["cards"].format_help()
    bingo = tmp_path / "bingo.toml"
    assert main(["init", "--out", str(bingo), "--players", "3", "--seed", "1"]) == 0
    capsys.readouterr()
    assert main(["print", "cards", "--event", str(bingo), "--moves", "2", "--out", str(tmp_path / "x.pdf")]) == 2
    assert capsys.readouterr().err == \
        "companion: --moves is for a Chess event's move cards; this is a Plunder Bingo event\n"


def test_a_fifth_game_s_demo_night_is_the_benches_script(fifth_game, tmp_path, capsys):
    assert main(["bench", "journal", "--game", "chess", "--games", "1", "--dir", str(tmp_path)]) == 0
    commands = len(fifth_game.demo(6))
    assert f"game 1/1: {commands} commands" in capsys.readouterr().out
    assert main(["bench", "report", "--game", "jail"]) == 2
    assert capsys.readouterr().err == "companion: --game jail: the jail card game has no demo night; games with one: " \
                                      "bingo, chess\n"
    assert main(["bench", "screens", "--game", "voters"]) == 2
    assert capsys.readouterr().err.startswith("companion: --game voters: Voters has no demo night")
    assert main(["demo", "--game", "chess"]) == 2
    assert capsys.readouterr().err == "companion: --game chess: Chess has no demo night on simulated hardware; " \
                                      "games with one: bingo\n"


def test_a_fifth_game_s_own_bench_is_a_companion_bench_command(fifth_game, tmp_path, capsys):
    bench = build_parser()._subparsers._group_actions[0].choices["bench"]
    assert "moves     replay time of a night of moves" in bench.format_help()
    assert main(["bench", "moves", "--out", str(tmp_path / "moves.jsonl")]) == 0
    assert "moves bench: 40 moves, replay exit 0" in capsys.readouterr().out
    assert main(["bench", "display", "--game", "jail"]) == 2
    assert capsys.readouterr().err.startswith("companion: --game jail: the jail card game has no demo night")


def test_a_fifth_game_s_words_come_from_its_own_catalogue(fifth_game):
    from companion.core import words
    assert words.say("Checkmate", "ja+en") == "詰み · Checkmate"
    assert words.every_word("ja")["Checkmate"] == "詰み" and words.every_word("ja")["TURN"] == "ターン"


def test_without_the_package_its_words_are_not_there():
    from companion.core import words
    assert "Checkmate" not in words.entries("ja") and words.say("Checkmate", "ja") == "Checkmate"


def test_the_cli_s_help_says_what_a_fifth_game_declares(fifth_game, monkeypatch):
    monkeypatch.setitem(games.discover(), "chess", replace(
        fifth_game, phones="tui.bluff.phone", event=replace(fifth_game.event, players=2, seeded=True)))
    commands = build_parser()._subparsers._group_actions[0].choices
    init = " ".join(commands["init"].format_help().split())
    assert "--players PLAYERS how many (default: 6; the jail card game 4; Chess 2)" in init
    assert "--game {bingo,voters,bluff,jail,chess} the game (default: bingo)" in init
    top = " ".join(build_parser().format_help().split())
    assert "init write a commented example event.toml (Plunder Bingo or Chess: with dealt cards)" in top
    printing = " ".join(commands["print"].format_help().split())
    assert "sheets a game with phone pages (Auction Bluff or Chess): each player's sheet" in printing


def repository() -> dict[str, str]:
    """Every file of the repository git knows (its working copy's), and its sha256."""
    import hashlib
    import subprocess
    names = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout.split(b"\0")
    return {name.decode(): hashlib.sha256((ROOT / name.decode()).read_bytes()).hexdigest()
            for name in names if name and (ROOT / name.decode()).is_file()}


@pytest.fixture
def before():
    return repository()


def test_a_fifth_game_gets_a_bench_help_words_and_card_kinds_with_no_shared_file_edited(before, fifth_game, tmp_path,
                                                                                        capsys):
    """What a game declares in its own package reaches the CLI, the words and the scanner's kinds;
    the repository's files are as they were (the game and its files live in tmp_path)."""
    from companion.core import words
    from vision import layouts as L
    commands = build_parser()._subparsers._group_actions[0].choices
    assert "moves" in commands["bench"]._subparsers._group_actions[0].choices
    assert "chess" in " ".join(commands["init"].format_help().split())
    assert "Chess (チェス)" in " ".join(build_parser().format_help().split())
    assert words.every_word("ja+en")["Checkmate"] == "詰み · Checkmate"
    assert L.kinds_of("chess") == ("move",) and L.game_of("move") is fifth_game
    assert main(["bench", "moves", "--moves", "3", "--out", str(tmp_path / "m.jsonl")]) == 0
    capsys.readouterr()
    assert repository() == before


def test_without_the_package_its_bench_is_no_command(capsys):
    with pytest.raises(SystemExit):
        main(["bench", "moves", "--out", "x"])
    assert "invalid choice: 'moves'" in capsys.readouterr().err


def test_phone_sheets_name_the_games_that_have_phone_pages(fifth_game, monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(games.discover(), "chess", replace(fifth_game, phones="tui.bluff.phone"))
    bingo = tmp_path / "bingo.toml"
    assert main(["init", "--out", str(bingo), "--players", "3", "--seed", "1"]) == 0
    capsys.readouterr()
    assert main(["print", "sheets", "--event", str(bingo), "--url", "http://x", "--out", str(tmp_path / "s.pdf")]) == 2
    assert capsys.readouterr().err == f"companion: {bingo}: phone sheets are for a game whose players have phone " \
                                      "pages (Auction Bluff, Chess), not this one's game 'bingo'\n"


def test_no_shared_module_imports_a_game_s_demo():
    demos = re.compile(r"^\s*(from|import)\s+[\w.]*\b(bingo|voters|bluff|jail)\.demo\b", re.M)
    shared = [path for pattern in SHARED for path in ROOT.glob(pattern)]
    assert [str(path.relative_to(ROOT)) for path in shared if demos.search(path.read_text(encoding="utf-8"))] == []


def test_without_the_package_its_card_kind_is_unknown():
    from vision import layouts as L
    with pytest.raises(KeyError, match="unknown card kind 'move'; kinds: vote, robbery, .*, bluff_declare"):
        L.layout("move")


def test_each_game_s_card_kinds_are_the_ones_its_layouts_declare():
    from vision import layouts as L
    assert {name: L.kinds_of(name) for name in games.GAMES} == {
        "bingo": ("vote", "robbery", "inout", "change", "exclusion", "bingo"), "voters": ("number",),
        "bluff": ("bluff_dice", "bluff_declare"), "jail": ()}
    assert list(L.kinds()) == [kind for name in games.GAMES for kind in L.kinds_of(name)]
    assert L.game_of("number") is games.rules("voters")
    with pytest.raises(games.Malformed, match="no game prints 'move' cards"):
        L.game_of("move")


def test_a_game_s_cards_and_phone_pages_are_the_ones_it_names():
    from vision.printers import Printer
    printers = {name: games.load(game.printer) for name, game in games.GAMES.items() if game.printer}
    assert set(printers) == {"bingo", "voters", "bluff"} and all(isinstance(p, Printer) for p in printers.values())
    assert {name: game.phones for name, game in games.GAMES.items() if game.phones} == {"bluff": "tui.bluff.phone"}
    assert printers["bluff"].sheets is not None


# The shared code: the core, the composition root, the screens and pages every game uses, the
# drivers and the vision code outside each game's cards.
SHARED = ["companion/*.py", "companion/core/*.py", "companion/cli/*.py", "tui/*.py", "tui/web/*.py",
          "vision/*.py", "vision/layouts/__init__.py", "vision/printers/__init__.py", "drivers/*.py"]


def game_dispatches(source: str, where: str) -> list[str]:
    """Where a module compares with a game's name or keys a table by one: `game == "voters"`,
    `{"bingo": ...}`, `table["jail"]`."""
    def names_a_game(node) -> bool:
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return any(map(names_a_game, node.elts))
        return isinstance(node, ast.Constant) and node.value in games.GAMES
    found = []
    for node in ast.walk(ast.parse(source, where)):
        named = (isinstance(node, ast.Compare) and any(map(names_a_game, [node.left, *node.comparators]))
                 or isinstance(node, ast.Dict) and any(key is not None and names_a_game(key) for key in node.keys)
                 or isinstance(node, ast.Subscript) and names_a_game(node.slice))
        if named:
            found.append(f"{where}:{node.lineno}: {ast.unparse(node)[:80]}")
    return found


def test_the_pages_shared_words_script_holds_no_game_s_words():
    """words.js is every page's (the audience page's, the phone pages'): a game's words (its phases'
    msgids, ...) are in its own scripts, named by its GameRules.page."""
    text = (ROOT / "tui" / "web" / "words.js").read_text(encoding="utf-8")
    named = {name for name in games.GAMES if re.search(name, text, re.I)}
    named |= {game.title for game in games.GAMES.values() if game.title in text}
    assert not named
    assert "bluff-words.js" in games.rules("bluff").page


def test_game_dispatches_finds_each_form():
    source = 'if game == "voters" or g in ("x", "jail"):\n    t = {"bingo": 1}["bluff"]\nu = "bluff"\n'
    assert len(game_dispatches(source, "m.py")) == 4


def test_no_shared_module_names_a_game_in_a_dispatch():
    paths = {str(path.relative_to(ROOT)): path for pattern in SHARED for path in ROOT.glob(pattern)}
    shared = {where: path.read_text(encoding="utf-8") for where, path in paths.items()}
    assert len(shared) > 60
    assert [found for where, source in shared.items() for found in game_dispatches(source, where)] == []


def test_the_shared_page_script_dispatches_on_no_game():
    """page.js draws no game's view: each game's script adds its drawing to DRAWINGS."""
    names = "|".join(map(re.escape, games.GAMES))
    compared = re.compile(rf'(?:[=!]==?\s*["\'](?:{names})["\'])|(?:["\'](?:{names})["\']\s*[=!]==?)')
    for script in ("page.js", "words.js"):
        text = (ROOT / "tui" / "web" / script).read_text(encoding="utf-8")
        assert not compared.findall(text), script
    for game in games.GAMES.values():
        scripts = [(ROOT / "tui" / "web" / name).read_text(encoding="utf-8") for name in game.page if name.endswith(".js")]
        assert not scripts or any(f"DRAWINGS.{game.name} = " in script for script in scripts)
    assert compared.findall('if (view.game === "jail") x(); if ("voters" != g) y();') == ['=== "jail"', '"voters" !=']
