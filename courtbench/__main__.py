"""``python -m courtbench`` runs the CLI.

``python -m`` puts the current folder first on ``sys.path``; a folder there that happens to
hold a folder named like a dataset package (a demo output, a copy) would then shadow the
installed dataset plugins. That entry is dropped before any plugin is imported — unless it is the
folder courtbench itself runs from (a checkout without installation).
"""

import sys

from courtbench.cwd_path import drop_working_folder_from_path

drop_working_folder_from_path()

from courtbench.cli import main  # noqa: E402 - after the path is made safe

sys.exit(main())
