"""Allow `python -m tingji ...` as an alias of the `tingji` command."""

from tingji.cli import main

raise SystemExit(main())
