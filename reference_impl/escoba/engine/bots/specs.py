"""Bot specs: the names `escoba simulate`, `escoba diff`, `escoba play` and the benchmarks
accept for a bot, and the constructor behind each.

`random`, `greedy`, `expert`, `learned` (the expert with the learned judgement),
`search:PLAYOUTS` (`search:200`) or `search:SECONDSs` (`search:0.5s`, a time budget: not
reproducible), and `strong` (`strong:PLAYOUTS`, budgets as search's): the search with the
learned prior, the last deal solved exactly, the opponents replying from their own view and
the unseen cards weighed by what the opponent's plays say (`escoba.engine.bots.search`). `bot_maker(spec)` gives the constructor `seed -> bot` that
`escoba simulate` and `escoba diff` call once per hand and seat. This registry sits above the
bots it names: each bot module knows nothing of the others' names.
"""

from __future__ import annotations

from escoba.engine.bots.basic import Bot, BotMaker, Seed, random_bot
from escoba.engine.bots.expert import expert_bot
from escoba.engine.bots.greedy import greedy_bot
from escoba.engine.bots.search import search_bot
from escoba.errors import EscobaError


def learned_bot(seed: Seed = None) -> Bot:
    """The expert with the learned judgement in place of greedy's."""
    return expert_bot(seed, learned=True)


BOTS: dict[str, BotMaker] = {"random": random_bot, "greedy": greedy_bot, "expert": expert_bot, "learned": learned_bot}
BOT_SPECS = ("random", "greedy", "expert", "learned", "search:PLAYOUTS", "strong[:PLAYOUTS]")
# The strong search's budget when none is given: the one measured in docs/bots.md's ladder.
STRONG_PLAYOUTS = 200


def searches(spec: str) -> bool:
    """Whether a bot spec names a tree search (`search:…`, `strong…`): tens to thousands of times
    a plain bot's time a decision, so runs split their work finer for it."""
    return spec.split(":", 1)[0] in ("search", "strong")


def search_bot_spec(spec: str, where: str = "") -> tuple[int | None, float | None]:
    """(playouts, seconds) of a `search:…` spec; EscobaError for a malformed one."""
    budget = spec.split(":", 1)[1] if ":" in spec else ""
    try:
        if budget.endswith("ms"):
            seconds = float(budget[:-2]) / 1000
        elif budget.endswith("s"):
            seconds = float(budget[:-1])
        else:
            playouts = int(budget)
            if not 1 <= playouts <= 1_000_000:
                raise ValueError
            return playouts, None
        if not 0 < seconds <= 600:
            raise ValueError
        return None, seconds
    except ValueError:
        raise EscobaError(
            f"bad search budget {budget!r} in {spec!r}{where}: a number of playouts from 1 to 1,000,000 (search:200) "
            "or a time such as search:0.5s or search:300ms"
        ) from None


def bot_maker(spec: str, where: str = "") -> BotMaker:
    """The constructor `seed -> bot` of a bot spec; EscobaError naming the known bots otherwise
    (`where` says where the spec was written, e.g. " in --bots")."""
    name = spec.split(":", 1)[0]
    if name == "search":
        playouts, seconds = search_bot_spec(spec, where)

        def make(seed: Seed) -> Bot:
            return search_bot(seed, playouts=playouts, seconds=seconds)

        return make
    if name == "strong":
        playouts, seconds = search_bot_spec(spec, where) if ":" in spec else (STRONG_PLAYOUTS, None)

        def make_strong(seed: Seed) -> Bot:
            return search_bot(
                seed, playouts=playouts, seconds=seconds, learned=True, exact_last_deal=True, own_view_replies=True, infer=True
            )

        return make_strong
    if name in BOTS and ":" not in spec:
        return BOTS[name]
    shown = repr(spec) if spec else "an empty name"
    raise EscobaError(f"unknown bot {shown}{where}; known bots: {', '.join(BOT_SPECS)}")
