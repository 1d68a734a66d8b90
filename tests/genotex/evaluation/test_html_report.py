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
from genotex.evaluation.svg_plots import Series, grouped_bars, series_color, short_label
from tests.browser import (_decode_png, chromium_binary, color_mask, dump_dom, read_png,
                           screenshot)
from tests.genotex.evaluation.helpers import RESULT_A, evaluate

METHODS = ("perfect", "damaged", "third")
PLOT_IDS = ("plot-overview", "plot-categories-f1", "plot-categories-auroc",
            "plot-categories-gsea_es", "plot-auroc", "plot-csc-gene", "plot-csc-clinical",
            "plot-csc-linked")


#: The damaged method's missing items: one result file, one gene table.
MISSING_TABLE = "preprocess/Trait_B/gene_data/GSE500.csv"


@pytest.fixture(scope="module")
def reports(ref_root, tmp_path_factory) -> List[Dict]:
    """Three methods: a perfect copy, one with a lost result, a lost gene table and a
    blanked table, one with a noisy gene table."""
    base = tmp_path_factory.mktemp("methods")
    folders = {}
    for name in METHODS:
        folders[name] = base / name
        shutil.copytree(ref_root, folders[name])
    (folders["damaged"] / RESULT_A).unlink()
    (folders["damaged"] / MISSING_TABLE).unlink()
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


def _svg(page: str, plot_id: str) -> str:
    return page.split(f'id="{plot_id}"', 1)[1].split("</svg>", 1)[0]


def _notes(svg: str) -> str:
    """The notes under a chart as one line of text (they wrap in the SVG)."""
    return " ".join(" ".join(re.findall(r'class="note"[^>]*>([^<]*)<', svg)).split())


def test_missing_items_are_drawn_as_missing_never_as_zeros(reports):
    """The damaged method's lost result stays out of the AUROC histogram (a note counts
    it) and its lost gene table is a missing marker, not a CSC bar of 0."""
    page = render_html(reports)
    auroc = _svg(page, "plot-auroc")
    drawn = [int(n) for n in re.findall(r"<title>damaged, [0-9.]+-[0-9.]+: (\d+)</title>", auroc)]
    items = reports[1]["analysis"]["problems"]
    defined = [i for i in items if i["status"] == "ok" and i["auroc"] == i["auroc"]]
    assert len(items) == 6 and len(defined) == 4  # 1 missing result, 1 AUROC undefined
    assert sum(drawn) == len(defined)
    assert ("damaged: 4 problems drawn; 1 without a valid result (missing 1) are not drawn; "
            "1 with AUROC undefined") in _notes(auroc)
    gene = _svg(page, "plot-csc-gene")
    assert gene.count('class="missing"') == 1
    assert "<title>damaged, Trait_B/GSE500: missing</title>" in gene
    assert "<title>damaged, Trait_B/GSE500: 0" not in gene  # no bar of 0 for it
    assert "damaged: 1 tables missing or unusable (missing 1)" in _notes(gene)
    categories = _svg(page, "plot-categories-f1")
    assert "damaged: 1 of 6 problems have no valid result (missing 1)" in _notes(categories)
    for plot_id in PLOT_IDS:  # every chart titles its axes
        assert page.count('class="axis-title"', page.index(f'id="{plot_id}"'),
                          page.index("</svg>", page.index(f'id="{plot_id}"'))) == 2, plot_id


def test_axes_end_on_a_labelled_tick():
    chart = grouped_bars("t", ["a", "b"], [Series("m", "#1f77b4", [37.0, 3.0])],
                         y_label="problems", x_label="bin")
    top_tick = re.findall(r'class="tick" x="[0-9.]+" y="([0-9.]+)"[^>]*>([^<]+)<', chart)[-1]
    area_y = float(re.search(r'class="plot-area" x="[0-9.]+" y="([0-9.]+)"', chart).group(1))
    assert top_tick == (f"{area_y + 4:.1f}", "40")  # the axis top carries the label 40


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


def plot_areas(columns: np.ndarray, min_width: int = 100) -> List[tuple]:
    """``(first, last)`` column of each run of tinted or barred columns (one per chart)."""
    found = np.flatnonzero(columns)
    if found.size == 0:
        return []
    breaks = np.flatnonzero(np.diff(found) > 3)
    starts = np.concatenate([[found[0]], found[breaks + 1]])
    ends = np.concatenate([found[breaks], [found[-1]]])
    return [(int(a), int(b)) for a, b in zip(starts, ends) if b - a >= min_width]


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
        # the bars fill each plot area: its last group ends near the area's right edge
        bars = np.any([color_mask(region, c).any(axis=0) for c in colors], axis=0)
        for start, end in plot_areas(bars | color_mask(region, tint).any(axis=0)):
            last_bar = np.flatnonzero(bars[start:end + 1]).max()
            gap = (end - start - last_bar) / (end - start)
            assert gap < 0.05, f"plot {name}: {gap:.0%} of a plot area is right of its bars"
    missing = dom.split('id="plot-csc-gene"', 1)[1].split("</svg>", 1)[0]
    assert missing.count('class="missing"') == 1 and ">missing</text>" in missing
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
