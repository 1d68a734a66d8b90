"""A headless Chromium for tests: render a local HTML file, read its DOM and a screenshot.

Only the Debian ``chromium`` package is used (no driver, nothing downloaded); tests
skip with a reason when no binary is installed. Screenshots are decoded by
:func:`read_png` (Pillow when installed, else zlib and NumPy).
"""

from __future__ import annotations

import shutil
import struct
import subprocess
import zlib
from pathlib import Path
from typing import List, Optional

import numpy as np

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "chrome")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run",
         "--disable-default-apps", "--disable-extensions", "--hide-scrollbars",
         "--force-device-scale-factor=1", "--mute-audio")


def chromium_binary() -> Optional[str]:
    """Path of an installed Chromium, or None."""
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


def _run(binary: str, profile: Path, extra: List[str], page: Path) -> subprocess.CompletedProcess:
    command = [binary, *FLAGS, f"--user-data-dir={profile}", *extra, page.resolve().as_uri()]
    return subprocess.run(command, capture_output=True, text=True, timeout=180)


def dump_dom(binary: str, page: Path, profile: Path) -> str:
    """The DOM of ``page`` after loading, serialized."""
    result = _run(binary, profile, ["--dump-dom"], page)
    if result.returncode != 0:
        raise RuntimeError(f"chromium --dump-dom failed: {result.stderr[-2000:]}")
    return result.stdout


def screenshot(binary: str, page: Path, profile: Path, target: Path, width: int,
               height: int) -> np.ndarray:
    """A ``width`` x ``height`` screenshot of ``page`` as an RGB array."""
    result = _run(binary, profile, [f"--screenshot={target}",
                                    f"--window-size={width},{height}"], page)
    if result.returncode != 0 or not target.is_file():
        raise RuntimeError(f"chromium --screenshot failed: {result.stderr[-2000:]}")
    return read_png(target)


def read_png(path: Path) -> np.ndarray:
    """An 8-bit RGB(A) PNG as a ``(height, width, 3)`` uint8 array."""
    try:
        from PIL import Image
    except ImportError:
        return _decode_png(path.read_bytes())
    with Image.open(path) as image:
        return np.asarray(image.convert("RGB"))


def _decode_png(data: bytes, max_rows: Optional[int] = None) -> np.ndarray:
    """Minimal PNG decoder: 8-bit RGB or RGBA, not interlaced (what Chromium writes);
    ``max_rows`` stops after that many rows."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG file")
    position, chunks, header = 8, [], None
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        body = data[position + 8:position + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            chunks.append(body)
        position += 12 + length
    width, height, depth, color, _, _, interlace = header
    if depth != 8 or color not in (2, 6) or interlace:
        raise ValueError("only 8-bit RGB/RGBA non-interlaced PNGs are supported")
    channels = 3 if color == 2 else 4
    stride = width * channels
    raw = np.frombuffer(zlib.decompress(b"".join(chunks)), dtype=np.uint8)
    raw = raw.reshape(height, stride + 1)
    height = height if max_rows is None else min(height, max_rows)
    image = np.zeros((height, stride), dtype=np.uint8)
    previous = np.zeros(stride, dtype=np.uint8)
    for row in range(height):
        kind, line = raw[row, 0], raw[row, 1:].astype(np.int32)
        if kind == 0:
            current = line
        elif kind == 1:  # Sub: running sum per channel
            current = np.cumsum(line.reshape(width, channels), axis=0).reshape(-1)
        elif kind == 2:  # Up
            current = line + previous
        else:
            current = _unfilter_slow(kind, line, previous.astype(np.int32), channels)
        image[row] = previous = (current % 256).astype(np.uint8)
    return image.reshape(height, width, channels)[:, :, :3]


def _unfilter_slow(kind: int, line: np.ndarray, previous: np.ndarray, channels: int
                   ) -> np.ndarray:
    """Average (3) and Paeth (4) filters, pixel by pixel."""
    out = np.zeros_like(line)
    for i in range(line.size):
        left = out[i - channels] if i >= channels else 0
        up = previous[i]
        if kind == 3:
            out[i] = (line[i] + (left + up) // 2) % 256
            continue
        upper_left = previous[i - channels] if i >= channels else 0
        estimate = left + up - upper_left
        pa, pb, pc = abs(estimate - left), abs(estimate - up), abs(estimate - upper_left)
        pick = left if pa <= pb and pa <= pc else up if pb <= pc else upper_left
        out[i] = (line[i] + pick) % 256
    return out


def hex_rgb(color: str) -> np.ndarray:
    """``#1f77b4`` -> ``array([31, 119, 180])``."""
    return np.array([int(color[i:i + 2], 16) for i in (1, 3, 5)], dtype=np.int16)


def color_mask(image: np.ndarray, color: str, tolerance: int = 2) -> np.ndarray:
    """Pixels within ``tolerance`` of ``color`` on every channel."""
    return np.all(np.abs(image.astype(np.int16) - hex_rgb(color)) <= tolerance, axis=2)
