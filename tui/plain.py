"""Text from people and cards is data, never markup: the text widgets every screen is built of.

Textual and Rich read a str as markup: a player named "[/bold]" is a MarkupError that ends the
app (the event file's names reach the console's first screen), and "[red]" would restyle it. The
widgets here take every str as plain text; a style comes only from a rich.text.Text the screen
builds itself. Screens take Static, Label, OptionList, DataTable and Rich's Table from here, never
from Textual or Rich (tests/test_architecture.py checks it).
"""
from __future__ import annotations

from rich.table import Table as RichTable
from rich.text import Text
from textual import widgets


def plain(cell):
    """A str as plain Text; anything else (a Text, a renderable) as it is."""
    return Text(cell) if isinstance(cell, str) else cell


class Static(widgets.Static):
    def __init__(self, content="", **options):
        super().__init__(content, markup=False, **options)


class Label(widgets.Label):
    def __init__(self, content="", **options):
        super().__init__(content, markup=False, **options)


class OptionList(widgets.OptionList):
    def __init__(self, *options, **keywords):
        super().__init__(*options, markup=False, **keywords)


class DataTable(widgets.DataTable):
    """Its cells, as every table's: a str is plain text (read back as Text: str() of it is the text)."""

    def add_row(self, *cells, **options):
        return super().add_row(*map(plain, cells), **options)

    def update_cell(self, row_key, column_key, value, **options) -> None:
        super().update_cell(row_key, column_key, plain(value), **options)


class Table(RichTable):
    def add_row(self, *cells, **options) -> None:
        super().add_row(*map(plain, cells), **options)
