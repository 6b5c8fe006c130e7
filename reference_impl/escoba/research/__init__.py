"""Escoba for game-AI research: every ruleset as an OpenSpiel game and a PettingZoo environment.

| module | owns |
|---|---|
| `moves.py` | a move spelled as actions with fixed meanings (card, cards taken, stop) |
| `state.py` | a hand or a match stepped one action at a time; honest resampling |
| `observe.py` | observation and perfect-recall information-state tensors and strings |
| `bounds.py` | game length and utility bounds worked out from the ruleset |
| `openspiel.py` | the OpenSpiel games and bots (extra `openspiel`) |
| `pettingzoo.py` | the PettingZoo AEC environment (extra `pettingzoo`) |

docs/research.md is the guide.
"""
