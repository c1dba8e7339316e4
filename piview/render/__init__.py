"""Provides Rich renderables built from the model (Rich allowed, Textual not)."""
