"""Reading an image file that anyone could have dropped in the scanner's folder.

Only a regular file is read (a FIFO named .jpg or a link to /dev/zero never blocks or streams
forever), at most MAX_BYTES of it, and only when its header gives a size of at most MAX_PIXELS:
the width and height are read from the header (PNG IHDR, JPEG SOFn, BMP, TIFF, WebP) before
anything is decoded, so a small file claiming a huge picture costs nothing. A format whose header
is not read here is refused: its cost cannot be known before decoding. Each refusal names its limit.
"""
from __future__ import annotations

import errno
import os
import stat
import struct
import sys
import threading
from contextlib import contextmanager
from pathlib import Path

MAX_BYTES = 64 * 1024 * 1024     # a 20-megapixel photo as PNG or BMP is well below this
MAX_PIXELS = 20_000_000          # 5000x4000: any phone photo or 600 dpi scan of a card; decoded, about 60 MB


HEIF_BRANDS = (b"heic", b"heix", b"heim", b"heis", b"hevc", b"hevx", b"mif1", b"msf1")
HEIF_REFUSED = ("a HEIC/HEIF photo, which is not read here: send it as JPEG "
                "(iPhone: Settings > Camera > Formats > Most Compatible)")


class ImageFileError(OSError):
    """Why an image file is refused before (or at) decoding. An OSError, so a caller that reports
    unreadable files reports these too; str() is one line naming the file and the limit."""

    def __init__(self, path, message: str):
        super().__init__(errno.EINVAL, message, str(path))

    def __str__(self) -> str:
        return f"{self.filename}: {self.strerror}"


def checked_bytes(path: str | Path, max_bytes: int = MAX_BYTES, max_pixels: int = MAX_PIXELS) -> bytes:
    """The bytes of an image file whose header says it is within the limits (or of an empty
    file); raises ImageFileError."""
    try:
        kind = _file_kind(os.stat(path).st_mode)       # follows a link: a link to a device is a device
    except FileNotFoundError:
        raise ImageFileError(path, "no such file") from None
    if kind:
        raise ImageFileError(path, f"not a regular file ({kind}): only image files are read")
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)     # replaced by a FIFO since the stat: no wait
    try:
        info = os.fstat(fd)
        if _file_kind(info.st_mode):
            raise ImageFileError(path, f"not a regular file ({_file_kind(info.st_mode)}): only image files are read")
        if info.st_size > max_bytes:
            raise ImageFileError(path, f"{info.st_size:,} bytes is over the limit of {max_bytes:,} bytes")
        with os.fdopen(os.dup(fd), "rb") as file:
            data = file.read(max_bytes + 1)
    finally:
        os.close(fd)
    if len(data) > max_bytes:
        raise ImageFileError(path, f"the file grew past the limit of {max_bytes:,} bytes while read")
    if not data:
        return data                 # nothing to decode: the caller says it is empty
    width, height = image_size(path, data)
    if width * height > max_pixels:
        raise ImageFileError(path, f"its header says {width}x{height} pixels, over the limit of {max_pixels:,} pixels")
    return data


def read_image(path: str | Path, max_bytes: int = MAX_BYTES, max_pixels: int = MAX_PIXELS):
    """The image as a BGR array (numpy, from cv2), within the limits above; raises ImageFileError."""
    data = checked_bytes(path, max_bytes, max_pixels)
    if not data:
        raise ImageFileError(path, "an empty file")
    image = decode(data)
    if image is None:
        raise ImageFileError(path, "not an image OpenCV can read (or a damaged one)")
    return image


def decode(data: bytes, grey: bool = False):
    """cv2.imdecode (BGR, or grey: a JPEG's own luma, not decoded in colour at all), or None, without
    libjpeg's and libpng's own lines on stderr ("Corrupt JPEG data: ...", "libpng error: ..."): the
    answer about a damaged file is ours, in one line."""
    import cv2
    import numpy as np
    with _stderr_silenced():
        try:
            return cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_GRAYSCALE if grey else cv2.IMREAD_COLOR)
        except cv2.error:
            return None


_SILENCE = threading.Lock()


@contextmanager
def _stderr_silenced():
    """File descriptor 2 to /dev/null meanwhile (the C libraries write there, not to sys.stderr);
    one decode at a time, so each puts back the descriptor it found."""
    with _SILENCE:
        sys.stderr.flush()
        saved, null = os.dup(2), os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 2)
        os.close(null)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)


