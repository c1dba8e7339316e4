"""Provides one module per ``piview`` subcommand, and the helpers they share.

:mod:`piview.cli` parses the arguments and calls the chosen command's ``run(args)``. Each
command module imports :mod:`piview.commands.common` and the layers below it, never another
command (import-linter checks this).
"""
