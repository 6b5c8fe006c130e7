"""benchmarks/fit_evaluation.py, the script that fits the learned judgement's weights: its
least-squares solve and the rows its self-play records (the fit itself is minutes: a script's)."""

from __future__ import annotations

import math
import random

from tests.test_bots_doc import script

import escoba
from escoba.engine.bots.evaluation import FEATURES


def test_least_squares_recovers_the_weights_of_an_exact_linear_rule():
    """Rows made from chosen weights (y = 2·a − 3·b + 0.5, no noise) give those weights back."""
    fit = script("fit_evaluation")
    rng = random.Random(1)
    rows = []
    for _ in range(50):
        a, b = rng.uniform(-1, 1), rng.uniform(-1, 1)
        rows.append([a, b, 1.0, 2 * a - 3 * b + 0.5])
    assert all(math.isclose(w, want, abs_tol=1e-9) for w, want in zip(fit.least_squares(rows), [2.0, -3.0, 0.5], strict=True))


def test_self_play_records_the_features_and_the_final_lead_of_each_choice():
    """Each row holds the move's features, the constant 1, the captured lead, and the side's
    final lead: at two players the two sides' leads are opposite, so every row's last value is
    ± one hand's lead."""
    fit = script("fit_evaluation")
    rules = escoba.load_ruleset("da")
    rows = fit.self_play(rules, 2, None, random.Random(5))
    assert rows and all(len(row) == len(FEATURES) + 3 and row[len(FEATURES)] == 1.0 for row in rows)
    assert len({abs(row[-1]) for row in rows}) <= 2  # one magnitude per hand, two hands
