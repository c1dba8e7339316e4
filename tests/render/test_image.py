"""Image previews: header facts, half-block rows, and notices for bad data."""

from __future__ import annotations

import base64
import io

from PIL import Image
from rich.console import Console

from piview.render.image import clear_cache, image_info, render_image
from tests.render.helpers import to_str


def png(w: int, h: int, color: tuple[int, int, int] = (200, 30, 30)) -> str:
    buf = io.BytesIO()
    Image.new("RGB", (w, h), color).save(buf, format="PNG")
    return base64.b64encode(buf.getvalue()).decode()


def test_info_reads_png_header_without_decoding() -> None:
    info = image_info(png(640, 480), "image/png")
    assert (info.width, info.height) == (640, 480)
    assert info.mime == "image/png"
    assert info.nbytes > 0


def test_header_line_and_no_blocks_on_plain_console() -> None:
    out = to_str(render_image(png(64, 32), "image/png", width=80))
    assert out.splitlines()[0].startswith("▣ image/png 64×32")
    assert "▀" not in out  # no colour: no preview noise


def test_half_block_preview_fits_and_keeps_aspect() -> None:
    c = Console(width=100, file=io.StringIO(), color_system="truecolor", force_terminal=True)
    c.print(render_image(png(200, 100), "image/png", width=100))
    lines = c.file.getvalue().splitlines()  # type: ignore[attr-defined]
    blocks = [ln for ln in lines if "▀" in ln]
    # 200×100 → 60 columns × 30 pixels → 15 rows of cells
    assert len(blocks) == 15
    assert blocks[0].count("▀") == 60
    assert "\x1b[38;2;200;30;30" in lines[1]


def test_tall_image_is_capped_in_rows() -> None:
    c = Console(width=100, file=io.StringIO(), color_system="truecolor", force_terminal=True)
    c.print(render_image(png(50, 1000), "image/png", width=100))
    blocks = [ln for ln in c.file.getvalue().splitlines() if "▀" in ln]  # type: ignore[attr-defined]
    assert len(blocks) == 20


def test_invalid_base64_is_a_notice() -> None:
    out = to_str(render_image("iVBORw0KGgo!!!not*base64@@", "image/png", width=80))
    assert "invalid base64" in out
    assert len(out.strip().splitlines()) == 1
    assert "iVBOR" not in out


def test_undecodable_image_is_a_notice() -> None:
    data = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\x00" * 40).decode()
    out = to_str(render_image(data, "image/png", width=80))
    assert "cannot decode image" in out
    assert len(out.strip().splitlines()) == 1


def test_cache_returns_same_object() -> None:
    clear_cache()
    data = png(10, 10)
    a = render_image(data, "image/png", width=40, key=("k", 1))
    b = render_image(data, "image/png", width=40, key=("k", 1))
    assert a is b
