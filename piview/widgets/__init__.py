"""Provides piview's widgets: one widget per module, the panel and sidebar re-exported here.

A big widget's parts live beside it in modules named after it (``transcript_search``,
``branch_rows``, …): mixins and helpers that only that widget uses.

The re-exports are loaded on first use (PEP 562): importing one widget's module (the picker's
table, the key bar) does not import the branch panel and the sidebar with it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from piview.model.lazy import lazy_exports

if TYPE_CHECKING:
    from piview.widgets.branch_panel import BranchPanel
    from piview.widgets.usage_sidebar import UsageSidebar

__all__ = ["BranchPanel", "UsageSidebar"]

_WHERE = {"BranchPanel": "branch_panel", "UsageSidebar": "usage_sidebar"}


__getattr__, __dir__ = lazy_exports(__name__, _WHERE)
