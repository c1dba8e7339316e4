"""Provides the readable form of a branch comparison: sections of rows, in columns or stacked.

:func:`comparison_sections` turns a :class:`~piview.model.branchdiff.BranchDiff` into
sections (the common ancestor, prompts, tool calls, files, outcome, totals), each a list of
``(A cell, B cell)`` pairs; :func:`layout_rows` lays them out side by side (wide terminals) or
one side under the other (narrow ones, each line tagged ``A`` or ``B``). Each cell keeps the
entry it stands for, so that the comparison screen can open it; :func:`comparison_renderable`
draws the same rows for ``piview diff``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import zip_longest
from typing import TYPE_CHECKING, Literal

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from piview.model.treetext import row_text
from piview.render.format import fmt_cost, fmt_duration_ms, fmt_tokens, plural
from piview.render.roles.tool import args_diff_lines, describe, diff_lines
from piview.render.sanitize import sanitize, sanitize_line
from piview.render.theme import style

if TYPE_CHECKING:
    from piview.model.branchdiff import BranchDiff, Call, Side
    from piview.model.session import Session

COLUMNS_MIN_WIDTH = 100
"""From this width on the two sides are drawn in columns; below it, one under the other."""
MAX_ITEMS = 100
"""Items listed per side and section; the rest is counted (``piview diff --json`` has all)."""
DIFF_LINES = 40
"""Lines of each final diff shown."""
TEXT_LINES = 6
"""Lines of each side's last assistant text shown."""


@dataclass(slots=True)
class Cell:
    """One item of one side: its text and the entry it stands for (if any)."""

    text: Text
    entry: int | None = None
    part: int = -1
    """The block of the entry (a tool call's index in its message), -1 for the whole entry."""


@dataclass(slots=True)
class Section:
    """A titled part of the comparison."""

    title: str
    pairs: list[tuple[Cell | None, Cell | None]] = field(default_factory=list)
    """Rows of the two sides, aligned (``None``: nothing on that side)."""
    wide: list[Cell] = field(default_factory=list)
    """Lines about both sides, drawn across the width before the pairs."""
    level: int = 1
    """1 for a section, 2 for a part of one."""


RowKind = Literal["heading", "wide", "pair", "blank"]


@dataclass(slots=True)
class Row:
    """One row as drawn: a heading or wide line (``a`` only), or a pair (stacked: one cell)."""

    kind: RowKind
    a: Cell | None = None
    b: Cell | None = None
    side: int | None = None
    """In stacked layout, which side a pair row's cell (``a``) belongs to (0 or 1)."""

    def entry(self, side: int) -> int | None:
        """The entry of the cell on ``side`` (0: A, 1: B), else of the other cell."""
        cell = self.cell(side)
        return cell.entry if cell is not None else None

    def cell(self, side: int) -> Cell | None:
        """The cell on ``side`` (0: A, 1: B) if it stands for an entry, else the other one's."""
        first, second = (self.a, self.b) if side == 0 else (self.b, self.a)
        for cell in (first, second):
            if cell is not None and cell.entry is not None:
                return cell
        return None


def _line(*parts: tuple[str, str] | str) -> Text:
    """One line that never wraps (an ellipsis cuts it)."""
    t = Text(no_wrap=True, overflow="ellipsis")
    for p in parts:
        if isinstance(p, str):
            t.append(p)
        else:
            t.append(p[0], style(p[1]) if p[1] else "")
    return t


def _dim(text: str) -> Text:
    return _line((text, "piview.dim"))


def _one_line(text: str) -> str:
    return " ".join(sanitize_line(text).split())


def _capped(cells: list[Cell]) -> list[Cell]:
    if len(cells) <= MAX_ITEMS:
        return cells
    more = len(cells) - MAX_ITEMS
    return [*cells[:MAX_ITEMS], Cell(_dim(f"… {more:,} more (piview diff --json lists all)"))]


def _pairs(a: list[Cell], b: list[Cell]) -> list[tuple[Cell | None, Cell | None]]:
    return list(zip_longest(_capped(a), _capped(b)))


