"""Provides what piview knows about the set of sessions on disk, as opposed to one file
(hosts, discovery, summaries, search, the demo); no Textual, no Rich."""
