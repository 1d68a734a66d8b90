"""Certified Lasso solutions (tools.statistics.lasso, SPEC 5.4)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.interpolate import interp1d
from sklearn.linear_model import Lasso as SkLasso
from sklearn.linear_model import lars_path

from tools.statistics.lasso import Lasso, lasso_grid_path
from tools.statistics.standardize import Standardizer

GRID = np.logspace(0, -6, 7)


def _problem(seed: int, n: int, p: int, planted: int = 3, structured: bool = False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    if structured:  # shared factors make genes correlated (drops happen on the path)
        X += rng.normal(size=(n, 5)) @ rng.normal(size=(5, p))
    X = Standardizer.fit(X).transform(X)
    beta = np.zeros(p)
    beta[:planted] = [2.0, -1.5, 1.0][:planted]
    y = X @ beta + rng.normal(size=n)
    return X, y - y.mean()


def _kkt_violation(X, y, coef, alpha):
    """Largest relative violation of the Lasso optimality conditions."""
    n = y.size
    corr = X.T @ (y - X @ coef) / n
    active = coef != 0
    inactive_excess = np.max(np.abs(corr[~active]) / alpha - 1.0, initial=-1.0)
    active_error = np.max(np.abs(corr[active] - alpha * np.sign(coef[active])) / alpha,
                          initial=0.0)
    return max(inactive_excess, active_error)


@pytest.mark.parametrize("structured", [False, True])
def test_grid_solutions_match_exact_lars_path(structured):
    # scikit-learn's lars_path (method="lasso") is the exact homotopy over all
    # genes; interpolating its knots at each grid penalty gives the reference.
    X, y = _problem(1, 40, 150, structured=structured)
    path = lasso_grid_path(np.ascontiguousarray(X.T), y, GRID, initial_size=10)
    alphas, _, coefs = lars_path(X, y, method="lasso")
    reference = interp1d(alphas[::-1], coefs[:, ::-1], bounds_error=False, fill_value=0.0)
    for i, alpha in enumerate(GRID):
        expected = np.zeros(X.shape[1]) if alpha > alphas[0] else reference(alpha)
        np.testing.assert_allclose(path.coefs[i], expected, atol=1e-8)
        assert set(np.flatnonzero(path.coefs[i])) == set(np.flatnonzero(np.abs(expected) > 1e-12))


def test_solutions_are_kkt_certified_and_at_most_n_sparse():
    # SPEC 5.4: a converged Lasso has at most n non-zero coefficients (n - 1
    # after centring); upstream's thousands of genes at small alpha were
    # unconverged iterates.
    X, y = _problem(2, 50, 2000, structured=True)
    path = lasso_grid_path(np.ascontiguousarray(X.T), y, GRID)
    for i, alpha in enumerate(GRID):
        assert _kkt_violation(X, y, path.coefs[i], alpha) < 1e-5
        assert np.count_nonzero(path.coefs[i]) <= X.shape[0] - 1
    assert path.kkt_violation.max() <= 1e-6
    # smallest penalties: the fit interpolates with exactly rank(X) = n - 1 genes
    assert np.count_nonzero(path.coefs[-1]) == X.shape[0] - 1


def test_working_set_does_not_change_the_answer():
    X, y = _problem(3, 45, 600, structured=True)
    XT = np.ascontiguousarray(X.T)
    small = lasso_grid_path(XT, y, GRID, initial_size=5)
    everything = lasso_grid_path(XT, y, GRID, initial_size=600)
    np.testing.assert_allclose(small.coefs, everything.coefs, atol=1e-9)


def test_planted_genes_are_recovered_first():
    X, y = _problem(4, 100, 3000)
    path = lasso_grid_path(np.ascontiguousarray(X.T), y, [0.1])
    ranked = np.argsort(-np.abs(path.coefs[0]))[:3]
    assert set(ranked) == {0, 1, 2}


def test_duplicate_and_constant_columns():
    X, y = _problem(5, 30, 60)
    X = np.column_stack([X, X[:, 0], np.zeros(30)])  # twin of gene 0, constant gene
    path = lasso_grid_path(np.ascontiguousarray(X.T), y, GRID)
    for i, alpha in enumerate(GRID):
        assert _kkt_violation(X, y, path.coefs[i], alpha) < 1e-5
        assert path.coefs[i][-1] == 0.0
        assert not (path.coefs[i][0] != 0 and path.coefs[i][60] != 0)


def test_estimator_matches_scikit_learn_at_moderate_penalty():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(60, 40)) * 2 + 3
    y = X[:, 0] - 0.5 * X[:, 1] + rng.normal(size=60) + 10
    ours = Lasso(alpha=0.05, random_state=42, max_iter=10).fit(X, y)
    theirs = SkLasso(alpha=0.05, tol=1e-12, max_iter=100000).fit(X, y)
    np.testing.assert_allclose(ours.coef_, theirs.coef_, atol=1e-7)
    np.testing.assert_allclose(ours.intercept_, theirs.intercept_, atol=1e-6)
    np.testing.assert_allclose(ours.predict(X[:5]), theirs.predict(X[:5]), atol=1e-6)
    assert ours.get_params()["alpha"] == 0.05


def test_zero_response_gives_empty_model():
    X, _ = _problem(7, 20, 30)
    path = lasso_grid_path(np.ascontiguousarray(X.T), np.zeros(20), GRID)
    assert not path.coefs.any()


@pytest.mark.parametrize("seed", range(4))
def test_float32_screen_gives_the_float64_ranking(seed):
    # tools.statistics.kkt_screen screens |x_j^T r| in float32 and recomputes in float64
    # every gene that can matter: same genes, order and values as float64 on
    # all genes (duplicated genes give ties; a float64 product of a gathered
    # row may differ from the full product in the last bit).
    from tools.statistics.kkt_screen import CorrelationScreen, largest_first

    rng = np.random.default_rng(seed)
    X, _ = _problem(seed, 60, 3000, structured=seed % 2 == 1)
    XT = np.ascontiguousarray(X.T)
    XT[10:20] = XT[0]
    residual = rng.normal(size=60) * 10.0 ** rng.uniform(-6, 2)
    if seed == 3:       # products in float32's subnormal range
        XT *= 1e-22
        residual *= 1e-20 / np.abs(residual).max()
    exclude = rng.choice(3000, 200, replace=False)
    exact = np.abs(XT @ residual)
    exact[exclude] = 0.0
    screen = CorrelationScreen(XT)
    for fraction, count in ((0.5, 64), (0.5, 120), (0.9, 5), (0.0, 3000), (2.0, 10)):
        floor = fraction * exact.max()
        genes, values, top = screen.largest(residual, exclude, floor, count)
        expected = largest_first(exact, np.flatnonzero(exact > floor), count)
        np.testing.assert_array_equal(genes, expected)
        np.testing.assert_allclose(values, exact[expected], rtol=1e-14, atol=0)
        np.testing.assert_allclose(top, exact.max() if expected.size else floor, rtol=1e-14)


@pytest.mark.parametrize("seed, twins, scale", [(0, False, 1.0), (1, True, 1.0),
                                                (2, False, 1e25), (3, False, 1e31)])
def test_float32_events_take_the_exact_path(monkeypatch, seed, twins, scale):
    # On large working sets each event's product X_W u is done in float32 and
    # the steps become lower bounds; every gene that may enter first is
    # re-evaluated in float64, so the path (events, supports, coefficients)
    # is the float64 one. Forced here on small problems (threshold 0). Twins
    # of genes (also negated) give tied steps and blocked denominators (the
    # float64 path may then spend one event more or less on a twin that
    # cannot enter). Genes scaled by 1e25 (rows near the top of float32's
    # range, the direction u near its bottom) still step in float32; by 1e31
    # they are past the guard and every product is float64.
    from tools.statistics import lasso

    X, y = _problem(seed, 50, 400, structured=True)
    if twins:
        X = np.column_stack([X, X[:, :5], -X[:, 5:8]])
    XT = np.ascontiguousarray(X.T) * scale      # same solutions with alpha * scale^2
    y = y * scale
    grid = GRID * scale ** 2
    knots = {"exact": [], "single": []}
    descend = lasso._Homotopy.descend

    def recording(mode):
        def wrapped(self, *args):
            descend(self, *args)
            knots[mode].extend(knot[0] for knot in self.knots)   # levels of the events
        return wrapped

    monkeypatch.setattr(lasso, "FLOAT32_EVENTS_BYTES", 1 << 60)
    monkeypatch.setattr(lasso._Homotopy, "descend", recording("exact"))
    exact = lasso.lasso_grid_path(XT, y, grid, initial_size=20)
    errors = []
    original = lasso._Homotopy._along
    monkeypatch.setattr(lasso._Homotopy, "_along",
                        lambda self, *args: errors.append(original(self, *args)) or errors[-1])
    monkeypatch.setattr(lasso._Homotopy, "descend", recording("single"))
    monkeypatch.setattr(lasso, "FLOAT32_EVENTS_BYTES", 0)
    single = lasso.lasso_grid_path(XT, y, grid, initial_size=20)
    float32_used = sum(error > 0 for error in errors)
    assert float32_used == (0 if scale > 1e30 else len(errors)) and errors
    if not twins:
        # the same events at the same levels: the two differ by 6e-12 and 5e-11
        # (float64 round-off near interpolation); taking the float32 lower
        # bounds as the steps instead differs by 2e-3 and 1e-2
        assert single.n_steps == exact.n_steps
        np.testing.assert_allclose(knots["single"], knots["exact"], rtol=1e-8)
    for i in range(grid.size):
        assert set(single.support(i)) == set(exact.support(i))
        np.testing.assert_allclose(single.coefs[i], exact.coefs[i], rtol=1e-9,
                                   atol=1e-12 * np.abs(exact.coefs[i]).max(initial=0.0))
        assert single.kkt_violation[i] <= 1e-6


@pytest.mark.parametrize("seed", range(3))
def test_pruning_the_working_set_keeps_the_solutions(monkeypatch, seed):
    # At a grid penalty a working set above 2 n genes is cut to the active
    # genes and the n others nearest to the boundary, without rebuilding the
    # active set; genes cut away come back when a check finds them (speed only).
    from tools.statistics import lasso

    X, y = _problem(seed, 40, 1500, structured=seed != 1)
    XT = np.ascontiguousarray(X.T)
    monkeypatch.setattr(lasso, "PRUNE_ABOVE", 10 ** 9)
    unpruned = lasso.lasso_grid_path(XT, y, GRID)
    kept = []
    original = lasso._WorkingSet.keep
    monkeypatch.setattr(lasso._WorkingSet, "keep",
                        lambda self, positions: kept.append(positions.size)
                        or original(self, positions))
    monkeypatch.setattr(lasso, "PRUNE_ABOVE", 2)
    pruned = lasso.lasso_grid_path(XT, y, GRID)
    assert kept and pruned.working_set_size < unpruned.working_set_size
    for i, alpha in enumerate(GRID):
        assert set(pruned.support(i)) == set(unpruned.support(i))
        np.testing.assert_allclose(pruned.coefs[i], unpruned.coefs[i], rtol=1e-9,
                                   atol=1e-12 * np.abs(unpruned.coefs[i]).max(initial=0.0))
        assert pruned.kkt_violation[i] <= 1e-6
        assert _kkt_violation(X, y, pruned.coefs[i], alpha) < 1e-5


def test_knots_replay_the_points_of_the_path(monkeypatch):
    # A knot records its event (gene added, slot dropped, collinear gene
    # blocked); the point a failed check resumes from is rebuilt by replaying
    # them: the same members, signs and level as the path had there.
    from tools.statistics import lasso

    X, y = _problem(8, 40, 300, structured=True)
    X = np.column_stack([X, X[:, :3]])            # twins: blocked entries
    seen = []
    for name in ("_add", "_drop"):
        original = getattr(lasso._Homotopy, name)

        def recording(self, *args, _original=original):
            outcome = _original(self, *args)
            seen.append((list(self.set.members), self.signs.copy(), self.level,
                         self.just_dropped))
            return outcome
        monkeypatch.setattr(lasso._Homotopy, name, recording)
    descend = lasso._Homotopy.descend
    checked = []

    def checking(self, *args):
        seen.clear()
        descend(self, *args)
        for index, (members, signs, level, dropped) in enumerate(seen):
            replayed = self.knot_point(index)
            assert replayed[0] == members and replayed[2:] == (level, dropped)
            np.testing.assert_array_equal(replayed[1], signs)
        checked.append(len(seen))
    monkeypatch.setattr(lasso._Homotopy, "descend", checking)
    lasso.lasso_grid_path(np.ascontiguousarray(X.T), y, GRID, initial_size=10)
    assert sum(checked) > 50


def test_direction_updates_match_a_fresh_solve():
    # The homotopy's direction G^-1 s is updated in O(k) after each event
    # (bordered inverse after an add, block formula after a drop), in place in
    # a buffer of the path's.
    from tools.statistics.lasso import _after_add, _after_drop

    rng = np.random.default_rng(12)
    rows = rng.normal(size=(7, 20))
    signs = np.sign(rng.normal(size=7))
    gram = rows[:6] @ rows[:6].T
    buffer = np.full(8, np.nan)
    buffer[:6] = np.linalg.solve(gram, signs[:6])
    new = rows[6]
    cross = rows[:6] @ new
    projected = np.linalg.solve(gram, cross)
    _after_add(buffer, 6, signs[:6], projected, float(new @ new - cross @ projected), signs[6])
    added = buffer[:7].copy()
    np.testing.assert_allclose(added, np.linalg.solve(rows @ rows.T, signs), rtol=1e-10)
    inverse = np.linalg.inv(rows @ rows.T)
    _after_drop(buffer, 7, inverse[:, 2], 2)
    order = [0, 1, 6, 3, 4, 5]                    # the last member moves to slot 2
    expected = np.linalg.solve(rows[order] @ rows[order].T, signs[order])
    np.testing.assert_allclose(buffer[:6], expected, rtol=1e-10)
    # the same bits as the allocating form it replaces
    direction = np.linalg.solve(gram, signs[:6])
    pivot2 = float(new @ new - cross @ projected)
    share = (signs[6] - float(projected @ signs[:6])) / pivot2
    np.testing.assert_array_equal(added, np.append(direction - share * projected, share))
    _after_add(buffer, 0, buffer[:0], np.zeros(0), 4.0, -1.0)
    np.testing.assert_allclose(buffer[:1], [-0.25])


def test_grid_coefficients_come_from_a_fresh_factorization():
    # At a grid penalty the coefficients are solved by a fresh Cholesky
    # factorization of the Gram matrix (potrf + potrs) while the updated inverse
    # is kept as it is (its O(k^3) inversion waits for REFRESH_EVERY events).
    from tools.statistics.lasso import _ActiveSet

    rng = np.random.default_rng(5)
    XW = rng.normal(size=(12, 30))
    y = rng.normal(size=30)
    active = _ActiveSet(XW, y, [0, 3, 7])
    for j in (1, 5, 9):
        assert active.try_add(j)
    active.drop(2)
    members = active.members
    gram = XW[members] @ XW[members].T
    vector = rng.normal(size=len(members))
    stored = active._inv.copy()
    pending = active._pending
    solved = active.solve_factored(vector)
    np.testing.assert_allclose(solved, np.linalg.solve(gram, vector), rtol=1e-12)
    np.testing.assert_allclose(active.solve(vector), solved, rtol=1e-10)
    np.testing.assert_array_equal(active._inv, stored)
    assert active._pending == pending and active.updates == 4
    active._gram[0, 0] = -1.0
    with pytest.raises(np.linalg.LinAlgError, match="not positive definite"):
        active.solve_factored(vector)


def test_knot_residuals_are_the_event_by_event_residuals(monkeypatch):
    # Knots keep the residual's change at each event, and the residuals a
    # failed check resumes from are rebuilt by accumulating them in order: the
    # same bits as the residual updated event by event, which the float32
    # events still keep (and hand to _entering at every event).
    from tools.statistics import lasso

    X, y = _problem(3, 50, 400, structured=True)
    seen, compared = [], []
    entering = lasso._Homotopy._entering

    def recording(self, lower, residual, *args):
        seen.append((len(self.knots), residual.copy()))   # after that many events
        return entering(self, lower, residual, *args)
    descend = lasso._Homotopy.descend

    def checking(self, *args):
        seen.clear()
        descend(self, *args)
        if not self.knots:
            return
        rebuilt = np.column_stack([self._knot_origin[2], self.knot_residuals()])
        for events, residual in seen:
            np.testing.assert_array_equal(rebuilt[:, events], residual)
        compared.append(len(seen))
    monkeypatch.setattr(lasso, "FLOAT32_EVENTS_BYTES", 0)
    monkeypatch.setattr(lasso._Homotopy, "_entering", recording)
    monkeypatch.setattr(lasso._Homotopy, "descend", checking)
    lasso.lasso_grid_path(np.ascontiguousarray(X.T), y, GRID, initial_size=20)
    assert sum(compared) > 50


def test_paths_side_by_side_are_the_paths_alone():
    # lasso_grid_paths advances several paths in turn and does their KKT
    # checks' products together (one product of the folds' shared float32
    # copy); each path must be the one lasso_grid_path follows alone: same
    # events, supports and coefficients, every grid point certified. Mixed in:
    # a dense design of its own and one too large for float32 (float64 checks).
    from tools.statistics.crossval import make_folds
    from tools.statistics.design import problem_designs
    from tools.statistics.lasso import lasso_grid_paths
    from tools.statistics.residualize import residualize

    X, y = _problem(21, 60, 500, structured=True)
    rng = np.random.default_rng(4)
    Z = rng.normal(size=(60, 1))
    folds = make_folds(y, False)
    _, designs = problem_designs(np.ascontiguousarray(X.T), Z, folds)
    problems = []
    for test, design in zip(folds, designs):
        train = np.setdiff1d(np.arange(60), test)
        problems.append((design, residualize(y[train], Z[train])[0]))
    dense, _ = _problem(22, 40, 300, structured=True)
    X3, y3 = _problem(23, 40, 300)
    problems += [(np.ascontiguousarray(dense.T), y3),
                 (np.ascontiguousarray(X3.T) * 1e31, y3 * 1e31)]
    grids = [GRID] * 6 + [GRID * 1e62]
    together = lasso_grid_paths(problems[:6], GRID) + lasso_grid_paths(problems[6:], grids[6])
    for (XT, target), grid, path in zip(problems, grids, together):
        alone = lasso_grid_path(XT, target, grid)
        assert path.n_steps == alone.n_steps
        for i in range(grid.size):
            assert set(path.support(i)) == set(alone.support(i))
            np.testing.assert_allclose(path.coefs[i], alone.coefs[i], rtol=1e-9,
                                       atol=1e-12 * np.abs(alone.coefs[i]).max(initial=0.0))
        assert np.all(path.kkt_violation <= 1e-6)
