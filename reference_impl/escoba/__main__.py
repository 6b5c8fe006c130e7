from escoba.cli.main import entry

entry()
