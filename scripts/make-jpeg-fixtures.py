#!/usr/bin/env python3
"""Writes the crafted JPEG fixtures of Tests/BaselineImagesTests/Fixtures.

- `lossless.jpg`: a valid lossless JPEG (SOF3, Huffman, predictor 1), 8x8
  grey, every sample 128 (so every difference from the prediction is 0).
- `extended-12bit.jpg`: a valid extended-sequential JPEG (SOF1) of 12-bit
  samples, 8x8 grey, one block whose coefficients are all 0 (mid-grey).
- `many-scans.jpg`: `progressive.jpg` with its second scan (and the Huffman
  table before it) repeated until the file has 110 scans. libjpeg warns of
  a "bogus progression" and decodes it; each repeat refines nothing, as a
  hostile file's thousands of scans need not.

Deterministic: run `python3 scripts/make-jpeg-fixtures.py` from the
repository's root to write them again.
"""

import os
import struct

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "Tests", "BaselineImagesTests", "Fixtures")


def segment(marker, payload):
    return bytes([0xFF, marker]) + struct.pack(">H", len(payload) + 2) + payload


def frame(marker, precision):
    # 8x8, one component (id 1, no subsampling, quantisation table 0).
    return segment(marker, bytes([precision]) + struct.pack(">HH", 8, 8) + bytes([1, 1, 0x11, 0]))


def huffman(table_class_and_id, symbol):
    # One code, "0" (length 1), for `symbol`.
    return segment(0xC4, bytes([table_class_and_id, 1] + [0] * 15 + [symbol]))


def lossless():
    scan = segment(0xDA, bytes([1, 1, 0x00, 1, 0, 0]))  # predictor 1, point transform 0
    data = bytes(8)  # 64 differences of category 0: 64 zero bits
    return b"\xff\xd8" + frame(0xC3, 8) + huffman(0x00, 0) + scan + data + b"\xff\xd9"


def extended_12bit():
    quantisation = segment(0xDB, bytes([0x00] + [1] * 64))
    scan = segment(0xDA, bytes([1, 1, 0x00, 0, 63, 0]))
    data = bytes([0b00111111])  # DC difference category 0, end of block, padding
    return (
        b"\xff\xd8" + quantisation + frame(0xC1, 12) + huffman(0x00, 0) + huffman(0x10, 0x00)
        + scan + data + b"\xff\xd9"
    )


def many_scans(count):
    with open(os.path.join(FIXTURES, "progressive.jpg"), "rb") as file:
        progressive = file.read()
    # progressive.jpg: its first scan ends at 256, where the Huffman table of
    # the second scan starts; the second scan ends at 289.
    assert progressive[256:258] == b"\xff\xc4" and progressive[289:291] == b"\xff\xc4"
    return progressive[:256] + progressive[256:289] * (count - 1) + b"\xff\xd9"


if __name__ == "__main__":
    for name, data in [
        ("lossless.jpg", lossless()),
        ("extended-12bit.jpg", extended_12bit()),
        ("many-scans.jpg", many_scans(110)),
    ]:
        path = os.path.join(FIXTURES, name)
        with open(path, "wb") as file:
            file.write(data)
        print(path, len(data))
