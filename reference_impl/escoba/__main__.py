import sys

from escoba.cli.main import main

sys.exit(main())
