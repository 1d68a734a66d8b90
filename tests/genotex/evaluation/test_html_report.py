"""The HTML report (genotex.evaluation.html_report), also rendered in headless Chromium."""

from __future__ import annotations

import re
import shutil
import struct
import zlib
from typing import Dict, List

import numpy as np
import pytest

from genotex.evaluation.html_report import TINTS, render_html, write_html_report
from genotex.evaluation.svg_plots import series_color, short_label
from tests.browser import (_decode_png, chromium_binary, color_mask, dump_dom, read_png,
                           screenshot)
from tests.genotex.evaluation.helpers import RESULT_A, evaluate

METHODS = ("perfect", "damaged", "third")
PLOT_IDS = ("plot-overview", "plot-categories-f1", "plot-categories-auroc",
            "plot-categories-gsea_es", "plot-auroc", "plot-csc-gene", "plot-csc-clinical",
            "plot-csc-linked")


@pytest.fixture(scope="module")
def reports(ref_root, tmp_path_factory) -> List[Dict]:
    """Three methods: a perfect copy, one with a lost result and a blanked table, one
    with a noisy gene table."""
    base = tmp_path_factory.mktemp("methods")
    folders = {}
    for name in METHODS:
        folders[name] = base / name
        shutil.copytree(ref_root, folders[name])
    (folders["damaged"] / RESULT_A).unlink()
    gene = folders["damaged"] / "preprocess/Trait_A/gene_data/GSE200.csv"
    lines = gene.read_text().splitlines()
    gene.write_text("\n".join(lines[:1] + [line.split(",")[0] + "," * (line.count(","))
                                           if i % 2 else line for i, line in
                                           enumerate(lines[1:])]) + "\n")
    noisy = folders["third"] / "preprocess/Trait_B/gene_data/GSE400.csv"
    rng = np.random.default_rng(0)
    rows = [noisy.read_text().splitlines()[0]]
    for line in noisy.read_text().splitlines()[1:]:
        label, *cells = line.split(",")
        rows.append(",".join([label, *(f"{float(c) + rng.normal(0, 3):.4f}" for c in cells)]))
    noisy.write_text("\n".join(rows) + "\n")
    return [evaluate(folders[name], ref_root, method=name) for name in METHODS]


def test_html_is_self_contained_with_every_plot_and_row(reports):
    page = render_html(reports)
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", page)
    assert "<script" not in page and "@import" not in page and "url(" not in page
    for plot_id in PLOT_IDS:
        assert f'id="{plot_id}"' in page
    for name in METHODS:
        assert page.count(f'data-method="{name}"') == 2  # both leaderboard tables
    for tint in TINTS.values():
        assert tint in page


def test_single_method_page(reports, tmp_path):
    path = write_html_report(reports[:1], tmp_path / "one.html")
    page = path.read_text()
    assert page.startswith("<!DOCTYPE html>") and 'id="plot-auroc"' in page


def test_short_labels_keep_the_cohort_id():
    assert short_label("Ankylosing_Spondylitis/GSE9100301") == "Ankylosing_S\u2026/GSE9100301"
    assert short_label("short/GSE1") == "short/GSE1"
    assert len(short_label("x" * 40)) == 24


def _png(rows: np.ndarray, filters: List[int]) -> bytes:
    """Encode an RGB image with the given filter type per row (the PNG spec's filters)."""
    height, width, _ = rows.shape
    flat = rows.reshape(height, width * 3).astype(np.int32)
    body = b""
    previous = np.zeros(width * 3, dtype=np.int32)
    for line, kind in zip(flat, filters):
        left = np.concatenate([np.zeros(3, dtype=np.int32), line[:-3]])
        upper_left = np.concatenate([np.zeros(3, dtype=np.int32), previous[:-3]])
        if kind == 0:
            filtered = line
        elif kind == 1:
            filtered = line - left
        elif kind == 2:
            filtered = line - previous
        elif kind == 3:
            filtered = line - (left + previous) // 2
        else:
            estimate = left + previous - upper_left
            pa, pb, pc = (abs(estimate - left), abs(estimate - previous),
                          abs(estimate - upper_left))
            pick = np.where((pa <= pb) & (pa <= pc), left, np.where(pb <= pc, previous,
                                                                     upper_left))
            filtered = line - pick
        body += bytes([kind]) + (filtered % 256).astype(np.uint8).tobytes()
        previous = line

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(body)) + chunk(b"IEND", b""))


def test_png_decoder_handles_every_filter():
    rng = np.random.default_rng(3)
    image = rng.integers(0, 256, (5, 7, 3), dtype=np.uint8)
    decoded = _decode_png(_png(image, [0, 1, 2, 3, 4]))
    np.testing.assert_array_equal(decoded, image)


# --------------------------------------------------------------------------- browser

@pytest.fixture(scope="module")
def chromium() -> str:
    binary = chromium_binary()
    if binary is None:
        pytest.skip("no Chromium binary on this machine (Debian package 'chromium'; "
                    ".ci/run installs it)")
    return binary


def plot_bands(image: np.ndarray, tint: str, min_pixels: int = 40) -> List[slice]:
    """Row ranges of the screenshot where a plot area of this tint is visible."""
    rows = np.flatnonzero(color_mask(image, tint).sum(axis=1) >= min_pixels)
    if rows.size == 0:
        return []
    breaks = np.flatnonzero(np.diff(rows) > 1)
    starts = np.concatenate([[rows[0]], rows[breaks + 1]])
    ends = np.concatenate([rows[breaks], [rows[-1]]])
    return [slice(int(a), int(b) + 1) for a, b in zip(starts, ends)]


def test_report_renders_in_headless_chromium(chromium, reports, tmp_path):
    page = write_html_report(reports, tmp_path / "report.html")
    dom = dump_dom(chromium, page, tmp_path / "profile")
    for table in ("leaderboard-selection", "leaderboard-analysis"):
        body = dom.split(f'id="{table}"', 1)[1].split("</table>", 1)[0]
        assert re.findall(r'data-method="([^"]+)"', body) == list(METHODS)
    for plot_id in PLOT_IDS:
        assert f'id="{plot_id}"' in dom
    image = screenshot(chromium, page, tmp_path / "profile", tmp_path / "shot.png", 1400,
                       4200)
    assert image.shape == (4200, 1400, 3)
    colors = [series_color(i) for i in range(len(METHODS))]
    for name, tint in TINTS.items():
        bands = plot_bands(image, tint)
        assert bands, f"plot {name}: its plot area is not on the screenshot"
        rows = np.zeros(image.shape[0], dtype=bool)
        for band in bands:
            rows[band] = True
        region = image[rows]
        for method, color in zip(METHODS, colors):
            bar_pixels = int(color_mask(region, color).sum())
            assert bar_pixels >= 150, f"plot {name}: no bars of {method} ({bar_pixels} px)"
    try:
        from PIL import Image  # noqa: F401
    except ImportError:
        return
    top = image[:300]
    decoded = _decode_png((tmp_path / "shot.png").read_bytes(), max_rows=300)
    np.testing.assert_array_equal(decoded, top)  # the fallback decoder agrees with Pillow


def test_screenshot_reader_rejects_other_files(tmp_path):
    path = tmp_path / "x.png"
    path.write_bytes(b"not a png")
    with pytest.raises(Exception):
        read_png(path)
