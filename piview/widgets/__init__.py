"""Provides piview's widgets: one widget per module (a big one's parts beside it, named after
it), the panel and sidebar re-exported here, loaded on first use (PEP 562).
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