# ----------------------------------------------------------------------------- sections


def comparison_sections(session: Session, diff: BranchDiff) -> list[Section]:
    """The comparison's sections, in reading order."""
    out = [_ancestor(session, diff), _prompts(diff), _tools(diff)]
    out.extend(_files(diff))
    out.append(_outcome(diff))
    out.append(_totals(diff))
    return out


def _ancestor(session: Session, diff: BranchDiff) -> Section:
    sec = Section("Common ancestor")
    anc = diff.ancestor
    if anc is None:
        sec.wide.append(Cell(_dim("none: the branches start from different roots")))
    else:
        try:
            what = row_text(session, anc)
        except OSError:
            what = "[unreadable]"
        sec.wide.append(
            Cell(
                _line((sanitize_line(session.ids[anc]), "piview.marker"), "  ", _one_line(what)),
                anc,
            )
        )
    prompt = diff.ancestor_prompt
    if prompt is not None:
        sec.wide.append(
            Cell(_line(("› ", "piview.user"), _one_line(prompt.text) or "(empty)"), prompt.entry)
        )
    return sec


def side_title(session: Session, tag: str, side: Side) -> Text:
    """``A  branch to 8c69f50b · 10 entries after the fork``."""
    return _line(
        (f"{tag} ", "piview.tool"),
        ("branch to ", "piview.dim"),
        (sanitize_line(session.ids[side.leaf][:8]), "piview.marker"),
        (f" · {plural(len(side.entries), 'entry')} after the fork", "piview.dim"),
    )


def _prompts(diff: BranchDiff) -> Section:
    def cells(side: Side) -> list[Cell]:
        return [
            Cell(_line(("› ", "piview.user"), _one_line(p.text) or "(empty)"), p.entry)
            for p in side.prompts
        ] or [Cell(_dim("no prompt"))]

    return Section("Prompts", _pairs(cells(diff.a), cells(diff.b)))


def _call_cell(call: Call) -> Cell:
    title = describe(call.name, call.arguments).title.copy()
    title.no_wrap, title.overflow = True, "ellipsis"
    if call.status == "error":
        title.append("  ✗ error", style("piview.error"))
    elif call.status == "no_result":
        title.append("  no result", style("piview.dim"))
    return Cell(title, call.entry, call.part)


def _tools(diff: BranchDiff) -> Section:
    a, b = diff.a, diff.b
    names = sorted(
        set(a.tools) | set(b.tools), key=lambda n: (-(a.tools.get(n, 0) + b.tools.get(n, 0)), n)
    )
    sec = Section("Tool calls")
    if not names:
        sec.wide.append(Cell(_dim("no tool call on either side")))
        return sec
    width = max(len(n) for n in names[:MAX_ITEMS])
    # Enter on a count shows the side's first call of that tool.
    firsts = [{c.name: (c.entry, c.part) for c in reversed(side.calls)} for side in (a, b)]

    def count(k: int, side: Side, name: str) -> Cell:
        n = side.tools.get(name, 0)
        text = _line(
            (f"{sanitize_line(name):<{width}}  ", "piview.tool"),
            (f"{n:>4}", "" if n else "piview.dim"),
        )
        return Cell(text, *firsts[k].get(name, (None, -1)))

    sec.pairs = [(count(0, a, n), count(1, b, n)) for n in names[:MAX_ITEMS]]
    if len(names) > MAX_ITEMS:
        sec.pairs.append((Cell(_dim(f"… {len(names) - MAX_ITEMS:,} more tools")), None))
    only_a = [_call_cell(c) for c in a.only_here] or [Cell(_dim("none"))]
    only_b = [_call_cell(c) for c in b.only_here] or [Cell(_dim("none"))]
    sec.pairs.append((Cell(_dim("only on this side:")), Cell(_dim("only on this side:"))))
    sec.pairs.extend(_pairs(only_a, only_b))
    return sec


