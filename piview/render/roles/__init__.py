"""Provides one renderer module per kind of transcript item (Rich only, no Textual).

Each module has ``render(ctx) -> (header, body)`` and ``plain(ctx) -> str``; the dispatch from
item kind to module lives in :mod:`piview.render.items`.
"""
