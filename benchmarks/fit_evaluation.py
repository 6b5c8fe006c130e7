"""Fit the weights of the learned evaluation (`escoba.engine.bots.evaluation.WEIGHTS`).

    python benchmarks/fit_evaluation.py                      # da, 20,000 hands a round, 2 rounds
    python benchmarks/fit_evaluation.py --ruleset sv --hands 5000

Self-play at two players: before the last round every seat chooses by a judgement (the greedy
judge in the first round of fitting, the evaluation with the weights just fitted in the next),
a fifth of its choices at random so that moves the judgement would not play are seen too; once
every card is known it plays exactly, as the expert does. Each choice records the features of
the position the move leaves (`Evaluation.features`), with two that no move changes (a constant,
and the worth of each side's captures so far, escobas included), and the side's lead when the
hand ends. The weights are the least-squares fit of that lead on the features (normal
equations, solved in plain Python, standard library only). Prints each round's size and its
two fixed weights on stderr, then the move features' weights, rounded to three places as
`evaluation.WEIGHTS` holds them. A script, never a test: about ten minutes a round.
"""

from __future__ import annotations

import argparse
import random
import sys

import escoba
from escoba.engine.bots.endgame import best_move, known_hand
from escoba.engine.bots.evaluation import FEATURES, Evaluation
from escoba.engine.hand import Hand, shuffled_decks
from escoba.engine.scoring import leads
from escoba.engine.worth import worth_of
from escoba.errors import EscobaError

EXPLORE = 0.2  # share of choices made at random
MIN_HANDS = 100  # fewer leave some feature without the spread a fit needs


def captured_lead(hand: Hand, side: int, worth: escoba.engine.worth.Worth) -> float:
    """The worth of `side`'s captures so far less the other side's (two players)."""
    mine = sum(worth.card[c] for c in hand.piles[side]) + worth.escoba * hand.escobas[side]
    theirs = sum(worth.card[c] for c in hand.piles[1 - side]) + worth.escoba * hand.escobas[1 - side]
    return mine - theirs


def self_play(rules: escoba.Rules, hands: int, weights: tuple[float, ...] | None, rng: random.Random) -> list[list[float]]:
    """Rows of features (the move's, a constant, the captured lead) and the final lead."""
    worth = worth_of(rules, 2)
    rows: list[list[float]] = []
    for h in range(hands):
        hand = Hand(rules, 2, h % 2, shuffled_decks(rules, random.Random(rng.random())), record=False)
        made: list[tuple[int, list[float]]] = []
        while hand.to_play is not None:
            seat = hand.to_play
            moves = hand.legal_moves()
            view = hand.view(seat)
            known = known_hand(view) if len(moves) > 1 else None
            if len(moves) == 1 or known is not None:
                hand.apply(moves[0] if known is None else best_move(known))
                continue
            evaluation = Evaluation(view, worth) if weights is None else Evaluation(view, worth, weights)
            features = [evaluation.features(m) for m in moves]
            if rng.random() < EXPLORE:
                i = rng.randrange(len(moves))
            elif weights is None:
                i = max(range(len(moves)), key=lambda j: (evaluation.judge.move(moves[j]), rng.random()))
            else:
                i = max(range(len(moves)), key=lambda j: (sum(w * x for w, x in zip(weights, features[j])), rng.random()))
            side = hand.side_of[seat]
            made.append((side, [*features[i], 1.0, captured_lead(hand, side, worth)]))
            hand.apply(moves[i])
        assert hand.points is not None
        final = leads(hand.points)
        rows += [[*x, final[side]] for side, x in made]
    return rows


def least_squares(rows: list[list[float]]) -> list[float]:
    """The weights minimising the squared error of the last column on the others."""
    k = len(rows[0]) - 1
    a = [[0.0] * (k + 1) for _ in range(k)]  # the normal equations, augmented
    for row in rows:
        y = row[k]
        for i in range(k):
            xi = row[i]
            if xi:
                ai = a[i]
                for j in range(k):
                    ai[j] += xi * row[j]
                ai[k] += xi * y
    for col in range(k):  # Gaussian elimination with partial pivoting
        pivot = max(range(col, k), key=lambda r: abs(a[r][col]))
        a[col], a[pivot] = a[pivot], a[col]
        if abs(a[col][col]) < 1e-12:
            raise SystemExit(f"feature {col} never varies: the fit is not determined")
        for r in range(k):
            if r != col:
                f = a[r][col] / a[col][col]
                a[r] = [x - f * p for x, p in zip(a[r], a[col])]
    return [a[i][k] / a[i][i] for i in range(k)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ruleset", default="da")
    parser.add_argument("--hands", type=int, default=20_000, help="self-play hands per round of fitting (default 20000)")
    parser.add_argument("--rounds", type=int, default=2, help="rounds of fitting (default 2)")
    parser.add_argument("--seed", type=int, default=2, help="round r of fitting plays from seed + r (default 2: WEIGHTS' own)")
    args = parser.parse_args(argv)
    if args.hands < MIN_HANDS or args.rounds < 1:
        parser.error(f"--hands must be at least {MIN_HANDS} and --rounds at least 1")
    try:
        rules = escoba.load_ruleset(args.ruleset)
    except EscobaError as error:
        parser.error(str(error))
    if 2 not in rules.player_counts:
        parser.error(f"{args.ruleset} is not played by two players")
    weights: tuple[float, ...] | None = None
    for r in range(args.rounds):
        rows = self_play(rules, args.hands, weights, random.Random(args.seed + r))
        fitted = least_squares(rows)
        weights = tuple(fitted[: len(FEATURES)])
        print(f"round {r + 1}: {len(rows):,} choices; constant {fitted[-2]:+.3f}, captured lead {fitted[-1]:+.3f}", file=sys.stderr)
    assert weights is not None
    print("WEIGHTS = {" + ", ".join(f'"{name}": {w:.3f}' for name, w in zip(FEATURES, weights)) + "}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
