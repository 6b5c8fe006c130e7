"""OpenSpiel's own IS-MCTS on the research bridge, for many hands: does every hand run to its end?

    python benchmarks/ismcts_bridge.py --ruleset da --hands 10000 --simulations 10 --jobs 2

Hand i is game `python_escoba` (one hand) with seat `i % N` dealing; OpenSpiel's Python
`ISMCTSBot` (random-rollout evaluator, UCT constant 2, `--simulations` per decision, resampling
through the bridge's `resample_from_infostate`, seeded with `escoba.research.openspiel.
seeded_resampler`) sits at seat `i % N`, escoba's `--opponent` bot (`EscobaBot`) at the others;
chance is drawn from a generator seeded by `derive_seed(seed, "ismcts", i)`. Any exception ends
that hand and is counted, with the hand's number and the error (the run goes on).

Prints one JSON line: hands played, errors (with the first few), IS-MCTS's mean lead in points
per hand with its 95% interval, decisions and CPU per IS-MCTS decision, the most legal moves one
card had in a real position (the first bridge failed above 63), the most actions one hand took
against the bridge's bound, and CPU seconds in all.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from concurrent.futures import as_completed

CHUNK = 50


def play(task: tuple[str, int, int, int, str, int, int]) -> dict:
    """Hands start … stop-1: totals, errors, and the largest positions seen."""
    import numpy as np
    import pyspiel
    from open_spiel.python.algorithms import ismcts, mcts

    import escoba.research.openspiel as bridge
    from escoba.simulate import derive_seed

    ruleset, players, simulations, seed, opponent, start, stop = task
    out = {"hands": 0, "errors": [], "lead": 0.0, "squares": 0.0, "decisions": 0, "search_cpu": 0.0,
           "most_moves_one_card": 0, "most_actions": 0, "bound": 0}  # fmt: skip
    for i in range(start, stop):
        game = pyspiel.load_game("python_escoba", {"ruleset": ruleset, "players": players, "dealer": i % players})
        out["bound"] = game.max_game_length()
        rng = np.random.RandomState(derive_seed(seed, "ismcts", i) % 2**32)
        me = i % players
        search = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rng), 2.0, simulations, random_state=rng)
        search.set_resampler(bridge.seeded_resampler(derive_seed(seed, "resample", i)))
        others = bridge.bots(game, [opponent], seed=derive_seed(seed, "opponent", i))
        state = game.new_initial_state()
        actions = 0
        try:
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes = state.chance_outcomes()
                    state.apply_action(outcomes[rng.randint(len(outcomes))][0])
                    continue
                hand = state.hand_state.hand
                by_card: dict[int, int] = {}
                for m in hand.legal_moves():
                    by_card[m.card] = by_card.get(m.card, 0) + 1
                out["most_moves_one_card"] = max(out["most_moves_one_card"], max(by_card.values()))
                player = state.current_player()
                if player == me:
                    began = time.process_time()
                    action = search.step(state)
                    out["search_cpu"] += time.process_time() - began
                    out["decisions"] += 1
                else:
                    action = others[player].step(state)
                state.apply_action(action)
                actions += 1
            lead = state.returns()[me]
            out["hands"] += 1
            out["lead"] += lead
            out["squares"] += lead * lead
            out["most_actions"] = max(out["most_actions"], actions)
        except Exception as e:  # counted and shown: the point of the run is that there are none
            out["errors"].append(f"hand {i}: {type(e).__name__}: {e}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ruleset", default="da")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--hands", type=int, default=10_000)
    parser.add_argument("--simulations", type=int, default=10)
    parser.add_argument("--opponent", default="greedy", help="escoba bot spec at the other seats")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args(argv)
    from escoba.processes import worker_pool

    tasks = [(args.ruleset, args.players, args.simulations, args.seed, args.opponent, s, min(s + CHUNK, args.hands))
             for s in range(0, args.hands, CHUNK)]  # fmt: skip
    began = time.time()
    total = {"hands": 0, "errors": [], "lead": 0.0, "squares": 0.0, "decisions": 0, "search_cpu": 0.0,
             "most_moves_one_card": 0, "most_actions": 0, "bound": 0}  # fmt: skip
    with worker_pool(args.jobs, len(tasks)) as pool:
        for future in as_completed([pool.submit(play, t) for t in tasks]):
            part = future.result()
            for key in ("hands", "lead", "squares", "decisions", "search_cpu"):
                total[key] += part[key]
            total["errors"] += part["errors"]
            for key in ("most_moves_one_card", "most_actions", "bound"):
                total[key] = max(total[key], part[key])
    n = max(1, total["hands"])
    mean = total["lead"] / n
    sd = math.sqrt(max(0.0, total["squares"] / n - mean * mean) * n / max(1, n - 1))
    report = {
        "ruleset": args.ruleset, "players": args.players, "simulations": args.simulations,
        "opponent": args.opponent, "seed": args.seed, "hands": total["hands"], "errors": len(total["errors"]),
        "first_errors": sorted(total["errors"])[:5], "ismcts_lead": round(mean, 3),
        "ismcts_lead_95": round(1.96 * sd / math.sqrt(n), 3), "ismcts_decisions": total["decisions"],
        "ms_per_ismcts_decision": round(1000 * total["search_cpu"] / max(1, total["decisions"]), 2),
        "most_moves_one_card": total["most_moves_one_card"], "most_actions_one_hand": total["most_actions"],
        "max_game_length": total["bound"], "wall_seconds": round(time.time() - began, 1),
    }  # fmt: skip
    print(json.dumps(report))
    print(f"{report['hands']} hands, {report['errors']} errors; IS-MCTS leads {mean:+.3f} ± {report['ismcts_lead_95']}",
          file=sys.stderr)  # fmt: skip
    return 1 if total["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
