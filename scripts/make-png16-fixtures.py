#!/usr/bin/env python3
"""Writes the 16-bit PNG fixtures of Tests/BaselineImagesTests/Fixtures.

Each image is written twice from one pixel function: Adam7-interlaced
(`adam7-<type>.png`) and not (`plain-<type>.png`), so a decoder must give the
same pixels for both. They cover the 16-bit colour types PngSuite's basi0g16,
basi2c16, basi4a16 and basi6a16 do (grey, RGB, grey + alpha, RGBA), plus grey
and RGB with a 16-bit tRNS key, at sizes that leave some Adam7 passes short or
empty. The alpha images carry gAMA 1.0 as PngSuite's do (a decoder converts
them to sRGB); the others have no gAMA or sRGB chunk. Every scanline uses one
of the five filters in turn.

Deterministic: run `python3 scripts/make-png16-fixtures.py` from the
repository's root to write them again (zlib level 9).
"""

import os
import struct
import zlib

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "Tests", "BaselineImagesTests", "Fixtures")

# (x start, y start, x step, y step) of the seven Adam7 passes.
ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]

GREY, RGB, GREY_ALPHA, RGBA = 0, 2, 4, 6
CHANNELS = {GREY: 1, RGB: 3, GREY_ALPHA: 2, RGBA: 4}

# The tRNS keys, and values one away from them that stay opaque.
GREY_KEY = (0x1234,)
RGB_KEY = (0x1234, 0x5678, 0x9ABC)


def sample(x, y, channel):
    """A 16-bit value whose high and low bytes both vary."""
    return (x * 7919 + y * 104729 + channel * 31337 + x * y * 257) % 65536


def alpha(x, y):
    """Fully transparent, opaque and partial alpha, in turn."""
    return [0, 65535, (x * 4099 + y * 8191) % 65536][(x + y) % 3]


def pixel(colour_type, key, x, y):
    colours = 3 if colour_type in (RGB, RGBA) else 1
    values = [sample(x, y, channel) for channel in range(colours)]
    if key is not None:
        step = (x + 2 * y) % 5
        if step == 0:
            values = list(key)
        elif step == 1:
            values = [value + 1 for value in key]
    if colour_type in (GREY_ALPHA, RGBA):
        values.append(alpha(x, y))
    return values


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def filtered(rows, bpp):
    """The scanlines of one (sub)image, each filtered with the next filter type."""
    out = bytearray()
    previous = bytes(len(rows[0])) if rows else b""
    for index, row in enumerate(rows):
        kind = index % 5
        line = bytearray()
        for i, value in enumerate(row):
            left = row[i - bpp] if i >= bpp else 0
            up = previous[i]
            upper_left = previous[i - bpp] if i >= bpp else 0
            predictor = [0, left, up, (left + up) // 2, paeth(left, up, upper_left)][kind]
            line.append((value - predictor) % 256)
        out.append(kind)
        out += line
        previous = row
    return out


def scanline(colour_type, key, xs, y):
    row = bytearray()
    for x in xs:
        for value in pixel(colour_type, key, x, y):
            row += struct.pack(">H", value)
    return bytes(row)


def chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def png(colour_type, width, height, interlaced, key=None, gamma=None):
    bpp = 2 * CHANNELS[colour_type]
    raw = bytearray()
    if interlaced:
        for x0, y0, dx, dy in ADAM7:
            xs = range(x0, width, dx)
            if len(xs) == 0:
                continue  # an empty pass has no scanlines
            raw += filtered([scanline(colour_type, key, xs, y) for y in range(y0, height, dy)], bpp)
    else:
        raw += filtered([scanline(colour_type, key, range(width), y) for y in range(height)], bpp)
    header = struct.pack(">IIBBBBB", width, height, 16, colour_type, 0, 0, 1 if interlaced else 0)
    data = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
    if gamma is not None:
        data += chunk(b"gAMA", struct.pack(">I", gamma))
    if key is not None:
        data += chunk(b"tRNS", b"".join(struct.pack(">H", value) for value in key))
    data += chunk(b"IDAT", zlib.compress(bytes(raw), 9)) + chunk(b"IEND", b"")
    return data


IMAGES = [
    # name, colour type, width, height, tRNS key, gAMA
    ("0g16", GREY, 21, 13, None, None),
    ("2c16", RGB, 21, 13, None, None),
    ("4a16", GREY_ALPHA, 21, 13, None, 100000),
    ("6a16", RGBA, 21, 13, None, 100000),
    ("0g16-trns", GREY, 7, 5, GREY_KEY, None),
    ("2c16-trns", RGB, 3, 2, RGB_KEY, None),
]

if __name__ == "__main__":
    for name, colour_type, width, height, key, gamma in IMAGES:
        for prefix, interlaced in (("adam7", True), ("plain", False)):
            path = os.path.join(FIXTURES, f"{prefix}-{name}.png")
            with open(path, "wb") as file:
                file.write(png(colour_type, width, height, interlaced, key, gamma))
            print(path)
