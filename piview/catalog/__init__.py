"""Provides what piview knows about the set of sessions on disk, as opposed to one file.

Where each host keeps its sessions, which files are sessions, the summaries the picker lists
and their cache, and the bundled demo. Pure like :mod:`piview.model`: no Textual, no Rich.
"""