def _file_kind(mode: int) -> str | None:
    if stat.S_ISREG(mode):
        return None
    return ("a directory" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode) else
            "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode) else
            "not a file")


def image_size(path, data: bytes) -> tuple[int, int]:
    """(width, height) from the header; raises ImageFileError for a format not read here."""
    for magic, reader in _READERS:
        if data.startswith(magic):
            try:
                size = reader(data)
            except (struct.error, IndexError, ValueError):
                size = None
            if not size or min(size) < 1:
                raise ImageFileError(path, "a damaged image header: no width and height")
            return size
    if data[4:8] == b"ftyp" and data[8:12] in HEIF_BRANDS:
        raise ImageFileError(path, HEIF_REFUSED)
    raise ImageFileError(path, "not an image read here: only PNG, JPEG, BMP, TIFF and WebP files, whose "
                               "headers give their size before decoding")


def _png(data: bytes) -> tuple[int, int] | None:
    if data[12:16] != b"IHDR":
        return None
    return struct.unpack(">II", data[16:24])


_JPEG_FRAMES = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


def _jpeg(data: bytes) -> tuple[int, int] | None:
    """The first frame header (SOFn); a height of 0 (set later by a DNL marker) is no size."""
    at = 2
    while at + 4 <= len(data):
        if data[at] != 0xFF:
            return None
        marker = data[at + 1]
        if marker == 0xFF:                      # fill byte
            at += 1
            continue
        if marker in (0x01, *range(0xD0, 0xD8)):  # markers without a length
            at += 2
            continue
        if marker in (0xD9, 0xDA):              # end of image, or scan data before any frame header
            return None
        length = struct.unpack(">H", data[at + 2:at + 4])[0]
        if marker in _JPEG_FRAMES:
            height, width = struct.unpack(">HH", data[at + 5:at + 9])
            return width, height
        at += 2 + length
    return None


def _bmp(data: bytes) -> tuple[int, int]:
    if struct.unpack("<I", data[14:18])[0] == 12:                 # OS/2 BITMAPCOREHEADER
        return struct.unpack("<HH", data[18:22])
    width, height = struct.unpack("<ii", data[18:26])
    return abs(width), abs(height)                                # a negative height is top-down


def _tiff(data: bytes) -> tuple[int, int] | None:
    """Width and length of the first image (IFD0), which is the one OpenCV reads."""
    order = "<" if data[:2] == b"II" else ">"
    (offset,) = struct.unpack(order + "I", data[4:8])
    (count,) = struct.unpack(order + "H", data[offset:offset + 2])
    size = {}
    for i in range(count):
        entry = data[offset + 2 + 12 * i:offset + 14 + 12 * i]
        tag, kind = struct.unpack(order + "HH", entry[:4])
        if tag in (256, 257):                                     # ImageWidth, ImageLength
            size[tag] = struct.unpack(order + ("H" if kind == 3 else "I"), entry[8:10] if kind == 3 else entry[8:12])[0]
    return (size[256], size[257]) if len(size) == 2 else None


def _webp(data: bytes) -> tuple[int, int] | None:
    if data[8:12] != b"WEBP":
        return None
    chunk = data[12:16]
    if chunk == b"VP8X":                                          # extended: the canvas, 24 bits each, minus 1
        return 1 + int.from_bytes(data[24:27], "little"), 1 + int.from_bytes(data[27:30], "little")
    if chunk == b"VP8L" and data[20] == 0x2F:                      # lossless: 14 bits each, minus 1
        bits = int.from_bytes(data[21:25], "little")
        return 1 + (bits & 0x3FFF), 1 + ((bits >> 14) & 0x3FFF)
    if chunk == b"VP8 " and data[23:26] == b"\x9d\x01\x2a":         # lossy key frame
        width, height = struct.unpack("<HH", data[26:30])
        return width & 0x3FFF, height & 0x3FFF
    return None


_READERS = [(b"\x89PNG\r\n\x1a\n", _png), (b"\xff\xd8", _jpeg), (b"BM", _bmp),
            (b"II*\x00", _tiff), (b"MM\x00*", _tiff), (b"RIFF", _webp)]
