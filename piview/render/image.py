"""Provides image previews: a header line and a half-block colour thumbnail, from base64 data.

Each terminal cell shows two pixels stacked: ``▀`` drawn with the upper pixel as foreground and
the lower one as background. Cells are about twice as tall as wide, so an image resized to
``cols × 2·rows`` pixels keeps its aspect ratio. Pillow does the decoding; without Pillow, or for
data that is not an image, only the header (or a one-line notice) is shown. Nothing here talks
to the terminal, so the output is the same in tests, snapshots and any terminal.

Decoding dominates the cost (tens of ms for a large PNG), so previews are cached per caller key
(entry, block, width) in a small LRU.
"""

from __future__ import annotations

import base64
import binascii
import re
import struct
import warnings
from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass
from io import BytesIO

from rich.color import Color
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.measure import Measurement
from rich.segment import Segment
from rich.style import Style
from rich.text import Text

from piview.model.blobs import BLOB_PREFIX
from piview.render.format import fmt_bytes
from piview.render.sanitize import sanitize_line
from piview.render.theme import style

MAX_COLS = 60
"""Widest preview, in cells."""
MAX_ROWS = 20
"""Tallest preview, in cells (40 pixels)."""
_MAX_PIXELS = 50_000_000  # refuse to decode anything bigger (decompression bombs)
_CACHE_SIZE = 64


@dataclass(frozen=True, slots=True)
class ImageInfo:
    """What is known about an image without decoding its pixels."""

    mime: str
    width: int | None
    height: int | None
    nbytes: int
    """Size of the decoded data (estimated from the base64 length)."""
    blob: str | None = None
    """The hash of an oh-my-pi blob reference that could not be resolved (a missing blob)."""


def _strip_prefix(data: str) -> str:
    # Pi stores bare base64; tolerate a data: URL anyway.
    if data.startswith("data:"):
        comma = data.find(",")
        return data[comma + 1 :] if comma >= 0 else ""
    return data


def _b64_size(data: str) -> int:
    n = len(data.rstrip("="))
    return n * 3 // 4


def _dims_from_head(head: bytes) -> tuple[int, int] | None:
    """Width and height from the first bytes of a PNG, GIF or WebP file."""
    if head.startswith(b"\x89PNG\r\n\x1a\n") and head[12:16] == b"IHDR" and len(head) >= 24:
        w, h = struct.unpack(">II", head[16:24])
        return w, h
    if head[:6] in (b"GIF87a", b"GIF89a") and len(head) >= 10:
        w, h = struct.unpack("<HH", head[6:10])
        return w, h
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP" and len(head) >= 30:
        kind = head[12:16]
        if kind == b"VP8X":
            w = int.from_bytes(head[24:27], "little") + 1
            h = int.from_bytes(head[27:30], "little") + 1
            return w, h
        if kind == b"VP8 ":
            w, h = struct.unpack("<HH", head[26:30])
            return w & 0x3FFF, h & 0x3FFF
        if kind == b"VP8L" and len(head) >= 25:
            b = head[21:25]
            w = 1 + (((b[1] & 0x3F) << 8) | b[0])
            h = 1 + (((b[3] & 0x0F) << 10) | (b[2] << 2) | ((b[1] & 0xC0) >> 6))
            return w, h
    return None


def _dims_from_jpeg(raw: bytes) -> tuple[int, int] | None:
    # Walk the JPEG markers to the first start-of-frame.
    if not raw.startswith(b"\xff\xd8"):
        return None
    i, n = 2, len(raw)
    while i + 9 < n:
        if raw[i] != 0xFF:
            i += 1
            continue
        marker = raw[i + 1]
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7 or marker == 0xFF:
            i += 1 if marker == 0xFF else 2
            continue
        seg_len = int.from_bytes(raw[i + 2 : i + 4], "big")
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            h, w = struct.unpack(">HH", raw[i + 5 : i + 9])
            return w, h
        i += 2 + seg_len
    return None


