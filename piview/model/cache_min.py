"""Provides :data:`CACHE_MIN_BYTES`: from what size a session's index is cached (apart from
:mod:`piview.model.index_cache`, which a first screen's tail does not import)."""

from __future__ import annotations

__all__ = ["CACHE_MIN_BYTES"]

CACHE_MIN_BYTES = 16 * 1024 * 1024
"""Files smaller than this load faster from scratch than from a cache."""
