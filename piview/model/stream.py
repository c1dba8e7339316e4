"""Provides :class:`StreamSource`: Pi's event stream (``pi --mode json``, ``pi --mode rpc``
stdout, or piview's own stamped capture) read as a session.

The stream is folded into session lines (version 3, one chain) in an anonymous in-memory file
that the model reads like a session file, as an OpenClaw database's rows are
(:mod:`piview.model.source`):

- a message is its ``message_end``; a message the capture ends inside of is folded from its
  ``message_start`` and ``message_update`` deltas and marked ``aborted``;
- an ``entry_appended`` (Pi 0.85) is its entry; an RPC ``bash`` response is a
  ``bashExecution`` message; a ``compaction_end`` with a result is a ``compaction`` entry;
- what a session file never holds is an entry of piview's own, its ``event`` the stream's
  object: ``piview_error`` (an extension error, a failed response, a retry or compaction
  that failed), ``piview_progress`` (a tool's partial results, gathered at its end) and
  ``piview_event`` (retries, compactions, queue updates, UI requests, session switches).

The capture is only read. :meth:`StreamSource.refresh` folds what was appended since.
"""

from __future__ import annotations

import os
import re
import time
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import msgspec

from piview.model.fsio import open_readonly
from piview.model.source import anonymous_file

StreamKind = Literal["json", "rpc", "piview"]

EVENT_TYPES = frozenset(
    {
        "agent_start", "agent_end", "agent_settled", "turn_start", "turn_end",
        "message_start", "message_update", "message_end",
        "tool_execution_start", "tool_execution_update", "tool_execution_end",
        "auto_retry_start", "auto_retry_end", "compaction_start", "compaction_end",
        "summarization_retry_scheduled", "summarization_retry_attempt_start",
        "summarization_retry_finished", "queue_update", "extension_error",
        "extension_ui_request", "response", "entry_appended", "bash_execution_update",
        "thinking_level_changed",
    }
)  # fmt: skip
"""The ``type`` of the stream's events (docs/json.md and docs/rpc.md of Pi 0.73 and 0.85)."""

RPC_COMMANDS = frozenset(
    {
        "prompt", "steer", "follow_up", "abort", "clear_queue", "new_session", "get_state",
        "get_messages", "set_model", "cycle_model", "get_available_models",
        "set_thinking_level", "cycle_thinking_level", "get_available_thinking_levels",
        "set_steering_mode", "set_follow_up_mode", "compact", "set_auto_compaction",
        "set_auto_retry", "abort_retry", "bash", "abort_bash", "get_session_stats",
        "export_html", "switch_session", "fork", "clone", "get_fork_messages", "get_entries",
        "get_tree", "get_last_assistant_text", "set_session_name", "get_commands",
        "extension_ui_response",
    }
)  # fmt: skip
"""The client's commands of RPC mode (docs/rpc.md): a log of both directions interleaves
them with Pi's output; they name a ``bash`` command's text and a dialog's answer."""

CAPTURE_TYPE = "piview_capture"
"""The first line of piview's own capture (``piview - --save FILE``): each line after it is
``{"at": SECONDS, "event": EVENT}``, the time the line arrived."""

_SHOWN = frozenset(
    {
        "extension_error", "auto_retry_start", "auto_retry_end", "compaction_start",
        "compaction_end", "summarization_retry_scheduled", "summarization_retry_attempt_start",
        "summarization_retry_finished", "queue_update", "extension_ui_request",
    }
)  # fmt: skip
"""Events drawn as they are: a ``piview_event`` entry each."""
_SWITCH = frozenset({"new_session", "switch_session", "fork", "clone"})
_PARTIALS_KEPT = 200
"""A tool's partial results kept whole (its count is always exact): the last ones."""
_SNIFF_LINES = 24
_LIVE_CHARS = 200
_UPDATE = b'{"type":"message_update"'
_STDERR_ERROR = re.compile(r"Extension error \((.+?)\): (.*)\Z", re.S)
_END = b'{"type":"message_end","message":{'
_TS_TAIL = re.compile(rb'[,{]"timestamp":(\d{1,16})\}\}$')
_NON_UPDATE = re.compile(rb'\n(?!\{"type":"message_update")')
"""A newline before any line but a ``message_update``: found at C speed (most lines are)."""
_COUNTED = frozenset(
    {b"agent_start", b"agent_end", b"agent_settled", b"turn_start", b"turn_end",
     b"tool_execution_start", b"message_update"}
)  # fmt: skip
"""In Pi's own capture, events only counted: what they hold is in the messages (tool
durations come from the entries' times; piview's capture stamps them)."""
_NAMES = {n: n.decode() for n in _COUNTED | {b"tool_execution_end"}}
_TYPE = re.compile(rb'\{\s*"type"\s*:\s*"([A-Za-z_]+)"\s*[,}]')
_decoder = msgspec.json.Decoder()
_encode = msgspec.json.Encoder().encode


