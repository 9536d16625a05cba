from __future__ import annotations

from evolve_action.commands.cli import main

raise SystemExit(main())
