"""BayesElo-style ratings of many players from game results.

The model (Coulom's Bayesian Elo, as publicly described). With ``f(x) = 1 / (1 + 10^(-x/400))``,
a game with player ``i`` as White and ``j`` as Black, ratings ``r``, a first-move advantage
``adv`` and a draw Elo ``d > 0`` has::

    P(white wins) = f(r_i - r_j + adv - d)
    P(black wins) = f(r_j - r_i - adv - d)
    P(draw)       = 1 - P(white wins) - P(black wins)

The prior is ``prior`` virtual draws between every pair of players that actually met, half
with each player as White. The fit minimises the negative log posterior::

    -sum_games log P(result) - sum_{pairs i,j that met} prior/2 (log P(draw | i White)
                                                              + log P(draw | j White))

``prior = 0`` gives plain maximum likelihood, which has no finite optimum once a player
won (or lost) all its games against the rest; the prior pulls such players back.

Why it fits well: writing ``x = r_i - r_j + adv`` and ``c = ln(10) / 400``, the draw
probability factors as ``f(d - x) f(x + d) (1 - 10^(-2d/400))``, so each pair's term is two
logistic log-likelihoods (in ``c(x - d)`` and ``c(x + d)``) plus ``log(1 - e^(-2cd))``.
Every piece is convex in ``(r, adv, d)``, so Newton's method with step halving converges
from any start, and the same form is numerically stable for lopsided pairs.

Ratings only matter up to a constant. Without an anchor they are fixed to mean zero and
their intervals are relative to the pool mean; with an anchor ``(name, elo)`` that player
is pinned and every interval is relative to it (the anchor's own is zero). The covariance
is the inverse Hessian of the negative log posterior over the free parameters; 95%
intervals are ``+-1.96 sd``. The likelihood of superiority of ``a`` over ``b`` is
``Phi((r_a - r_b) / sqrt(var_a + var_b - 2 cov_ab))``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from treestrap.rating.elo import Z95
from treestrap.rating.results import RESULTS, GameResult
from treestrap.rating.table import PlayerRating, RatingTable

_C = math.log(10.0) / 400.0  # Elo to natural-log odds
_MAX_ITER = 200
_DIVERGED = 1e5  # |Elo| beyond this means the optimum is at infinity


def expected(x: float) -> float:
    """The Elo curve ``f(x) = 1 / (1 + 10^(-x/400))``."""
    return 1.0 / (1.0 + 10.0 ** (-x / 400.0))


def outcome_probabilities(
    diff: float, draw_elo: float, advantage: float = 0.0
) -> tuple[float, float, float]:
    """``(P(white wins), P(draw), P(black wins))`` for White rated ``diff`` above Black."""
    x = diff + advantage
    win = expected(x - draw_elo)
    loss = expected(-x - draw_elo)
    return win, 1.0 - win - loss, loss


@dataclass(frozen=True)
class RatingOptions:
    draw_elo: float | None = None  # None: fit it
    advantage: float | None = None  # None: fit it
    prior: float = 2.0  # virtual draws per pair of players that met
    anchor: tuple[str, float] | None = None  # e.g. ("untrained", 250.0)


# ----------------------------------------------------------------------------- tallies


@dataclass
class _Tally:
    """Results summed per ordered pair (white, black): what the likelihood needs."""

    names: list[str]
    white: np.ndarray  # player index per ordered pair
    black: np.ndarray
    wins: np.ndarray  # White's wins
    draws: np.ndarray  # real plus virtual draws
    losses: np.ndarray
    real_draws: int
    decisive: int
    games: np.ndarray  # per player
    points: np.ndarray
    player_draws: np.ndarray


def _tally(games: Sequence[GameResult], prior: float) -> _Tally:
    index: dict[str, int] = {}
    counts: dict[tuple[int, int], list[float]] = {}
    for number, (white, black, result) in enumerate(games, 1):
        if result not in RESULTS:
            raise ValueError(f"game {number}: unknown result {result!r}")
        if white == black:
            raise ValueError(f"game {number}: {white!r} plays itself")
        i = index.setdefault(white, len(index))
        j = index.setdefault(black, len(index))
        counts.setdefault((i, j), [0.0, 0.0, 0.0])[RESULTS.index(result)] += 1
    n = len(index)
    if not counts:
        raise ValueError("no finished games to rate")
    # Every pair that met gets prior/2 virtual draws with each colour.
    met = {(min(i, j), max(i, j)) for i, j in counts}
    for i, j in met:
        for key in ((i, j), (j, i)):
            counts.setdefault(key, [0.0, 0.0, 0.0])[2] += prior / 2.0
    keys = sorted(counts)
    table = np.array([counts[k] for k in keys])
    white = np.array([k[0] for k in keys])
    black = np.array([k[1] for k in keys])
    # Column 2 holds real + virtual draws; every key got prior/2 virtual ones exactly once.
    real = table.copy()
    real[:, 2] -= prior / 2.0
    games_pp = np.zeros(n)
    points = np.zeros(n)
    draws_pp = np.zeros(n)
    n_games = real.sum(axis=1)
    np.add.at(games_pp, white, n_games)
    np.add.at(games_pp, black, n_games)
    np.add.at(points, white, real[:, 0] + 0.5 * real[:, 2])
    np.add.at(points, black, real[:, 1] + 0.5 * real[:, 2])
    np.add.at(draws_pp, white, real[:, 2])
    np.add.at(draws_pp, black, real[:, 2])
    return _Tally(
        names=list(index),
        white=white,
        black=black,
        wins=table[:, 0],
        draws=table[:, 2],
        losses=table[:, 1],
        real_draws=round(real[:, 2].sum()),
        decisive=round(real[:, 0].sum() + real[:, 1].sum()),
        games=np.rint(games_pp).astype(int),
        points=points,
        player_draws=draws_pp,
    )


def _check_finite(tally: _Tally, prior: float) -> None:
    """Refuse data whose optimum lies at infinity, with a message that says why."""
    n = len(tally.names)
    # i -> j when i did not beat j every time, so r_i cannot run off above r_j.
    up: list[set[int]] = [set() for _ in range(n)]
    met: list[set[int]] = [set() for _ in range(n)]
    for w, b, wins, draws, losses in zip(
        tally.white, tally.black, tally.wins, tally.draws, tally.losses, strict=True
    ):
        met[w].add(b)
        met[b].add(w)
        if draws + losses > 0:
            up[w].add(b)
        if draws + wins > 0:
            up[b].add(w)
    if len(_reach(met, 0)) < n:
        raise ValueError(
            "the players form groups that never met each other; ratings across groups are undefined"
        )
    down: list[set[int]] = [set() for _ in range(n)]
    for i in range(n):
        for j in up[i]:
            down[j].add(i)
    if prior <= 0 and (len(_reach(up, 0)) < n or len(_reach(down, 0)) < n):
        perfect = [
            tally.names[i] for i in range(n) if tally.points[i] in (0.0, float(tally.games[i]))
        ]
        which = f" (e.g. {', '.join(perfect)})" if perfect else ""
        raise ValueError(
            "no finite maximum-likelihood ratings: some players won or lost all their games "
            f"against the rest{which}; use a prior > 0 (--prior)"
        )


def _reach(edges: list[set[int]], start: int) -> set[int]:
    seen = {start}
    stack = [start]
    while stack:
        for j in edges[stack.pop()]:
            if j not in seen:
                seen.add(j)
                stack.append(j)
    return seen


# ----------------------------------------------------------------------------- objective


def _log_sigmoid(z: np.ndarray) -> np.ndarray:
    return -np.logaddexp(0.0, -z)


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return np.exp(_log_sigmoid(z))  # accurate in both tails, unlike 1 - sigmoid(-z)


class _Objective:
    """Negative log posterior over ``theta = (r_0 .. r_{n-1}, adv, d)``."""

    def __init__(self, tally: _Tally) -> None:
        self.t = tally
        n = len(tally.names)
        rows = np.arange(len(tally.white))
        # dx/dtheta for x = r_white - r_black + adv, one row per ordered pair.
        self.jac = np.zeros((len(rows), n + 2))
        self.jac[rows, tally.white] = 1.0
        self.jac[rows, tally.black] = -1.0
        self.jac[:, n] = 1.0
        self.total_draws = float(tally.draws.sum())

    def _pieces(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
        n = len(self.t.names)
        x = self.jac @ theta  # the adv and d columns: adv counted, d column is zero
        d = float(theta[n + 1])
        return _C * (x - d), _C * (x + d), d

    def value(self, theta: np.ndarray) -> float:
        z1, z2, d = self._pieces(theta)
        t = self.t
        if self.total_draws > 0 and d <= 0:
            return math.inf
        log_post = (
            t.wins @ _log_sigmoid(z1)
            + t.draws @ _log_sigmoid(-z1)
            + t.draws @ _log_sigmoid(z2)
            + t.losses @ _log_sigmoid(-z2)
        )
        if self.total_draws > 0:
            log_post += self.total_draws * math.log(-math.expm1(-2.0 * _C * d))
        return -float(log_post)

    def derivatives(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Gradient and Hessian, both analytic."""
        z1, z2, d = self._pieces(theta)
        t = self.t
        n = len(t.names)
        s1, s1m = _sigmoid(z1), _sigmoid(-z1)
        s2, s2m = _sigmoid(z2), _sigmoid(-z2)
        # Derivatives of the two logistic terms in z1 and z2 (negated: we minimise).
        g1 = t.draws * s1 - t.wins * s1m
        g2 = t.losses * s2 - t.draws * s2m
        h1 = (t.wins + t.draws) * s1 * s1m
        h2 = (t.draws + t.losses) * s2 * s2m
        lx = _C * (g1 + g2)  # z1 and z2 both move with x at rate c
        lxx = _C * _C * (h1 + h2)
        lxd = _C * _C * (h2 - h1)  # z1 falls with d, z2 rises
        ld = float((_C * (g2 - g1)).sum())
        ldd = float(lxx.sum())
        if self.total_draws > 0:
            e = math.expm1(2.0 * _C * d)
            ld -= self.total_draws * 2.0 * _C / e
            ldd += self.total_draws * 4.0 * _C * _C / (e * -math.expm1(-2.0 * _C * d))
        grad = self.jac.T @ lx
        grad[n + 1] += ld
        hess = (self.jac.T * lxx) @ self.jac
        cross = self.jac.T @ lxd
        hess[:, n + 1] += cross
        hess[n + 1, :] += cross
        hess[n + 1, n + 1] += ldd
        return grad, hess


