"""`kmut` and `python -m kmut`: hand the command line to the native CLI."""

from __future__ import annotations

import sys


def main() -> int:
    from . import _native
    from .nvrtc import site_dirs

    return _native.main(sys.argv, sys.executable, site_dirs())


if __name__ == "__main__":
    sys.exit(main())
