"""``python -m assistant.cli``: the ``tuile`` command, for a checkout without the console script."""
import sys

from assistant.cli import main

sys.exit(main())