def sniff(head: bytes) -> StreamKind | None:
    """What kind of stream the file's first bytes are, or None for a session file (or
    anything else)."""
    types: list[object] = []
    for line in head.split(b"\n")[:_SNIFF_LINES]:
        line = line.strip().lstrip(b"\xef\xbb\xbf")
        if not line:
            continue
        found = _TYPE.match(line)  # Pi writes "type" first: no need to decode the line
        if found is not None:
            types.append(found.group(1).decode())
            continue
        try:
            value = _decoder.decode(line)
        except (msgspec.DecodeError, RecursionError):
            continue  # the last line of the head may be cut
        types.append(value.get("type") if isinstance(value, dict) else None)
    if not types:
        return None
    if types[0] == CAPTURE_TYPE:
        return "piview"
    body = types[1:] if types[0] == "session" else types
    known = EVENT_TYPES | RPC_COMMANDS
    if not body or not all(isinstance(t, str) for t in body):
        return None
    # Events of a newer Pi are allowed, as long as most are known ones.
    if 2 * sum(t in known for t in body) < len(body):
        return None
    if not any(t in EVENT_TYPES for t in body):
        return None  # only commands: a client's log, not Pi's output
    return "json" if types[0] == "session" else "rpc"


def _s(value: object) -> str:
    return value if isinstance(value, str) else "tool"


def _iso(ms: float) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="milliseconds")[:-6] + "Z"


def _fold(message: dict[str, Any], updates: list[bytes]) -> dict[str, Any]:
    """The message as its deltas left it (Pi 0.85: no snapshot in ``message_update``)."""
    content: list[Any] = list(message.get("content") or [])
    args: dict[int, str] = {}
    for raw in updates:
        try:
            ev = _decoder.decode(raw)
        except (msgspec.DecodeError, RecursionError):
            continue
        if not isinstance(ev, dict):
            continue
        if isinstance(ev.get("message"), dict):  # Pi 0.73: the whole message so far
            message, content, args = (
                dict(ev["message"]),
                list(ev["message"].get("content") or []),
                {},
            )
            continue
        if isinstance(ev.get("usage"), dict):
            message["usage"] = ev["usage"]
        d = ev.get("assistantMessageEvent")
        if not isinstance(d, dict) or not isinstance(d.get("contentIndex"), int):
            continue
        i, t = d["contentIndex"], d.get("type")
        while len(content) <= i:
            content.append({"type": "text", "text": ""})
        block = content[i] if isinstance(content[i], dict) else {}
        if t == "text_start":
            content[i] = {"type": "text", "text": ""}
        elif t == "thinking_start":
            content[i] = {"type": "thinking", "thinking": ""}
        elif t in ("text_delta", "thinking_delta"):
            key = "text" if t == "text_delta" else "thinking"
            content[i] = {**block, key: str(block.get(key, "")) + str(d.get("delta", ""))}
        elif t in ("text_end", "thinking_end") and isinstance(d.get("content"), str):
            content[i] = {**block, "text" if t == "text_end" else "thinking": d["content"]}
        elif t == "toolcall_start":
            content[i] = {"type": "toolCall", "id": d.get("id"), "name": d.get("toolName"),
                          "arguments": {}}  # fmt: skip
        elif t == "toolcall_delta":
            args[i] = args.get(i, "") + str(d.get("delta", ""))
            try:
                parsed = _decoder.decode(args[i].encode())
                content[i] = {**block, "arguments": parsed}
            except (msgspec.DecodeError, RecursionError):
                pass  # arguments still streaming
        elif t == "toolcall_end" and isinstance(d.get("toolCall"), dict):
            content[i] = d["toolCall"]
    message["content"] = content
    return message


