"""Provides the stub of the compiled loop (``_fill.c``) of the node store's ``extend``."""

from typing import Any

ABI: int
SOURCE: str

def setup(
    entry: type,
    message: type,
    block: type,
    usage: type,
    array: type,
    type_code: dict[Any, int],
    role_code: dict[Any, int],
    stop_code: dict[Any, int],
    entry_defaults: tuple[Any, ...],
    caught: tuple[type[BaseException], ...],
    message_code: int,
    last_plain_role: int,
    /,
) -> None: ...
def fill(
    store: Any, entries: list[Any] | tuple[Any, ...], start: int, encode_into: Any, /
) -> int: ...
def line_spans(
    buf: bytes | bytearray | memoryview, start: int, end: int, base: int, /
) -> tuple[int, bytes, bytes, bool]: ...
def find_all(
    buf: bytes | bytearray | memoryview, needle: bytes, end: int, base: int, /
) -> bytes: ...
