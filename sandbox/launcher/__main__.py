import sys

from sandbox.launcher.serve import main

sys.exit(main())
