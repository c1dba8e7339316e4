"""Provides piview's screens."""
