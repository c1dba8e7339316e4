"""Provides piview's widgets: one widget per module, the panel and sidebar re-exported here.

A big widget's parts live beside it in modules named after it (``transcript_search``,
``branch_rows``, …): mixins and helpers that only that widget uses.
"""

from piview.widgets.branch_panel import BranchPanel
from piview.widgets.usage_sidebar import UsageSidebar

__all__ = ["BranchPanel", "UsageSidebar"]
