"""Provides piview's widgets: one widget per module, re-exported here."""

from piview.widgets.branch_panel import BranchPanel
from piview.widgets.usage_sidebar import UsageSidebar

__all__ = ["BranchPanel", "UsageSidebar"]