def _files(diff: BranchDiff) -> list[Section]:
    a, b = diff.a, diff.b
    order = list(dict.fromkeys([*a.files.touched_at, *b.files.touched_at]))
    sec = Section("Files")
    if not order:
        sec.wide.append(Cell(_dim("no file read, edited or written on either side")))
        return [sec]
    if diff.both_files:
        sec.wide.append(
            Cell(_line(("●", "piview.warning"), (" touched on both sides", "piview.dim")))
        )

    # Sets: a side may touch thousands of files.
    touched = [
        (("read", set(f.read)), ("edited", set(f.edited)), ("written", set(f.written)))
        for f in (a.files, b.files)
    ]

    def cell(k: int, side: Side, path: str) -> Cell | None:
        f = side.files
        verbs = [v for v, got in touched[k] if path in got]
        if not verbs:
            return None
        both = path in diff.both_files
        return Cell(
            _line(
                ("● " if both else "  ", "piview.warning"),
                (sanitize_line(path), "piview.path"),
                (f"  {', '.join(verbs)}", "piview.dim"),
            ),
            *f.touched_at.get(path, (None, -1)),
        )

    sec.pairs = [(cell(0, a, p), cell(1, b, p)) for p in order[:MAX_ITEMS]]
    if len(order) > MAX_ITEMS:
        sec.pairs.append((Cell(_dim(f"… {len(order) - MAX_ITEMS:,} more files")), None))
    out = [sec]
    for fd in diff.both_edited[:MAX_ITEMS]:
        part = Section(
            f"{sanitize_line(fd.path)}: edited on both sides, the last edit of each", level=2
        )
        part.pairs = [
            (
                _diff_cell(fd.a_diff, fd.a_args, fd.a_entry, fd.a_part),
                _diff_cell(fd.b_diff, fd.b_args, fd.b_entry, fd.b_part),
            )
        ]
        out.append(part)
    return out


def _diff_cell(diff: str | None, args: object, entry: int, part: int) -> Cell:
    if diff is not None:
        lines = diff_lines(diff, limit=DIFF_LINES)
    else:
        lines = args_diff_lines(args if isinstance(args, dict) else {}, limit=DIFF_LINES)
    more = len(lines) > DIFF_LINES
    lines = lines[:DIFF_LINES]
    text = Text("\n").join(lines) if lines else _dim("(no diff)")
    if more:
        text.append("\n")
        text.append("   … more (enter: the whole edit in the transcript)", style("piview.dim"))
    return Cell(text, entry, part)


def _outcome(diff: BranchDiff) -> Section:
    def cells(side: Side) -> list[Cell]:
        out: list[Cell] = []
        if side.last_text:
            lines = sanitize(side.last_text).split("\n")
            shown = lines[:TEXT_LINES]
            text = Text("\n".join(shown), overflow="fold")
            if len(lines) > TEXT_LINES:
                text.append(f"\n… {len(lines) - TEXT_LINES} more lines", style("piview.dim"))
            out.append(Cell(text, side.last_text_entry))
        else:
            out.append(Cell(_dim("no assistant text")))
        if side.stop_reason is not None:
            bad = side.stop_reason in ("error", "aborted", "length")
            out.append(
                Cell(
                    _line(
                        ("stop reason ", "piview.dim"),
                        (side.stop_reason, "piview.error" if bad else "piview.ok"),
                    ),
                    side.last_assistant,
                )
            )
        if not side.problems:
            out.append(Cell(_dim("no errors, no aborted turn")))
        for p in side.problems[:MAX_ITEMS]:
            label = {"tool_error": "tool error", "error": "error", "aborted": "aborted"}[p.kind]
            out.append(Cell(_line((f"✗ {label}: ", "piview.error"), _one_line(p.text)), p.entry))
        if len(side.problems) > MAX_ITEMS:
            out.append(Cell(_dim(f"… {len(side.problems) - MAX_ITEMS:,} more")))
        return out

    return Section("Outcome", list(zip_longest(cells(diff.a), cells(diff.b))))


