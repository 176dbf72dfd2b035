"""The cache folder's files: made once, mapped read-only, made again when damaged, and never in the
way when they cannot be written."""
import numpy as np
import pytest

from vision import cache


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    return tmp_path / "companion"


def counting(array):
    made = []

    def make():
        made.append(1)
        return array
    return make, made


def test_an_array_is_made_once_then_mapped_read_only(folder):
    make, made = counting(np.arange(12, dtype=np.float32).reshape(3, 4))
    first, second = cache.mapped("rows", "k1", (3, 4), make), cache.mapped("rows", "k1", (3, 4), make)
    assert len(made) == 1 and (folder / "rows-k1.npy").exists()
    assert np.array_equal(first, second) and type(second) is np.ndarray and not second.flags.writeable


@pytest.mark.parametrize("damage", ["cut short", "another shape", "not an array", "unsound"])
def test_a_damaged_file_is_made_again(folder, damage):
    make, made = counting(np.ones((3, 4), np.float32))
    cache.mapped("rows", "k1", (3, 4), make, lambda a: a.all())
    path = folder / "rows-k1.npy"
    if damage == "cut short":
        path.write_bytes(path.read_bytes()[:-8])
    elif damage == "another shape":
        np.save(path, np.ones((2, 4), np.float32))
    elif damage == "not an array":
        path.write_bytes(b"\x00" * 200)
    else:
        np.save(path, np.zeros((3, 4), np.float32))
    assert np.array_equal(cache.mapped("rows", "k1", (3, 4), make, lambda a: a.all()), np.ones((3, 4))) and len(made) == 2
    assert np.load(path).shape == (3, 4)


def test_the_file_made_by_new_code_replaces_the_old_codes(folder):
    cache.mapped("rows", "old", (3, 4), lambda: np.zeros((3, 4), np.float32))
    assert np.array_equal(cache.mapped("rows", "new", (3, 4), lambda: np.ones((3, 4), np.float32)), np.ones((3, 4)))
    assert sorted(p.name for p in folder.iterdir()) == ["rows-new.npy"]


def test_where_nothing_can_be_written_the_array_made_is_used(folder):
    folder.parent.mkdir(exist_ok=True)
    folder.write_text("a file where the folder should be")
    array = np.ones((3, 4), np.float32)
    assert cache.mapped("rows", "k1", (3, 4), lambda: array) is array


def test_a_key_follows_the_code_and_the_values(tmp_path):
    code = tmp_path / "maker.py"
    code.write_text("one")
    before = cache.key([code], 1, "a")
    assert cache.key([code], 1, "a") == before and cache.key([code], 2, "a") != before
    code.write_text("two")
    assert cache.key([code], 1, "a") != before


def test_a_write_that_fails_leaves_the_old_file_and_no_part_of_the_new(tmp_path):
    path = tmp_path / "sample.json"
    cache.write_whole(path, lambda out: out.write(b"old"))

    def failing(out):
        out.write(b"half of the new")
        raise OSError("no space left on device")
    with pytest.raises(OSError):
        cache.write_whole(path, failing)
    assert [p.name for p in tmp_path.iterdir()] == ["sample.json"] and path.read_bytes() == b"old"
