"""The HTML export's timeline and context picture: inline SVG, every segment a link to an
entry on the page, no script (issue 31)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

from piview.export import export_branch
from piview.model import load_session
from tests.app.timeline_session import write_session


def _export(src: Path, out: Path) -> str:
    export_branch(load_session(src), None, fmt="html", tools="preview", thinking=True, out=out)
    return out.read_text(encoding="utf-8")


def test_both_pictures_are_inline_svg_linking_to_entries(tmp_path: Path) -> None:
    page = _export(write_session(tmp_path / "timeline.jsonl"), tmp_path / "out.html")
    assert "<script" not in page.lower()
    assert "Content-Security-Policy" in page and "default-src &#x27;none&#x27;" in page
    svgs = re.findall(r"<svg class=\"(tl|ctx)\".*?</svg>", page, re.S)
    assert sorted(svgs) == ["ctx", "tl"]
    anchors = set(re.findall(r'id="entry-([^"]+)"', page))
    links = re.findall(r'<a href="#entry-([^"]+)">', page)
    timeline = re.search(r'<svg class="tl".*?</svg>', page, re.S)
    assert timeline is not None
    segment_links = re.findall(r'<a href="#entry-([^"]+)"><rect', timeline.group(0))
    # Every model time, call and wait drawn is a link: 5 turns, 4 calls, 1 wait (the other
    # one folded, its length printed).
    assert len(segment_links) == 10
    assert set(segment_links) <= anchors and set(links) <= anchors
    # A call links to its result (drawn with the call), model time to its message.
    assert {"r0000001", "r0000003", "a0000001"} <= set(segment_links)
    assert "3m00s" in timeline.group(0)  # the folded wait
    for svg in re.findall(r"<svg .*?</svg>", page, re.S):
        if 'class="ico"' not in svg:
            ET.fromstring(svg)  # well-formed on its own


def test_a_branch_without_assistant_turns_has_no_pictures(tmp_path: Path) -> None:
    src = tmp_path / "prompt.jsonl"
    src.write_text(
        '{"type":"session","version":3,"id":"s1","timestamp":"2026-05-11T08:00:00.000Z",'
        '"cwd":"/x"}\n{"type":"message","id":"u1","parentId":null,"timestamp":'
        '"2026-05-11T08:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}\n'
    )
    page = _export(src, tmp_path / "out.html")
    assert '<svg class="tl"' not in page and '<section class="figures">' not in page
