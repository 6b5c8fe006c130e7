"""Every ruleset as an OpenSpiel game: `escoba.research.openspiel`, under its first name.

`import escoba.openspiel` registers the games as it always did; docs/research.md describes them.
"""

from escoba.research.openspiel import *  # noqa: F403  (the same module's names, under the old path)
from escoba.research.openspiel import EscobaBot, EscobaGame, EscobaState, game_name, load, register  # noqa: F401