def _newton(obj: _Objective, base: np.ndarray, free: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Minimise over ``theta = base + free @ u``; returns theta and the free Hessian."""
    u = np.zeros(free.shape[1])
    for _ in range(_MAX_ITER):
        theta = base + free @ u
        f = obj.value(theta)
        grad, hess = obj.derivatives(theta)
        g = free.T @ grad
        h = free.T @ hess @ free
        try:
            step = np.linalg.solve(h, -g)
        except np.linalg.LinAlgError:
            step = np.linalg.lstsq(h, -g, rcond=None)[0]
        decrement = float(-g @ step)  # ~ twice the distance to the optimum in log posterior
        if decrement < 1e-10 * max(1.0, abs(f)):
            # So close that comparing values is rounding noise; a last full Newton step
            # is then exact to many more digits than any report shows.
            theta = base + free @ (u + step)
            return theta, free.T @ obj.derivatives(theta)[1] @ free
        t = 1.0
        while t > 1e-12:
            if obj.value(base + free @ (u + t * step)) <= f - 1e-4 * t * decrement:
                break
            t /= 2.0
        else:
            raise ValueError("rating fit failed: no descent step found")
        u = u + t * step
        if float(np.abs(base + free @ u).max()) > _DIVERGED:
            break
    raise ValueError(
        "rating fit does not converge (the optimum seems to be at infinity: perfect scores, "
        "or White or Black won every game); use a prior > 0 (--prior) or fix --advantage"
    )


# ----------------------------------------------------------------------------- fitting


def fit_ratings(games: Sequence[GameResult], options: RatingOptions | None = None) -> RatingTable:
    """Maximum a posteriori ratings with 95% intervals (see the module docstring)."""
    opts = options or RatingOptions()
    if not (math.isfinite(opts.prior) and opts.prior >= 0):
        raise ValueError(f"prior must be >= 0, got {opts.prior}")
    # NaN or infinity would only surface as a failed fit, far from its cause.
    for name, value in (
        ("draw Elo", opts.draw_elo),
        ("white advantage", opts.advantage),
        ("anchor Elo", opts.anchor[1] if opts.anchor else None),
    ):
        if value is not None and not math.isfinite(value):
            raise ValueError(f"{name} must be a finite number, got {value}")
    tally = _tally(games, opts.prior)
    names = tally.names
    n = len(names)
    draw_elo = opts.draw_elo
    if draw_elo is None and tally.decisive == 0:
        raise ValueError("every game is a draw: draw Elo cannot be fitted; fix it (--draw-elo)")
    if draw_elo is None and float(tally.draws.sum()) == 0:
        draw_elo = 0.0  # no draws, real or virtual: the optimum is the boundary d = 0
    if draw_elo is not None and draw_elo < 0:
        raise ValueError(f"draw Elo must be >= 0, got {draw_elo}")
    if draw_elo is not None and draw_elo == 0 and float(tally.draws.sum()) > 0:
        raise ValueError("draw Elo 0 makes draws impossible, but there are draws")
    anchor_index = None
    if opts.anchor is not None:
        if opts.anchor[0] not in names:
            raise ValueError(
                f"anchor player {opts.anchor[0]!r} is not in the games (players: "
                f"{', '.join(sorted(names))})"
            )
        anchor_index = names.index(opts.anchor[0])
    _check_finite(tally, opts.prior)

    # theta = base + free @ u: fixed values live in base, free directions in the columns.
    base = np.zeros(n + 2)
    columns: list[np.ndarray] = []
    if anchor_index is None:
        for k in range(n - 1):  # sum-zero directions keep the mean at 0
            col = np.zeros(n + 2)
            col[k], col[n - 1] = 1.0, -1.0
            columns.append(col)
    else:
        assert opts.anchor is not None
        base[:n] = opts.anchor[1]
        for k in range(n):
            if k != anchor_index:
                columns.append(np.eye(n + 2)[k])
    if opts.advantage is None:
        columns.append(np.eye(n + 2)[n])
    else:
        base[n] = opts.advantage
    if draw_elo is None:
        columns.append(np.eye(n + 2)[n + 1])
        base[n + 1] = 100.0
    else:
        base[n + 1] = draw_elo
    free = np.array(columns).T.reshape(n + 2, len(columns))

    theta, hess = _newton(_Objective(tally), base, free)
    try:
        cov_free = np.linalg.inv(hess)
    except np.linalg.LinAlgError:
        raise ValueError("the ratings are not determined by these games") from None
    cov = free @ cov_free @ free.T

    order = sorted(range(n), key=lambda i: (-theta[i], names[i]))
    players = []
    for i in order:
        half = Z95 * math.sqrt(max(cov[i, i], 0.0))
        games_i = int(tally.games[i])
        players.append(
            PlayerRating(
                name=names[i],
                elo=float(theta[i]),
                lower=float(theta[i]) - half,
                upper=float(theta[i]) + half,
                games=games_i,
                score=float(tally.points[i]) / games_i,
                draws=float(tally.player_draws[i]) / games_i,
            )
        )
    return RatingTable(
        players=players,
        draw_elo=float(theta[n + 1]),
        draw_elo_sd=math.sqrt(max(cov[n + 1, n + 1], 0.0)),
        advantage=float(theta[n]),
        advantage_sd=math.sqrt(max(cov[n, n], 0.0)),
        names=[names[i] for i in order],
        covariance=cov[np.ix_(order, order)],
        prior=opts.prior,
        anchor=opts.anchor,
        draw_elo_fixed=draw_elo is not None,
        advantage_fixed=opts.advantage is not None,
    )


def negative_log_posterior(
    games: Sequence[GameResult],
    ratings: Mapping[str, float],
    draw_elo: float,
    advantage: float,
    prior: float = 0.0,
) -> float:
    """The quantity ``fit_ratings`` minimises, at the given parameters (for checks)."""
    tally = _tally(games, prior)
    theta = np.array([*(ratings[name] for name in tally.names), advantage, draw_elo], float)
    return _Objective(tally).value(theta)


def simulate_games(
    ratings: Mapping[str, float],
    rounds: int,
    draw_elo: float,
    advantage: float,
    rng: np.random.Generator,
    pairs: Sequence[tuple[str, str]] | None = None,
) -> list[GameResult]:
    """Draw games from the model: each round, every pair plays once with each colour
    (all pairs of ``ratings`` unless ``pairs`` is given)."""
    names = list(ratings)
    if pairs is None:
        pairs = [(a, b) for k, a in enumerate(names) for b in names[k + 1 :]]
    games: list[GameResult] = []
    for _ in range(rounds):
        for a, b in pairs:
            for white, black in ((a, b), (b, a)):
                win, draw, _loss = outcome_probabilities(
                    ratings[white] - ratings[black], draw_elo, advantage
                )
                u = rng.random()
                result = "1-0" if u < win else "1/2-1/2" if u < win + draw else "0-1"
                games.append((white, black, result))
    return games


#: BayesElo's defaults, used where the games cannot determine a parameter.
BAYESELO_DRAW_ELO = 97.3
BAYESELO_ADVANTAGE = 32.8
#: A fitted draw Elo or advantage whose 95% half-width exceeds this is not determined
#: by the games (lopsided gauntlets: almost no draws and no even pairings).
UNDETERMINED_HALF_WIDTH = 200.0


def fit_ratings_settled(
    games: Sequence[GameResult], options: RatingOptions | None = None
) -> tuple[RatingTable, list[str]]:
    """:func:`fit_ratings`, but a draw Elo or advantage that the games leave undetermined
    (every game drawn, or a 95% half-width above :data:`UNDETERMINED_HALF_WIDTH`) is
    fixed at BayesElo's default instead, with a note saying so. Near-sweeps otherwise
    trade an arbitrarily large draw Elo against arbitrarily spread ratings."""
    opts = options or RatingOptions()
    notes: list[str] = []
    if opts.draw_elo is None and all(result == "1/2-1/2" for _, _, result in games):
        opts = replace(opts, draw_elo=BAYESELO_DRAW_ELO)
        notes.append(f"every game is a draw: draw Elo fixed at {BAYESELO_DRAW_ELO}")
    table = fit_ratings(games, opts)
    changes: dict[str, float] = {}
    if opts.draw_elo is None and Z95 * table.draw_elo_sd > UNDETERMINED_HALF_WIDTH:
        changes["draw_elo"] = BAYESELO_DRAW_ELO
        notes.append(
            f"draw Elo fixed at {BAYESELO_DRAW_ELO} (BayesElo's default): these games do "
            f"not determine it (fitted {table.draw_elo:.0f} +/- {Z95 * table.draw_elo_sd:.0f})"
        )
    if opts.advantage is None and Z95 * table.advantage_sd > UNDETERMINED_HALF_WIDTH:
        changes["advantage"] = BAYESELO_ADVANTAGE
        notes.append(
            f"white advantage fixed at {BAYESELO_ADVANTAGE} (BayesElo's default): these "
            f"games do not determine it (fitted {table.advantage:.0f} +/- "
            f"{Z95 * table.advantage_sd:.0f})"
        )
    if changes:
        table = fit_ratings(games, replace(opts, **changes))
    return table, notes
