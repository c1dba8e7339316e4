"""Provides one renderer module per kind of transcript item (Rich only, no Textual).

Each module has ``render(ctx) -> (header, body)`` and ``plain(ctx) -> str``; which kind each
module draws is registered in :mod:`piview.render.kinds`.
"""