class Translator:
    """Folds a stream's lines, one at a time, into session lines."""

    def __init__(self, kind: StreamKind, started: float) -> None:
        self.kind: StreamKind = kind
        self.events: Counter[str] = Counter()
        """How many events of each type the stream holds (the header not counted)."""
        self.extension_errors: list[dict[str, Any]] = []
        self.stamped = kind == "piview"
        self.ended = kind != "piview"
        """False while piview's capture is still being written (no end line yet)."""
        self._started = started * 1000
        self._header = False
        self._parent: str | None = None
        self._count = 0
        self._last_ms: float | None = None
        # The message streaming, from its message_start (the line itself until it is needed).
        self._open: dict[str, Any] | bytes | None = None
        self._open_at = 0  # the capture's byte offset of its message_start line
        self._live = ""  # live: the last words of the message streaming
        self._root_next = False  # a session switch: the next entry starts a tree
        self._last_id = ""
        self._partials: dict[str, tuple[int, list[Any], float | None]] = {}
        self._bash_cmd: dict[object, str] = {}
        self._running: dict[str, list[Any]] = {}  # a running tool's name: its partials
        self.inner: StreamKind = kind
        """For piview's capture: the kind of the stream it holds (``json`` with a header)."""

    def _live_words(self, ev: dict[str, Any]) -> None:
        d = ev.get("assistantMessageEvent")
        msg = ev.get("message")
        if isinstance(msg, dict):  # Pi 0.73: the message so far
            found = msg.get("content")
            blocks: list[Any] = found if isinstance(found, list) else []
            texts = [
                b.get("text") for b in blocks if isinstance(b, dict) and b.get("type") == "text"
            ]
            self._live = "".join(t for t in texts if isinstance(t, str))[-_LIVE_CHARS:]
        elif isinstance(d, dict) and d.get("type") == "text_delta":
            self._live = (self._live + str(d.get("delta", "")))[-_LIVE_CHARS:]
        elif isinstance(d, dict) and d.get("type") in ("thinking_delta", "thinking_start"):
            self._live = self._live or "(thinking)"

    def activity(self) -> str | None:
        """What the stream is doing now: a message streaming (its last words), a tool running
        (its latest partial result), or None."""
        if self._open is not None:
            role = self._open_message().get("role")
            words = " ".join(self._live.split())[-48:]
            kind = role if isinstance(role, str) else "message"
            return f"{kind} streaming" + (f": …{words}" if words else "")
        for count, kept, _began in reversed(self._partials.values()):
            last = kept[-1] if kept else None
            text = ""
            if isinstance(last, dict):
                found = last.get("content")
                blocks: list[Any] = found if isinstance(found, list) else []
                text = " ".join(str(b.get("text", "")) for b in blocks if isinstance(b, dict))
            name = next((n for n, v in self._running.items() if v is kept), "tool")
            line = " ".join(text.split())[:60]
            return f"{name} running" + (f": {line}" if line else f" ({count} updates)")
        return None

    def _open_message(self) -> dict[str, Any]:
        if isinstance(self._open, bytes):
            try:
                ev = _decoder.decode(self._open)
            except (msgspec.DecodeError, RecursionError):
                ev = None
            msg = ev.get("message") if isinstance(ev, dict) else None
            self._open = msg if isinstance(msg, dict) else {"role": "assistant", "content": []}
        return self._open if isinstance(self._open, dict) else {}

    @property
    def streaming(self) -> bool:
        """True while a message has started and not ended."""
        return self._open is not None

    def _ms(self, at: float | None) -> float:
        if at is not None:
            return at * 1000
        return self._last_ms if self._last_ms is not None else self._started

    def _new_id(self, at: int, ms: float, out: list[bytes]) -> str:
        if self._root_next:
            self._parent, self._root_next = None, False
        # The id is where the event's line starts in the capture: the same whether the whole
        # capture or only its end was read (a first screen).
        if not self._header:
            self._header_line(out, None, ms)
        self._count += 1
        eid = f"s{at:x}"
        if eid == self._last_id:
            eid = f"s{at:x}-{self._count}"  # a second entry of one line (a compaction's)
        self._last_id = f"s{at:x}"
        return eid

    def _emit(self, out: list[bytes], entry: dict[str, Any], at: int, ms: float) -> None:
        eid = self._new_id(at, ms, out)
        entry = {**entry, "id": eid, "parentId": self._parent, "timestamp": _iso(ms),
                 "captureByte": at}  # fmt: skip
        self._parent = eid
        out.append(_encode(entry))

    def _emit_message(self, out: list[bytes], message: bytes, at: int, ms: float) -> None:
        """A message entry around ``message``, the JSON of a message_end's message as is."""
        eid = self._new_id(at, ms, out)
        parent = b"null" if self._parent is None else b'"%s"' % self._parent.encode()
        out.append(
            b'{"type":"message","id":"%s","parentId":%s,"timestamp":"%s","captureByte":%d,'
            b'"message":%s}' % (eid.encode(), parent, _iso(ms).encode(), at, message)
        )
        self._parent = eid

    def _header_line(self, out: list[bytes], header: dict[str, Any] | None, ms: float) -> None:
        self._header = True
        if header is None:
            header = {"type": "session", "version": 3, "id": "", "timestamp": _iso(ms), "cwd": ""}
        out.append(_encode(header))

    def feed(self, raw: bytes, line: int, out: list[bytes]) -> None:
        """Fold the capture's line at byte offset ``line`` into ``out`` (a ``message_update``
        of Pi's own capture is counted by the caller, never fed)."""
        at: float | None = None
        if self.stamped:
            if raw.startswith(b'{"at":'):
                try:
                    wrapped = _decoder.decode(raw)
                except (msgspec.DecodeError, RecursionError):
                    return
                if not isinstance(wrapped, dict):
                    return
                at = wrapped.get("at") if isinstance(wrapped.get("at"), int | float) else None
                if wrapped.get("end") is True:
                    self.ended = True
                ev = wrapped.get("event")
                if at is not None:
                    self._last_ms = at * 1000
                if ev is None:
                    return
                self._event(ev, line, at, out)
            return  # the capture's own header
        if raw.startswith(b'{"type":"'):
            # Events that only count (they repeat what message_end holds): never decoded.
            name = raw[9 : raw.find(b'"', 9)]
            if name in _COUNTED or name == b"tool_execution_end" and not self._partials:
                self.events[_NAMES.get(name) or name.decode("utf-8", "replace")] += 1
                return
            if name == b"message_start":
                self.events["message_start"] += 1
                self._open, self._open_at = raw, line
                return
            if name == b"message_end" and raw.startswith(_END) and raw.endswith(b"}}"):
                # As Pi writes it ({"type", "message"}, the message's time last): the
                # message's JSON is kept as it is, not decoded and made again.
                found = _TS_TAIL.search(raw, max(0, len(raw) - 48))
                if found is not None:
                    self.events["message_end"] += 1
                    self._last_ms = ms = float(found.group(1))
                    self._open = None
                    self._emit_message(out, raw[len(_END) - 1 : -1], line, ms)
                    return
        try:
            ev = _decoder.decode(raw)
        except (msgspec.DecodeError, RecursionError):
            ev = raw.decode("utf-8", "replace")  # stderr mixed in (2>&1), or a torn line
        self._event(ev, line, at, out)

    def _event(self, ev: Any, line: int, at: float | None, out: list[bytes]) -> None:
        if isinstance(ev, str):
            # --mode json writes an extension's error to stderr, as this line.
            found = _STDERR_ERROR.match(ev.strip())
            if found is None:
                self.events["(not JSON)"] += 1
                return
            ev = {"type": "extension_error", "extensionPath": found.group(1), "event": None,
                  "error": found.group(2), "from": "stderr"}  # fmt: skip
        if not isinstance(ev, dict):
            self.events["(not an object)"] += 1
            return
        t = ev.get("type")
        name = t if isinstance(t, str) else "?"
        if name == "session" and not self._header and not self.events:
            ms = self._ms(at)
            self.inner = "json"
            self._header_line(out, ev, ms)
            return
        self.events[name] += 1
        msg = ev.get("message")
        if isinstance(msg, dict) and isinstance(msg.get("timestamp"), int | float):
            self._last_ms = float(msg["timestamp"])
        ms = self._ms(at)
        if name == "message_update":
            # Read again at the end only if its message never ends (finish); live, the last
            # words of the text so far go on the status line.
            if self.stamped:
                self._live_words(ev)
        elif name == "message_start" and isinstance(msg, dict):
            self._open, self._open_at, self._live = msg, line, ""
        elif name == "message_end" and isinstance(msg, dict):
            self._open = None
            self._emit(out, {"type": "message", "message": msg}, line, ms)
        elif name == "tool_execution_start":
            kept: list[Any] = []
            self._partials[str(ev.get("toolCallId"))] = (0, kept, at)
            self._running[_s(ev.get("toolName"))] = kept
        elif name == "tool_execution_update":
            key = str(ev.get("toolCallId"))
            count, kept, began = self._partials.get(key, (0, [], None))
            kept.append(ev.get("partialResult"))
            if len(kept) > _PARTIALS_KEPT:
                del kept[0]
            self._partials[key] = (count + 1, kept, began)
        elif name == "tool_execution_end":
            count, kept, began = self._partials.pop(str(ev.get("toolCallId")), (0, [], None))
            self._running = {n: v for n, v in self._running.items() if v is not kept}
            if count:
                progress: dict[str, Any] = {
                    "type": "tool_progress", "toolCallId": ev.get("toolCallId"),
                    "toolName": ev.get("toolName"), "count": count, "partials": kept,
                    "isError": ev.get("isError") is True,
                }  # fmt: skip
                if began is not None and at is not None:
                    progress["durationMs"] = round((at - began) * 1000)
                self._emit(out, {"type": "piview_progress", "event": progress}, line, ms)
        elif name == "entry_appended" and isinstance(ev.get("entry"), dict):
            entry = {k: v for k, v in ev["entry"].items() if k not in ("id", "parentId")}
            self._emit(out, entry, line, ms)
        elif name == "thinking_level_changed" and isinstance(ev.get("level"), str):
            # As the session file has it (Pi writes the entry with the event).
            entry = {"type": "thinking_level_change", "thinkingLevel": ev["level"]}
            self._emit(out, entry, line, ms)
        elif name == "bash" and isinstance(ev.get("command"), str):
            self._bash_cmd[ev.get("id")] = ev["command"]  # the client's command (both ways)
        elif name == "extension_ui_response":
            self._emit(out, {"type": "piview_event", "event": ev}, line, ms)
        elif name == "response":
            self._response(ev, line, ms, out)
        elif name in _SHOWN:
            if name == "extension_error":
                self.extension_errors.append(
                    {
                        "extension": ev.get("extensionPath"),
                        "event": ev.get("event"),
                        "error": ev.get("error"),
                    }
                )
            failed = (
                name == "extension_error"
                or (name == "auto_retry_end" and ev.get("success") is False)
                or (name == "compaction_end" and bool(ev.get("errorMessage")))
            )
            kind = "piview_error" if failed else "piview_event"
            self._emit(out, {"type": kind, "event": ev}, line, ms)
            result = ev.get("result")
            if name == "compaction_end" and isinstance(result, dict):
                entry = {"type": "compaction", **result}
                self._emit(out, entry, line, ms)

    def _response(self, ev: dict[str, Any], line: int, ms: float, out: list[bytes]) -> None:
        command, data = ev.get("command"), ev.get("data")
        if ev.get("success") is False:
            self._emit(out, {"type": "piview_error", "event": ev}, line, ms)
        elif command == "bash" and isinstance(data, dict):
            command = self._bash_cmd.pop(ev.get("id"), None)
            message = {
                "role": "bashExecution",
                "command": command if command is not None else data.get("command", ""),
                "output": data.get("output", ""), "exitCode": data.get("exitCode"),
                "cancelled": data.get("cancelled") is True,
                "truncated": data.get("truncated") is True,
                "timestamp": round(ms),
            }  # fmt: skip
            if data.get("fullOutputPath"):
                message["fullOutputPath"] = data["fullOutputPath"]
            self._emit(out, {"type": "message", "message": message}, line, ms)
        elif command in ("set_model", "cycle_model") and isinstance(data, dict):
            inner = data.get("model")
            model: dict[str, Any] = inner if isinstance(inner, dict) else data
            if isinstance(model.get("id"), str):
                entry = {"type": "model_change", "provider": model.get("provider"),
                         "modelId": model["id"]}  # fmt: skip
                self._emit(out, entry, line, ms)
        elif command in _SWITCH and not (isinstance(data, dict) and data.get("cancelled")):
            # Another session from here on: what comes next is a tree of its own (a root), as
            # its file would be; the divider ends the session left.
            self._emit(out, {"type": "piview_event", "event": ev}, line, ms)
            self._root_next = True

    def finish(self, out: list[bytes], read: Callable[[int], bytes]) -> None:
        """The capture ends here: a message still streaming becomes an entry, marked cut off,
        folded from its updates (``read(offset)``: the capture from ``offset`` to its end)."""
        if self._open is None:
            return
        updates = []
        for raw in read(self._open_at).split(b"\n"):
            if self.stamped and raw.startswith(b'{"at":'):
                try:
                    ev = _decoder.decode(raw)
                except (msgspec.DecodeError, RecursionError):
                    continue
                inner = ev.get("event") if isinstance(ev, dict) else None
                if isinstance(inner, dict) and inner.get("type") == "message_update":
                    updates.append(_encode(inner))
            elif raw.startswith(_UPDATE):
                updates.append(raw)
        # Pi 0.73: each update holds the message so far; the last one is enough.
        for k in range(len(updates) - 1, -1, -1):
            if b'"partial"' in updates[k]:
                updates = updates[k:]
                break
        message = _fold(dict(self._open_message()), updates)
        message["stopReason"] = "aborted"
        message["errorMessage"] = "the capture ends while this message was streaming"
        self._emit(out, {"type": "message", "message": message}, self._open_at, self._ms(None))
        self._open = None