def image_info(data: object, mime: object) -> ImageInfo:
    """Mime type, pixel size and byte size of a base64 image, reading only its header bytes."""
    mime_s = sanitize_line(mime) or "image"
    if not isinstance(data, str):
        return ImageInfo(mime_s, None, None, 0)
    if data.startswith(BLOB_PREFIX):  # resolved when the entry was read: this one is missing
        return ImageInfo(mime_s, None, None, 0, sanitize_line(data[len(BLOB_PREFIX) :]))
    data = _strip_prefix(data)
    dims: tuple[int, int] | None = None
    try:
        head = base64.b64decode(data[:64] + "=" * (-len(data[:64]) % 4))
        dims = _dims_from_head(head)
    except (binascii.Error, ValueError):
        dims = None
    return ImageInfo(mime_s, dims[0] if dims else None, dims[1] if dims else None, _b64_size(data))


def image_label(info: ImageInfo) -> str:
    """``image/png 640×480, 12.3 KB`` (plain text)."""
    if info.blob is not None:
        return f"{info.mime}, blob {info.blob[:12]}… missing"
    parts = [info.mime]
    if info.width is not None and info.height is not None:
        parts.append(f"{info.width}×{info.height}")
    label = " ".join(parts)
    return f"{label}, {fmt_bytes(info.nbytes)}"


class HalfBlockImage:
    """A Rich renderable of precomputed half-block rows (``▀`` with fg = upper, bg = lower pixel).

    On a console without colour (plain text output, ``NO_COLOR``) it renders nothing: rows of
    ``▀`` would only be noise there.
    """

    def __init__(self, rows: list[list[Segment]], width: int) -> None:
        self.rows = rows
        self.width = width

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if console.no_color or console.color_system is None:
            return
        max_width = options.max_width
        new_line = Segment.line()
        for row in self.rows:
            if self.width > max_width:
                yield from Segment.adjust_line_length(row, max_width)
            else:
                yield from row
            yield new_line

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        w = min(self.width, options.max_width)
        return Measurement(w, w)


def _half_block_rows(pixels: bytes, cols: int, px_rows: int) -> list[list[Segment]]:
    styles: dict[tuple[bytes, bytes], Style] = {}
    colors: dict[bytes, Color] = {}

    def color(p: bytes) -> Color:
        c = colors.get(p)
        if c is None:
            c = colors[p] = Color.from_rgb(p[0], p[1], p[2])
        return c

    stride = cols * 3
    rows: list[list[Segment]] = []
    for y in range(0, px_rows, 2):
        top = pixels[y * stride : (y + 1) * stride]
        bottom = pixels[(y + 1) * stride : (y + 2) * stride]
        row: list[Segment] = []
        prev_key: tuple[bytes, bytes] | None = None
        run = 0
        for x in range(0, stride, 3):
            key = (top[x : x + 3], bottom[x : x + 3])
            if key == prev_key:
                run += 1
                continue
            if prev_key is not None:
                row.append(Segment("▀" * run, styles[prev_key]))
            if key not in styles:
                styles[key] = Style(color=color(key[0]), bgcolor=color(key[1]))
            prev_key, run = key, 1
        if prev_key is not None:
            row.append(Segment("▀" * run, styles[prev_key]))
        rows.append(row)
    return rows


def _decode_preview(raw: bytes, max_cols: int, max_rows: int) -> HalfBlockImage:
    """Decode and shrink an image to half-block rows (raises on anything undecodable)."""
    from PIL import Image  # optional dependency, imported on first use

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # DecompressionBombWarning etc.: the size is checked
        img: Image.Image = Image.open(BytesIO(raw))
        w0, h0 = img.size
        if w0 <= 0 or h0 <= 0 or w0 * h0 > _MAX_PIXELS:
            raise ValueError(f"image too large to preview ({w0}×{h0})")
        cols = max(1, min(max_cols, w0))
        px_h = max(1, round(h0 * cols / w0))
        if px_h > 2 * max_rows:
            px_h = 2 * max_rows
            cols = max(1, min(cols, round(w0 * px_h / h0)))
        px_h += px_h % 2  # whole cells
        if img.format == "JPEG":
            img.draft("RGB", (cols * 2, px_h * 2))  # decode at reduced scale: much faster
        img.load()
        if img.mode in ("RGBA", "LA", "PA") or (img.mode == "P" and "transparency" in img.info):
            rgba = img.convert("RGBA")
            bg = Image.new("RGBA", rgba.size, (0, 0, 0, 255))
            img = Image.alpha_composite(bg, rgba)
        img = img.convert("RGB").resize((cols, px_h), Image.Resampling.BOX, reducing_gap=2.0)
        return HalfBlockImage(_half_block_rows(img.tobytes(), cols, px_h), cols)


