from __future__ import annotations

from evolve_action.cli import main

raise SystemExit(main())
