"""Bots: random, greedy, expert, search and their specs (docs/bots.md). A seeded bot is
deterministic.

`basic` holds what every bot shares and the random bot; `greedy` the one-ply judge; `endgame`
exact play once every card is known, and `expert` the bot that uses it; `search` the tree
search; `specs` the names that commands accept, above the bots they name.
"""

from escoba.engine.bots.basic import Bot, BotMaker, Seed, generator, random_bot, thinking
from escoba.engine.bots.expert import expert_bot
from escoba.engine.bots.greedy import Judge, greedy_bot
from escoba.engine.bots.specs import BOT_SPECS, BOTS, bot_maker

__all__ = ["BOTS", "BOT_SPECS", "Bot", "BotMaker", "Judge", "Seed", "bot_maker", "expert_bot", "generator", "greedy_bot",
           "random_bot", "thinking"]  # fmt: skip
