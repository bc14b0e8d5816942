"""``python -m courtbench.spaces``: serve every metric page locally and screenshot it."""

import sys

from courtbench.spaces.screenshots import main

sys.exit(main())
