"""``python -m nemori_ui``: the command line (see nemori_ui/cli)."""

from nemori_ui.cli import main

raise SystemExit(main())
