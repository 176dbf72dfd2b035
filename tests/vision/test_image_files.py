"""Hostile image files (testing ladder, step 6): refused before decoding, in one line naming the
limit, never a hang; and the header sizes read for every format we accept agree with OpenCV's."""
import os
import struct
import subprocess
import sys
import zlib

import cv2
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drivers.camera import Camera, FolderSource
from vision.image_files import ImageFileError, checked_bytes, image_size, read_image


def png(width: int, height: int, depth: int = 8, rows: bool = True) -> bytes:
    """A grey PNG of zeros; rows=False writes the header only (a file that lies about its size)."""
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    data = b""
    if rows:
        packer, row = zlib.compressobj(9), b"\x00" + bytes((width * depth + 7) // 8)
        data = b"".join(packer.compress(row) for _ in range(height)) + packer.flush()
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, depth, 0, 0, 0, 0))
            + chunk(b"IDAT", data) + chunk(b"IEND", b""))


def crc_damaged_png() -> bytes:
    data = bytearray(png(64, 64))
    data[40] ^= 0xFF                    # inside IDAT: libpng says "IDAT: CRC error" on stderr itself
    return bytes(data)


def jpeg_claiming(width: int, height: int) -> bytes:
    app0 = b"\xff\xe0" + struct.pack(">H", 16) + b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
    sof0 = b"\xff\xc0" + struct.pack(">HBHHB", 11, 8, height, width, 1) + b"\x01\x11\x00"
    return b"\xff\xd8" + app0 + sof0 + b"\xff\xd9"


@pytest.fixture
def hostile(tmp_path):
    """The files seen in the issue, and their cousins, with the limit each must name."""
    files = {
        "claims-100000x100000.png": (png(100_000, 100_000, rows=False), "100000x100000 pixels, over the limit"),
        "one-bit-30000x30000.png": (png(30_000, 30_000, depth=1), "30000x30000 pixels, over the limit"),
        "claims-60000x60000.jpg": (jpeg_claiming(60_000, 60_000), "60000x60000 pixels, over the limit"),
        "damaged.png": (b"\x89PNG\r\n\x1a\n\x00\x00", "damaged image header"),
        "crc-damaged.png": (crc_damaged_png(), "not an image"),
        "cat.gif": (b"GIF89a" + bytes(100), "only PNG, JPEG, BMP, TIFF and WebP"),
        "empty.jpg": (b"", "empty file"),
    }
    for name, (data, _) in files.items():
        (tmp_path / name).write_bytes(data)
    os.mkfifo(tmp_path / "fifo.jpg")
    os.symlink("/dev/zero", tmp_path / "zero.jpg")
    (tmp_path / "folder.png").mkdir()
    expected = {name: why for name, (_, why) in files.items()}
    expected.update({"fifo.jpg": "not a regular file (a FIFO)", "zero.jpg": "not a regular file (a device)",
                     "folder.png": "not a regular file (a directory)", "missing.jpg": "no such file"})
    return tmp_path, expected


def test_each_hostile_file_is_refused_naming_its_limit(hostile):
    folder, expected = hostile
    for name, why in expected.items():
        with pytest.raises(ImageFileError, match=why.replace("(", r"\(").replace(")", r"\)")) as refused:
            read_image(folder / name)
        assert str(refused.value).startswith(str(folder / name)) and "\n" not in str(refused.value)


def test_the_byte_limit_is_checked_before_reading(tmp_path):
    path = tmp_path / "big.png"
    path.write_bytes(png(64, 64) + bytes(5000))
    with pytest.raises(ImageFileError, match="over the limit of 1,000 bytes"):
        checked_bytes(path, max_bytes=1000)
    assert len(checked_bytes(path)) == path.stat().st_size


@pytest.mark.parametrize("suffix", [".png", ".jpg", ".bmp", ".tif", ".webp"])
@pytest.mark.parametrize("width, height", [(64, 48), (1601, 1203)])
def test_header_sizes_agree_with_what_opencv_decodes(tmp_path, suffix, width, height):
    picture = np.random.default_rng(1).integers(0, 255, (height, width, 3), np.uint8)
    path = tmp_path / f"p{suffix}"
    cv2.imwrite(str(path), picture, [cv2.IMWRITE_WEBP_QUALITY, 101] if suffix == ".webp" else [])
    assert image_size(path, path.read_bytes()) == (width, height)
    assert read_image(path).shape == (height, width, 3)


def test_lossy_webp_and_progressive_jpeg_headers_are_read(tmp_path):
    picture = np.full((90, 120, 3), 128, np.uint8)
    for name, params in [("lossy.webp", [cv2.IMWRITE_WEBP_QUALITY, 80]), ("progressive.jpg", [cv2.IMWRITE_JPEG_PROGRESSIVE, 1])]:
        cv2.imwrite(str(tmp_path / name), picture, params)
        assert image_size(name, (tmp_path / name).read_bytes()) == (120, 90)


def test_a_camera_folder_with_a_hostile_file_stops_with_one_line(hostile):
    folder, _ = hostile
    camera = Camera(FolderSource(str(folder / "claims-100000x100000.png")), realtime=False).start()
    assert camera.get(timeout=5) is None
    camera.stop()
    assert "100000x100000 pixels, over the limit of 20,000,000 pixels" in camera.error and "\n" not in camera.error


def _companion(*argv, timeout=120):
    return subprocess.run([sys.executable, "-m", "companion", *map(str, argv)], capture_output=True, text=True,
                          timeout=timeout)


def test_companion_scan_and_read_balls_answer_each_hostile_file_in_one_line_without_hanging(hostile):
    folder, expected = hostile
    assert _companion("init", "--out", folder / "event.toml", "--players", 4, "--seed", 1).returncode == 0
    names = sorted(expected)
    scan = _companion("scan", "--event", folder / "event.toml", *(folder / name for name in names))
    lines = scan.stdout.splitlines()
    assert not scan.stderr and len(lines) == len(names), scan.stdout + scan.stderr
    for name, line in zip(names, lines):
        assert line.startswith(f"{folder / name}: rejected") and expected[name] in line, line
    read = _companion("read", "balls", *(folder / name for name in names))
    assert read.returncode == 1 and "Traceback" not in read.stderr
    assert [line.split(": ", 1)[1].split(":")[0] for line in read.stderr.splitlines()] == [str(folder / n) for n in names]
    for name, line in zip(names, read.stderr.splitlines()):
        assert expected[name] in line, line


MAGICS = [b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR", b"\xff\xd8", b"\xff\xd8\xff\xc0\x00\x11\x08", b"BM", b"II*\x00",
          b"MM\x00*", b"RIFF\x00\x00\x00\x00WEBPVP8X", b"RIFF\x00\x00\x00\x00WEBPVP8L", b""]


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(magic=st.sampled_from(MAGICS), tail=st.binary(max_size=200))
def test_any_bytes_behind_an_image_header_are_an_image_or_one_refusal(tmp_path_factory, magic, tail):
    path = tmp_path_factory.mktemp("fuzz") / "x.img"
    path.write_bytes(magic + tail)
    try:
        image = read_image(path)
    except ImageFileError as refused:
        assert "\n" not in str(refused)
    else:
        assert image.ndim == 3 and image.shape[0] * image.shape[1] <= 20_000_000
