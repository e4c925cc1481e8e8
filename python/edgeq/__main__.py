"""python3 -m edgeq ...: the edgeq command line, run by this package's own library."""
import sys

from . import main

sys.exit(main())