_cache: OrderedDict[Hashable, RenderableType] = OrderedDict()
_by_content: OrderedDict[Hashable, RenderableType] = OrderedDict()
_CONTENT_CACHE_SIZE = 16  # previews kept by their data (the data is kept alive with them)


def clear_cache() -> None:
    """Forget every cached preview."""
    _cache.clear()
    _by_content.clear()


def _notice(text: str) -> RenderableType:
    # In a Group so that no_wrap holds even when the notice is printed on its own.
    return Group(Text(text, style=style("piview.error.text"), no_wrap=True, overflow="ellipsis"))


def render_image(
    data: object,
    mime: object,
    *,
    width: int,
    key: Hashable | None = None,
    max_rows: int = MAX_ROWS,
) -> RenderableType:
    """A header line (mime, pixel size, byte size) and a half-block preview of an image.

    Invalid base64 or an undecodable image gives a one-line notice instead; nothing raises.

    Args:
        data: the block's base64 ``data``.
        mime: its ``mimeType``.
        width: columns available; the preview is at most ``min(width, 60)`` wide.
        key: cache key for this image at this width (e.g. ``(path, entry, block, width)``).
        max_rows: tallest preview in cells.
    """
    if key is not None:
        hit = _cache.get(key)
        if hit is not None:
            _cache.move_to_end(key)
            return hit
    # The same image drawn again (a screenshot read twice, another item): drawn once.
    same = (data, mime, width, max_rows) if isinstance(data, str) else None
    out = _by_content.get(same) if same is not None else None
    if out is None:
        out = _render_image(data, mime, width=width, max_rows=max_rows)
        if same is not None:
            _by_content[same] = out
            if len(_by_content) > _CONTENT_CACHE_SIZE:
                _by_content.popitem(last=False)
    if key is not None:
        _cache[key] = out
        if len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return out


def _render_image(data: object, mime: object, *, width: int, max_rows: int) -> RenderableType:
    info = image_info(data, mime)
    label = image_label(info)
    if not isinstance(data, str) or not data:
        return _notice(f"▣ {info.mime}: no image data")
    if info.blob is not None:
        return _notice(f"▣ {info.mime}: blob sha256:{info.blob[:12]}… not found (agent blobs/)")
    b64 = "".join(_strip_prefix(data).split())
    try:
        raw = base64.b64decode(b64 + "=" * (-len(b64) % 4), validate=True)
    except (binascii.Error, ValueError):
        return _notice(f"✗ {info.mime}: invalid base64 ({len(data):,} chars), not shown")
    if info.width is None:
        dims = _dims_from_jpeg(raw)
        if dims is not None:
            info = ImageInfo(info.mime, dims[0], dims[1], len(raw))
            label = image_label(info)
    header = Text(f"▣ {label}", style=style("piview.image"), no_wrap=True, overflow="ellipsis")
    max_cols = max(1, min(MAX_COLS, width))
    try:
        preview = _decode_preview(raw, max_cols, max_rows)
    except ImportError:
        header.append("  (install Pillow for a preview)", style=style("piview.notice"))
        return Group(header)
    except Exception as exc:  # noqa: BLE001 - any decoder failure is just "cannot preview"
        reason = _reason(exc)
        return _notice(f"✗ {label}: cannot decode image ({reason})")
    return Group(header, preview)


def _reason(exc: Exception) -> str:
    if type(exc).__name__ == "UnidentifiedImageError":
        return "not a recognised image format"
    text = _OBJ_RE.sub("", sanitize_line(str(exc)))
    return text[:80] or type(exc).__name__


_OBJ_RE = re.compile(r"\s*<[\w.]+ object at 0x[0-9a-f]+>")
