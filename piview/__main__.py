"""Run piview with ``python -m piview``."""

from piview.cli import main

raise SystemExit(main())