def _totals(diff: BranchDiff) -> Section:
    def cells(side: Side) -> list[Cell]:
        u = side.usage

        def row(label: str, value: str, kind: str = "") -> Cell:
            # Enter on a total shows where the side ends: its leaf.
            return Cell(_line((f"{label:<10}", "piview.dim"), (value, kind)), side.leaf)

        models = ", ".join(sanitize_line(m) for m in side.models) or "–"
        return [
            row("turns", f"{side.turns:,}"),
            row(
                "tokens",
                f"{fmt_tokens(u.input)} in / {fmt_tokens(u.output)} out / "
                f"{fmt_tokens(u.cache_read)} cache read / {fmt_tokens(u.cache_write)} cache write",
            ),
            row("cost", fmt_cost(u.cost), "piview.cost"),
            row("wall time", fmt_duration_ms(side.duration_ms) + " from the fork"),
            row("models", models, "piview.model"),
        ]

    return Section("Totals", list(zip_longest(cells(diff.a), cells(diff.b))))


# ----------------------------------------------------------------------------- layout


def layout_rows(
    session: Session, diff: BranchDiff, sections: list[Section], *, columns: bool
) -> list[Row]:
    """The rows to draw: pairs side by side with ``columns``, else A's then B's cells."""
    tags = ("A ", "B ")
    out: list[Row] = []
    if columns:
        out.append(
            Row(
                "pair",
                Cell(side_title(session, "A", diff.a), diff.a.leaf),
                Cell(side_title(session, "B", diff.b), diff.b.leaf),
            )
        )
    else:
        out.append(Row("wide", Cell(side_title(session, "A", diff.a), diff.a.leaf), side=0))
        out.append(Row("wide", Cell(side_title(session, "B", diff.b), diff.b.leaf), side=1))
    for sec in sections:
        out.append(Row("blank"))
        heading = _line((sec.title, "bold" if sec.level == 1 else "piview.path"))
        out.append(Row("heading", Cell(heading)))
        out.extend(Row("wide", c) for c in sec.wide)
        if columns:
            out.extend(Row("pair", a, b) for a, b in sec.pairs)
            continue
        for k in (0, 1):
            for pair in sec.pairs:
                cell = pair[k]
                if cell is None:
                    continue
                # The tag as a span: a Text's own style would colour all that follows.
                text = Text(no_wrap=cell.text.no_wrap, overflow=cell.text.overflow)
                text.append(tags[k], style("piview.tool"))
                text.append_text(cell.text)
                out.append(Row("pair", Cell(text, cell.entry, cell.part), side=k))
    return out


def pair_table(
    a: RenderableType | None, b: RenderableType | None, marks: tuple[str, str] = ("", "")
) -> Table:
    """Two cells side by side, each half the width, each after its gutter ``marks``."""
    grid = Table.grid(expand=True, padding=(0, 1, 0, 0))
    gutter = max(len(m) for m in marks)
    for _side in (0, 1):
        if gutter:
            grid.add_column(width=gutter, no_wrap=True)
        grid.add_column(ratio=1)
    cells = (a if a is not None else "", b if b is not None else "")
    if gutter:
        mark = style("piview.tool")
        grid.add_row(Text(marks[0], mark), cells[0], Text(marks[1], mark), cells[1])
    else:
        grid.add_row(*cells)
    return grid


def comparison_renderable(rows: list[Row]) -> RenderableType:
    """The rows as one renderable (for ``piview diff``)."""
    parts: list[RenderableType] = []
    grid: Table | None = None
    for row in rows:
        if row.kind == "pair" and row.side is None:
            if grid is None:
                grid = Table.grid(expand=True, padding=(0, 1))
                grid.add_column(ratio=1)
                grid.add_column(ratio=1)
                parts.append(grid)
            grid.add_row(row.a.text if row.a else "", row.b.text if row.b else "")
            continue
        grid = None
        parts.append(row.a.text if row.a is not None else Text(""))
    return Group(*parts)
