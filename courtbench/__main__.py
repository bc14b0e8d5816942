"""``python -m courtbench`` runs the CLI."""

import sys

from courtbench.cli import main

sys.exit(main())