class StreamSource:
    """A capture file read into an anonymous in-memory session file (:attr:`fd`, read with
    ``os.pread``); :meth:`refresh` folds the lines appended since."""

    def __init__(self, path: Path, kind: StreamKind, start: int = 0) -> None:
        """``start``: fold only the lines after this byte offset (and the header line): the
        end of a big capture, for a first screen while the whole one loads."""
        self.path = path
        self.kind: StreamKind = kind
        self._in = open_readonly(path)
        self.fd = anonymous_file()
        self.size = 0
        self.updated = 0.0
        self._read = 0
        self._at = 0  # the byte offset in the capture of the next line to read
        self._counted = 0  # message_update lines counted up to here (:meth:`_updates`)
        self._update_count = 0
        self._cut = False  # a message folded at the end: growth means reading again
        self.translator = Translator(kind, os.fstat(self._in).st_mtime)
        if start > 0:
            self._skip_to(start)
        self.refresh()

    def _skip_to(self, start: int) -> None:
        head = os.pread(self._in, 64 * 1024, 0)
        cut = head.find(b"\n")
        if cut > 0:  # the session header (or piview's capture's own line)
            out: list[bytes] = []
            self.translator.feed(head[:cut].rstrip(b"\r"), 0, out)
            self._write(out)
        pos, want = start, 64 * 1024
        while True:
            data = os.pread(self._in, want, pos)
            if not data:
                break
            found = data.find(b"\n")
            if found >= 0:
                pos += found + 1
                break
            pos += len(data)
        self._at = self._counted = max(pos, cut + 1)

    @property
    def live(self) -> bool:
        """True while piview's capture of a pipe is still being written."""
        return not self.translator.ended

    def status(self) -> str | None:
        """The status line's words for piview's capture: ``live (stdin) · deploy running:
        step 2``, or ``stream ended``; None for Pi's own captures."""
        if self.kind != "piview":
            return None
        if self.translator.ended:
            return "stream ended"
        doing = self.translator.activity()
        return "live (stdin)" + (f" · {doing}" if doing else "")

    @property
    def events(self) -> Counter[str]:
        """How many events of each type the capture holds."""
        events = Counter(self.translator.events)
        updates = self._updates()
        if updates:
            events["message_update"] += updates
        return events

    def refresh(self) -> int:
        """Fold the complete lines appended since the last call; return how many, or -1 when
        the capture must be read again (it shrank, or grew after a message was cut off). While
        piview's capture is live, a message streaming is left for its end."""
        final = not self.live
        st = os.fstat(self._in)
        self.updated = st.st_mtime
        if st.st_size < self._read:
            return -1
        if st.st_size == self._read:
            return 0
        if self._cut:
            return -1
        out: list[bytes] = []
        count = 0
        tr = self.translator
        feed = tr.feed
        chunk = 8 * 1024 * 1024
        size = st.st_size
        at = self._at
        while at < size:
            # Each window starts at the newline before its first line (b"\n" at the start).
            base = at - 1 if at else 0
            want = min(chunk, size - base)
            data = os.pread(self._in, want, base)
            if not at:
                data, base = b"\n" + data, -1
            end = data.rfind(b"\n")
            if end <= 0:
                if base + len(data) >= size:
                    break  # the last line is not complete yet
                chunk *= 2  # a line longer than the window
                continue
            # Most lines of a long capture are message_update deltas: skipped by the regular
            # expression's scan, counted only when asked (events), never decoded (a message
            # the capture ends inside of reads them again).
            for m in _NON_UPDATE.finditer(data, 0, end):
                p = m.start() + 1
                raw = data[p : data.find(b"\n", p)]
                if raw and raw != b"\r":
                    feed(raw[:-1] if raw.endswith(b"\r") else raw, base + p, out)
                    count += 1
            at = base + end + 1
            if len(out) > 256:
                self._write(out)
                out = []
        self._at = at
        self._read = size
        if final and at < size:
            # The capture's last line has no newline: read as it is, so growth reads again.
            rest = os.pread(self._in, size - at, at).strip()
            if rest.startswith(_UPDATE):
                tr.events["message_update"] += 1
            elif rest:
                feed(rest, at, out)
            self._at = size
            self._cut = True
            count += 1
        if final and tr.streaming:
            tr.finish(out, self._read_from)
            self._cut = True
        self._write(out)
        return count

    def _updates(self) -> int:
        """How many message_update lines the capture holds up to :attr:`_at` (counted the
        first time asked, then only in what was read since)."""
        pos, stop = self._counted, self._at
        while pos < stop:
            base = pos - 1 if pos else 0
            data = os.pread(self._in, min(8 * 1024 * 1024, stop - base), base)
            if not pos:
                data = b"\n" + data
            end = data.rfind(b"\n")
            if end <= 0:
                break
            self._update_count += data.count(b"\n" + _UPDATE, 0, end)
            pos = (base if pos else -1) + end + 1
        self._counted = max(pos, self._counted)
        return self._update_count

    def _read_from(self, offset: int) -> bytes:
        return os.pread(self._in, max(0, self._read - offset), offset)

    def _write(self, lines: list[bytes]) -> None:
        if not lines:
            return
        data = b"\n".join(lines) + b"\n"
        os.pwrite(self.fd, data, self.size)
        self.size += len(data)

    def close(self) -> None:
        """Close the capture and drop the in-memory session."""
        for fd in (self._in, self.fd):
            if fd >= 0:
                os.close(fd)
        self._in = self.fd = -1


