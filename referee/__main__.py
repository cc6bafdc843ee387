"""``python -m referee``: see :mod:`referee.cli`."""
import sys

from .cli import main

sys.exit(main())