def sniff_file(fd: int) -> StreamKind | None:
    """:func:`sniff` of an open file's first 64 KiB."""
    try:
        return sniff(os.pread(fd, 64 * 1024, 0))
    except OSError:
        return None


def stamp(line: bytes, at: float | None = None) -> bytes:
    """One line of piview's capture: ``line`` (a JSON value, else kept as a string) and the
    time it arrived."""
    t = time.time() if at is None else at
    body = line.rstrip(b"\r\n")
    try:
        _decoder.decode(body)
    except (msgspec.DecodeError, RecursionError):
        body = _encode(body.decode("utf-8", "replace"))
    return b'{"at":%.3f,"event":%s}\n' % (t, body)


def capture_header() -> bytes:
    """The first line of piview's capture."""
    return _encode({"type": CAPTURE_TYPE, "version": 1, "started": time.time()}) + b"\n"


def end_line(at: float | None = None) -> bytes:
    """The last line of piview's capture: the stream it copied has ended."""
    return b'{"at":%.3f,"end":true}\n' % (time.time() if at is None else at)


def pump(src: int, dst: int, *, chunk: int = 64 * 1024) -> None:
    """Copy the stream on descriptor ``src`` into piview's capture on ``dst`` (opened for
    appending, its header written), each line stamped with the time it arrived; at the end of
    the stream, :func:`end_line`. Whole lines only are written, so a reader never sees half
    of one. Returns when ``src`` ends or fails; closes neither."""
    rest = b""
    try:
        while True:
            data = os.read(src, chunk)
            if not data:
                break
            at = time.time()
            lines = (rest + data).split(b"\n")
            rest = lines.pop()
            if lines:
                os.write(dst, b"".join(stamp(line, at) for line in lines if line.strip()))
    except OSError:
        pass  # the writer's end failed: what arrived is kept
    if rest.strip():
        os.write(dst, stamp(rest))
    os.write(dst, end_line())
