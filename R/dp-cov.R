# dp_cov(): a private covariance (or correlation) of a data frame, centred at a
# private mean; and dp_as_cov(): a release converted to a covariance or a
# correlation by post-processing only.

#' Private covariance or correlation matrix, centred at a private mean
#'
#' The private counterpart of [stats::cov()] (and [stats::cor()]): column
#' names kept, rows centred, divided by n (or n - 1). Exact centring is itself
#' a leak (the column means are statistics of the data), so the rows are
#' centred at a *private* mean, by composing two mechanisms (see Details).
#'
#' 1. **Mean step** (share `split` of epsilon and delta): the Gaussian
#'    mechanism on the column sums of the raw rows clipped to L2 norm
#'    `clip_mean`. Its sensitivity is \eqn{2C} (replace-one) or \eqn{C}
#'    (zero-out), C = `clip_mean`; under add/remove n is private, so the step
#'    releases the sums together with the count scaled by C, sensitivity
#'    \eqn{\sqrt2 C}, and the mean is the noisy sums over the noisy count
#'    (floored at 2). The released mean is returned in `center`, and the noisy
#'    count in `params$n_noisy`.
#' 2. **Second-moment step** (the rest of the budget): the rows centred at
#'    that released mean (public now), clipped to L2 norm `clip`, go through
#'    `mechanism`: `"analyze_gauss"` ([analyze_gauss()], the default),
#'    `"threshold"` ([dp_threshold()], modified variant with the theory
#'    constant, for sparse high-dimensional data; its noise scale and threshold
#'    use n, so it needs `neighbor` `"replace-one"` or `"zero-out"`), or `"wishart"`
#'    ([wishart_noise()] with the shift; needs its share of epsilon < 1 and of delta < 1/6).
#' 3. **Combination** (post-processing): with S the second step's estimate of
#'    the centred sum \eqn{\sum_i (x_i - \hat\mu)(x_i - \hat\mu)^T}, the
#'    covariance is \eqn{(S - \sigma_m^2/\hat n\, I) / \hat n} (divisor
#'    `"n"`) or \eqn{/(\hat n - 1)} (`"n - 1"`): centring at \eqn{\hat\mu}
#'    instead of the sample mean adds \eqn{n(\bar x - \hat\mu)(\bar x -
#'    \hat\mu)^T}, whose expectation \eqn{\sigma_m^2/n\, I} (\eqn{\sigma_m} the
#'    mean step's noise sd) is subtracted. The result is projected to the PSD
#'    cone, and with `type = "correlation"` scaled to unit diagonal (a
#'    variable whose variance estimate is 0 gets correlation 0 with the
#'    others, recorded in `params$zero_variance`).
#'
#' **The default: bounds chosen privately.** With no bounds at all (no
#' `lower`/`upper`/`bounds`, no `clip`, no `clip_mean`) and the data in memory,
#' per-column bounds are chosen privately first, by the mechanism of
#' [dp_column_bounds()] with `2 * bound_share` of epsilon and of delta (half
#' of each by default; its 10p exponential mechanisms, and under add/remove a
#' noisy count, composed by zCDP when
#' that gives more, else by basic composition with no delta), and the release
#' then takes the box path below with them (`params$bounds_source =
#' "private"`, `params$column_bounds` the step's budget and the rows targeted
#' beyond each bound). Logical columns are bounded by their coding instead,
#' \eqn{[0, 1]} (`params$coded_columns`): bounds are chosen privately for the
#' other columns only, and data whose columns are all logical take these
#' public bounds and the whole budget to the release. The two steps compose by zero-concentrated DP
#' (`params$composition = "zCDP"`): an \eqn{\epsilon_q}-DP exponential
#' mechanism is \eqn{\epsilon_q^2/8}-zCDP (Cesar and Rogers 2021), so the
#' bounds take \eqn{\rho_b} of the \eqn{\rho} whose conversion (Canonne,
#' Kamath and Steinke 2020) is (epsilon, delta)-DP, and the box's Gaussian
#' mechanism gets the rest, \eqn{\rho - \rho_b}: half of epsilon is about a
#' quarter of \eqn{\rho}, and the Gaussian's noise is about 1.25 times that of
#' the whole budget, where the rest by basic composition would give 1.9-2 times
#' (basic composition is used when it gives less noise, e.g. with
#' `calibration = "classic"`). Those rows are a
#' fixed number of order \eqn{1/\epsilon} rather than a fixed share, so the
#' clamping bias falls as \eqn{n\epsilon} grows (no bias floor on skewed or
#' heavy-tailed data), and the axis is logarithmic around a private median,
#' so large means cost nothing. When the share of rows clamped (computed from
#' the released or public n) is 1% or more, the release's `tuning` and
#' print note it (the spreads are under-estimated: slightly for light tails,
#' by much more for a long tail, whose few largest rows can hold most of a
#' column's variance), and from 10% on say so in a WARNING. Bounds lopsided
#' about the private median (one k > 4 times as far from it as the
#' other), with 0.5% or more of the rows clamped, or that share times k^2 at
#' least 1, are diagnosed as a long tail (`long_tail`, `"noisy"`); a bound
#' within 0.75 private spreads of the median, which may clamp a large
#' share (two groups, a gap), is said too (`bound_inside`, `"noisy"`). When
#' n epsilon is too small for the bounds to find the tails (their first stage
#' capped at the quartiles, judged from the public n or the released noisy
#' count), the diagnostics say `"noisy"` (`bounds_capped`, see
#' [release_diagnostics()]). The bounds are searched in \eqn{\pm}1e6
#' ([dp_column_bounds()]'s default `range`): for data beyond it (amounts in
#' the billions), give public bounds, or choose the bounds with
#' `dp_column_bounds(range = )` and give them as `bounds`; a bound at the end
#' of that range is diagnosed (`at_range`, `"noisy"`; `beyond_range`,
#' `"mostly noise"`, where the private median lies near that end or outside
#' the column's bounds).
#'
#' **Clipping bounds.** With `clip` or `clip_mean` given (or from a chunk
#' reader, or a [second_moment()] object), the row-norm path runs: a bound not
#' given is chosen privately before its step, as a quantile of the row norms
#' ([dp_clip_bound()], the exponential mechanism over a data-free range), with
#' `bound_share` of epsilon; the release says so in `tuning`. Giving a bound
#' from public knowledge saves that share; public per-column ranges (`lower`,
#' `upper`, see below) are usually the better way to give it.
#'
#' On the row-norm path with Analyze Gauss and the analytic calibration (the
#' defaults), the two Gaussian steps and any private clip (an exponential
#' mechanism, \eqn{\epsilon_b^2/8}-zCDP) compose by zCDP: the steps share the
#' \eqn{\rho} whose conversion (Canonne, Kamath and Steinke 2020) is the
#' call's (epsilon, delta), less the clips', in proportion to
#' \eqn{s^2} and \eqn{(1 - s)^2} (s = `split`), which keeps their two noises
#' in the ratio basic composition gives them. At epsilon 1 and delta
#' \eqn{10^{-6}} each step's noise is 0.78 times that of basic composition
#' with both clips given and 0.64 times with both chosen privately (0.78-0.80
#' and 0.62-0.68 from epsilon 0.25 to 4). Each step runs as the analytic Gaussian at its own exact
#' guarantee, which the release states (`params$epsilon_mean`,
#' `params$epsilon_second`, above their basic shares) and the budget
#' records; `params$composition` says which accounting was used. With the
#' classic calibration or the other second mechanisms the guarantee is the
#' sum of the steps' (epsilon, delta) by basic composition. `clip_mean` bounds the raw
#' rows (for data with large means it must be about the norm of the mean
#' plus the spread), `clip` the centred rows (about the spread); rows beyond
#' either bound are shrunk, which biases the estimate but never the guarantee.
#'
#' **Public per-column bounds** (`lower` and `upper`, or `bounds`; see
#' [dpcov_arguments]). Users usually know the range of each column (physical
#' units, questionnaire scales) rather than a row norm. With bounds every
#' value is clamped to its column's public range and mapped to the unit box,
#' \eqn{z_j = (x_j - m_j)/w_j \in [-1/2, 1/2]} with \eqn{m_j} the midpoint
#' and \eqn{w_j} the width (a public map applied row by row, so it costs no
#' privacy). With the default `mechanism = "analyze_gauss"` the release
#' reads the box rows once: their column sums (and under add/remove the
#' count), the diagonal of their uncentred Gram \eqn{G = \sum_i z_i
#' z_i^T} and its off-diagonal, all of rows of norm at most \eqn{C =
#' \sqrt p/2}, are released by *one* Gaussian mechanism on the three stacked
#' blocks, each block's noise sd calibrated to its own sensitivity: the
#' sums' \eqn{\Delta_m} (\eqn{2C} replace-one, \eqn{\sqrt2 C} add/remove),
#' the diagonal's \eqn{\Delta_d = \sqrt p/4} (every squared box coordinate
#' lies in \[0, 1/4\]) and the strict upper triangle's \eqn{\Delta_o =
#' C^2} (replace-one; \eqn{C^2((1 - 1/p)/2)^{1/2}} add/remove). With
#' \eqn{\mu} the sensitivity-to-noise ratio at which the Gaussian mechanism
#' is (epsilon, delta)-DP, s = `split` the mean's share of \eqn{\mu^2} and a
#' third of the rest the diagonal's, \eqn{\sigma_m = \Delta_m/(\sqrt
#' s\,\mu)}, \eqn{\sigma_d = \Delta_d/(((1 - s)/3)^{1/2}\mu)} and
#' \eqn{\sigma_o = \Delta_o/((2(1 - s)/3)^{1/2}\mu)}. A neighbouring pair
#' moves the noise-scaled, stacked vector by at most \eqn{(\sum_b
#' \Delta_b^2/\sigma_b^2)^{1/2} = \mu}, so the triple is (epsilon,
#' delta)-DP as a whole: one Gaussian charge on a `budget`, not steps by
#' basic composition. The diagonal moves by about \eqn{1/\sqrt p} of what
#' the whole Gram does, so the variances (the largest entries of a
#' covariance, and what every correlation divides by) get much less noise
#' than one Frobenius calibration of the Gram would give them. The
#' covariance is \eqn{(\tilde G - \hat n\hat\mu\hat\mu^T + \sigma_m^2/\hat n\,
#' I)/\hat n} (the one-pass combination, below), with \eqn{\hat\mu} the
#' released mean clamped into the box. Centring the rows at \eqn{\hat\mu}
#' before the Gram (a second pass) would raise its row bound to
#' \eqn{(\sum_j (1/2 + |\hat\mu_j|)^2)^{1/2}}, up to \eqn{\sqrt p}, for
#' means near the box's edge. With `"threshold"` or `"wishart"` the two steps
#' of the row-norm path run on the box rows instead (basic composition; the
#' second on the rows centred at \eqn{\hat\mu} with that larger bound).
#' Nothing is clipped beyond the clamping, so there is no clipping bias, and a
#' column in large units (a price) no longer drowns the others as it does in
#' one L2 bound. The covariance is projected to the PSD cone on the box scale
#' and mapped back, \eqn{W \hat\Sigma_z W}, and the mean to \eqn{m +
#' W\hat\mu}; the results do not depend on the data's units (cents or dollars
#' give the same correlation). The shift to the box midpoint moves the
#' all-zero record, so under `"zero-out"` the sensitivities use the public
#' row z0 it becomes (\eqn{C + \min(|z_0|, C)} for the sums and
#' \eqn{((C^4 + \min(|z_0|, C)^4)/2)^{1/2}} for the off-diagonal). The
#' release records the bounds (`params$bounds`, `params$bounds_source`), the
#' shares (`params$split`, `params$diag_share`), \eqn{\mu}
#' (`params$mu_total`) and the noise sds (`sigma_mean`, `sigma_second` of
#' the off-diagonal, `sigma_second_diag`); its `clip` and the noise sds in
#' `params` are on the box scale. Bounds exclude `clip` and `clip_mean`, and
#' a [second_moment()] object (already clipped to one bound). With
#' `mechanism = "threshold"` the threshold applies on the box scale.
#'
#' **Default split with bounds.** When `split` is `NULL` (not given), bounds (public
#' or chosen privately) use 0.4 with `"analyze_gauss"` (the mean's
#' share of \eqn{\mu^2}; the diagonal then gets 0.2 and the off-diagonal
#' 0.4): on the data sets and public bounds of
#' `bench/peers.R` (diamonds, n = 53940, p = 7; penguins, n = 342, p = 4;
#' quakes, n = 1000, p = 5), epsilon in \{0.25, 1, 4\}, replace-one, 150
#' releases each (`bench/box-joint.R` in the package sources), the median
#' Frobenius error relative to the best share of each setting averaged
#' 1.16 for 0.2 and 0.3 and 1.15 for 0.4 and 0.5 (flat); 0.4 is the
#' share that the skewed, off-centre data (diamonds) needed: the mean's
#' noise enters the covariance through the centre's offset. With `"threshold"` or `"wishart"`
#' (two steps) they use 0.15 of epsilon and delta for the mean (in
#' `bench/box-split.R`, mixed-unit data, the error relative to the best split
#' of each setting averaged 1.12 for 0.1, 1.14 for 0.15, 1.15 for 0.2, 1.23
#' for 0.25 and 2.34 for 0.6).
#'
#' **Default split.** `split = 0.6` (60% of epsilon and delta for the mean)
#' had the smallest Frobenius error against [stats::cov()], relative to the
#' best split of each setting, in a simulation over n in \{1000, 10000,
#' 100000\}, p in \{5, 20\} and epsilon in \{0.5, 1, 2\} with means 50,
#' unit variances, `clip_mean` and `clip` the 0.99 quantiles of the raw and
#' centred row norms (a simulation kept with the package sources, not installed):
#' on average 1.17 times the best error, against 1.44 for 0.5 and 2.84 for
#' 0.25. The mean needs the larger share because `clip_mean` is far larger
#' than `clip`; for n near 1e5, 0.35 to 0.5 does slightly better.
#'
#' **One pass.** From a [second_moment()] object (computed in one pass over
#' data in memory, from a chunk reader, or inside a database) the rows cannot
#' be centred before clipping, so both steps use the raw rows clipped to the
#' statistics' bound B: the mean step releases the noisy column sums (as
#' above), the second mechanism releases the uncentred Gram \eqn{\tilde G},
#' and the covariance is \eqn{(\tilde G - \hat n\hat\mu\hat\mu^T +
#' \sigma_m^2/\hat n\, I)/\hat n} (the last term removes the bias of
#' \eqn{\hat\mu\hat\mu^T}). No bound is chosen privately, so `clip` and
#' `clip_mean` must be `NULL` (or equal B). The price: the second step's noise
#' scales with \eqn{B^2}, and B must cover the raw rows, mean included; for
#' data whose means are large against their spread, two passes (data or a
#' re-readable reader) are far more accurate. With `mechanism = "threshold"`
#' the uncentred second moment is thresholded, which suits data with means
#' near 0 only.
#'
#' The mean correction assumes few centred rows are clipped; when the private
#' mean is far off (small n, large means) every split gives a poor estimate.
#'
#' @param x A numeric matrix or data frame (rows are records, all columns
#'   numeric or logical, no missing values), or a *re-readable* chunk reader:
#'   a function of no arguments returning the next block of rows and `NULL`
#'   when done, which must start again from the first block after returning
#'   `NULL` (it is read once per step: once with public per-column bounds
#'   `lower`/`upper` and Analyze Gauss (one mechanism), twice with them and
#'   thresholding or Wishart (the mean, then the second moment at it); on
#'   the row-norm path twice, for the mean and for the
#'   second moment, and once more for each row-norm bound chosen privately,
#'   so four times with neither `clip` nor `clip_mean`; `params$passes` says
#'   how many);
#'   or a [second_moment()] object (see *One pass* below).
#' @param epsilon,delta The total privacy budget of the release (both steps).
#' @param clip Row-norm bound for the rows centred at the private mean, or
#'   `NULL` (default). On the row-norm path (a `clip_mean` or `clip` given, a
#'   reader, a database), `NULL` chooses it privately: `bound_factor` times
#'   the private `bound_quantile` quantile of the centred rows' norms, by
#'   [dp_clip_bound()] with `bound_share` of `epsilon`. With neither a clip
#'   nor bounds, data in memory take the per-column path instead (private
#'   per-column bounds, see *The default*).
#' @param clip_mean Row-norm bound for the raw rows in the mean step, or
#'   `NULL` (default): chosen privately in the same way from the raw rows.
#' @param bound_share Share of `epsilon` spent on each row-norm bound chosen
#'   privately (in (0, 0.5); pure epsilon-DP, no delta), or half the share of
#'   `epsilon` and of `delta` spent on the private per-column bounds of the
#'   default. `NULL` (default): 0.15 for a row-norm bound, 0.25 for the
#'   per-column bounds (half of epsilon and delta; about a quarter of the
#'   zCDP budget, see above). What remains goes to the release. On
#'   `bench/peers.R`'s data (`bench/default-share.R`: replace-one, 100
#'   releases per cell) the default's median Frobenius error over the best
#'   public-bounds peer's, with 0.15 and 0.25, was 57 and 2.5 for quakes (n =
#'   1000, p = 5) at epsilon 1 and 2.6 and 0.87 at 2, where the choices
#'   per column of the bounds step need the larger share to land on the data;
#'   3.2 and 0.87 for penguins (n = 342) at 4; 1.11 and 1.22 for diamonds (n
#'   = 53940, p = 7) at 1 and 1.04 and 1.14 at 4, where the bounds step needs
#'   little and the share is taken from the box step.
#'   With public bounds tightened privately (`tighten`), half the share of
#'   `epsilon` and `delta` spent on the tightening; `NULL`: 0.15.
#' @param bound_range The public range, `c(lower, upper)`, that a bound chosen
#'   privately is searched in (see [dp_clip_bound()]); fix it without the
#'   data. A narrower range helps when n epsilon is small.
#' @param budget A [dp_budget()] to charge, or `NULL`. Every step (the bounds
#'   chosen privately, the mean, the second moment) is charged before the
#'   data is read, all or none: the mean and the Gaussian second-moment
#'   mechanisms as Gaussian charges (zero-concentrated DP; on the box with
#'   `"analyze_gauss"` the two are one Gaussian charge), the bounds and the
#'   Wishart mechanism as pure (epsilon, delta) charges.
#' @param bound_quantile,bound_factor A bound chosen privately is
#'   `bound_factor` times the private `bound_quantile` quantile of the row
#'   norms; defaults 0.5 and 2: twice the median. A private quantile near the
#'   top (say 0.95) needs a large n epsilon: the few rows above it weigh
#'   little against the wide empty end of the data-free range, and with a few
#'   thousand rows the choice sometimes lands orders of magnitude above the
#'   data (measured on the row-norm path, through a reader: on
#'   `MASS::nlschools`, n = 2287, epsilon = 1, 100 releases each, the median
#'   relative error of the covariance was 0.070 with the 0.95 quantile, but
#'   14 of its 100 releases had errors above 1; 0.41 with the median and
#'   0.071 with twice the median). The median is robust at every n; twice it
#'   clips few rows of most data (about 2 percent of `nlschools`' centred
#'   rows).
#' @param mechanism `"analyze_gauss"`, `"threshold"` or `"wishart"`.
#' @param split Share of `epsilon` and of `delta` spent on the mean, in (0, 1)
#'   (on the row-norm path composed by zCDP, the two steps' \eqn{\rho} are
#'   in the ratio \eqn{s^2 : (1 - s)^2}). `NULL` (the default) chooses by
#'   path: with per-column bounds (public, private, or the \[0, 1\] coding
#'   of logical columns) 0.4 with `"analyze_gauss"`, where it is the mean's
#'   share of the squared sensitivity-to-noise ratio of one joint Gaussian
#'   mechanism, and 0.15 with the other mechanisms; with row-norm clips
#'   (`clip`, `clip_mean`, a reader or a [second_moment()] object) 0.6 (see
#'   *Default split*). Giving that value is the same as leaving it `NULL`.
#' @param lower,upper,bounds Public per-column bounds (see *Public per-column
#'   bounds* and [dpcov_arguments]): `lower` and `upper`, numbers of length 1
#'   or p, optionally named by column, or `bounds`, a data frame with the
#'   columns `lower` and `upper` only and the column names as row names, or a
#'   named list of `c(lower, upper)` pairs. Every column needs lower < upper,
#'   or NA for both where its bounds are not known: those columns' bounds are
#'   chosen privately as the default chooses them (on those columns alone,
#'   with the default's share of the budget; `params$public_bounds` records
#'   the ones given), and the release runs on the box of both; such bounds
#'   are not tightened. `NULL` (default): bounds chosen privately (see *The
#'   default*), or row-norm bounds when `clip` or `clip_mean` is given.
#' @param tighten Whether to tighten public bounds privately inside
#'   themselves (see [dpcov_arguments]): `FALSE` (default) never (the box of
#'   the public bounds as given), `TRUE` always (data in memory: a reader is
#'   refused, as the choice needs a column's values), `NULL` decides from public
#'   quantities only. Per column two exponential mechanisms over the public
#'   interval choose a lower and an upper point with about
#'   \eqn{2/\epsilon_q} rows beyond each (at most a quarter of the rows),
#'   each public bound itself one of the candidates (kept where many rows
#'   attain it: a rating scale's top answer, a 0/1 column's ones), with
#'   `2 * bound_share` of `epsilon` (and of `delta` where composing the
#'   choices by zCDP gives each more epsilon than basic composition; else
#'   none, and the release keeps that delta; `bound_share` 0.15 when not
#'   given); the box release runs on the tightened bounds and the two steps
#'   compose by zCDP as the default's do. Logical columns, and integer
#'   columns with public bounds \[0, 1\], keep their public bounds (no
#'   choice is spent on them; data of such columns only have nothing to
#'   tighten): a 0/1 column's two values are its ends, so there is nothing
#'   to tighten, and the budget is better spent on the release. A 0/1
#'   column stored as doubles is tightened like any other: it keeps a bound
#'   where more than about \eqn{7 \times 2/\epsilon_q} rows take that value,
#'   and fewer (a rare 0/1 feature) are clamped to a tightened bound inside
#'   (0, 1); store it as integer or logical. `NULL` tightens when n is public
#'   (`"replace-one"` or `"zero-out"`, the data in memory) and
#'   \eqn{2/\epsilon_q} is at most a twentieth of n; under `"add-remove"` n is
#'   private, so only `TRUE` tightens. Public bounds are often generous (a
#'   documented range, a physical limit); the noise scales with their widths,
#'   and the tightened box is nearer the data. On `bench/peers.R`'s data
#'   (`bench/tighten.R`) it cut the median error of the correlation, the
#'   principal angle and the regression slopes in every cell where the rule
#'   tightens, but on diamonds at epsilon 4 clamping the price's tail cost
#'   the covariance more than the narrower box saved (spectral error 1.31
#'   times the best peer's in `bench/peers.R`, 50 releases per cell, against
#'   0.91 without), so it is not the default here. [dp_lm()] and [dp_pca()],
#'   which estimate slopes and principal axes, tighten by default (`NULL`,
#'   with the target at most a twentieth of n). The tightened bounds are in
#'   `params$bounds`, the public ones in `params$public_bounds`. Given
#'   (any value) without public bounds it is refused: it decides nothing there.
#' @param box_weights How the box of per-column bounds (given, tightened or
#'   chosen privately, with Analyze Gauss) shares its noise among the
#'   columns. `"equal"` (default): every column's noise is proportional to
#'   its width, the same relative noise for every column, which correlations,
#'   principal axes of unit-scaled data and regression need. `"frobenius"`:
#'   column j's box coordinate is weighted by
#'   \eqn{g_j = \sqrt{w_j / \max w}}{g_j = sqrt(w_j / max w)} (w the widths), which
#'   minimises the expected Frobenius norm of the noise in the data's units
#'   (the sensitivities are the weighted box's, `params$box_weights`): a
#'   covariance in mixed units (dollars and carats) for its own sake gains
#'   1.6 to 5.6 times on that error, while the narrow columns get more
#'   relative noise and their correlations can drown
#'   (`bench/RESULTS.md`, "How the box shares its noise among columns").
#'   Only with `type = "covariance"`. `"equal"` stays the default because
#'   what it releases does not depend on the units: rescaling a column and
#'   its bounds (grams to kilograms) rescales its entries and leaves every
#'   relative error as it was, where under `"frobenius"` the units decide
#'   which columns get the noise. Given (either value) where there is no box
#'   (`clip`, `clip_mean`, a `dp_suffstat`, a reader without bounds) it is
#'   refused.
#' @param type `"covariance"` or `"correlation"`.
#' @param divisor `"n"` or `"n - 1"` (with the private or public n). Refused
#'   with `type = "correlation"`, which is the same with either.
#' @param neighbor `"add-remove"` (default; n private), `"replace-one"` or
#'   `"zero-out"` (n public).
#' @param calibration `"analytic"` or `"classic"` Gaussian calibration (see
#'   [gaussian_sigma()]), for the mean and the Gaussian second-moment steps.
#' @param ... Nothing: an argument dp_cov() does not take is an error (a
#'   misspelt name is refused, not ignored).
#' @return A `dp_release` of class `c("dp_cov", "dp_release")` with `scale`
#'   `"covariance"` or `"correlation"`, `centred = TRUE`, and `center`, the
#'   released private mean. `params` records the split, the clips (on the
#'   row-norm path `clip_mean`, the second one being the release's `clip`;
#'   on the box `clip_second`), `passes` (the passes over the data), both
#'   steps' epsilon, delta and noise sds (`epsilon_mean`, `delta_mean`,
#'   `epsilon_second`, `delta_second`; where the mean and the second moment
#'   are one Gaussian mechanism, on the box with Analyze Gauss, that
#'   mechanism's `epsilon_steps` and `delta_steps`), the correction subtracted and the
#'   second-moment mechanism's own parameters (`params$second_moment`).
#' @seealso [dp_as_cov()], [dp_scales].
#' @examples
#' set.seed(1)
#' x <- data.frame(a = rnorm(20000, 50), b = rnorm(20000, 50), c = rnorm(20000, 50))
#' r <- dp_cov(x, epsilon = 1, delta = 1e-6)   # bounds chosen privately
#' r
#' # bounds known in advance save their share of epsilon
#' r <- dp_cov(x, epsilon = 1, delta = 1e-6, clip = 4, clip_mean = 95)
#' r$center
#' # public per-column ranges, the way users know them
#' dp_cov(x, epsilon = 1, delta = 1e-6, lower = 40, upper = 60)$estimate
#' # known for some columns only: NA for the others, whose bounds are chosen privately
#' dp_cov(x, epsilon = 1, delta = 1e-6, lower = c(a = 40, b = NA, c = NA),
#'        upper = c(a = 60, b = NA, c = NA))$params$bounds
#' dp_cov(x, epsilon = 1, delta = 1e-6, clip = 4, clip_mean = 95, type = "correlation")$estimate
#' @references Balle, B. and Wang, Y.-X. (2018). Improving the Gaussian
#'   mechanism for differential privacy: analytical calibration and optimal
#'   denoising. *Proceedings of the 35th International Conference on Machine
#'   Learning (ICML)*, PMLR 80, 394-403.
#'
#'   Smith, A. (2011). Privacy-preserving statistical estimation with optimal
#'   convergence rates. *Proceedings of the 43rd ACM Symposium on Theory of
#'   Computing (STOC)*, 813-822.
#' @template ref-analyze-gauss
#' @template ref-sheffet
#' @export
dp_cov <- function(x, epsilon, delta, clip = NULL, clip_mean = NULL, mechanism = "analyze_gauss",
                   split = NULL, type = "covariance", divisor = "n", neighbor = "add-remove",
                   calibration = "analytic", bound_share = NULL, bound_quantile = 0.5,
                   bound_factor = 2, bound_range = c(1e-3, 1e6), budget = NULL,
                   lower = NULL, upper = NULL, bounds = NULL, tighten = FALSE, box_weights = "equal", ...) {
  refuse_unknown_args("dp_cov", ...)
  if (missing(x)) abort_missing("x")
  # (given explicitly, these name a box; without one they are refused)
  tighten_given <- !missing(tighten)
  weights_given <- !missing(box_weights)
  call <- match.call()
  # public per-column bounds: the box path (R/box.R), validated before anything is charged
  box <- check_bounds(lower, upper, bounds, partial = TRUE)
  check_bounds_exclusive(box, clip, clip_mean)
  # bounds known for some columns only (NA for the others): the others' are
  # chosen privately, as the default chooses all of them (`given`, aligned)
  given <- NULL
  if (isTRUE(box$partial)) {
    box <- partial_bounds(box, x)
    if (isTRUE(box$partial)) {
      # (every column NA: the default, labelled as such)
      if (!box$none_given) given <- box
      box <- NULL
    }
  }
  # data whose columns are all logical (schema: public) are bounded by their
  # coding: public bounds [0, 1], where private ones would spend their share
  # on nothing and could close on the more common value
  coded <- is.null(box) && is.null(given) && is.null(clip) && is.null(clip_mean) && all_logical_columns(x)
  if (coded) {
    # named as check_data_matrix() names the columns (a data frame's matrix
    # columns expanded: m.1, m.2)
    nm <- data_colnames(x)
    p <- data_ncol(x)
    box <- list(lower = stats::setNames(rep(0, p), nm), upper = stats::setNames(rep(1, p), nm), arg = "bounds")
  }
  if (!is.null(tighten)) tighten <- check_flag(tighten, "tighten")
  if (!is.null(given) && isTRUE(tighten)) {
    abort(paste0("`tighten` = TRUE tightens public bounds, and some of `%s` are NA (chosen privately); give every ",
                 "column's bounds to tighten them, or leave `tighten` = FALSE."), given$arg, .arg = "tighten")
  }
  if (coded && isTRUE(tighten)) {
    abort("`tighten` = TRUE: the columns of `x` are all logical, bounded by their coding [0, 1]; there is nothing to tighten.",
          .arg = "tighten")
  }
  mechanism <- check_choice(mechanism, c("analyze_gauss", "threshold", "wishart"), "mechanism")
  # the box with Analyze Gauss: one Gaussian mechanism on the mean and the Gram (dp_cov_box_joint())
  box_split <- if (mechanism == "analyze_gauss") box_joint_split else box_default_split
  type <- check_choice(type, c("covariance", "correlation"), "type")
  divisor_given <- !missing(divisor)
  divisor <- check_choice(divisor, c("n", "n - 1"), "divisor")
  if (divisor_given && identical(type, "correlation")) {
    abort("`divisor` applies to a covariance; a correlation is the same with either.", .arg = "divisor")
  }
  neighbor <- check_choice(neighbor, dp_neighbors, "neighbor")
  # bounds released by dp_column_bounds(): composed into the guarantee
  bounds_g <- bounds_release_guarantee(bounds, neighbor)
  if (mechanism == "threshold") check_threshold_notion(neighbor)
  calibration <- check_choice(calibration, c("analytic", "classic"), "calibration")
  epsilon <- check_epsilon(epsilon)
  delta <- check_delta(delta)
  refuse_void_bounds_budget(budget, bounds_g, delta, neighbor)
  # dp_cov() has no experimental clip = Inf mode
  why <- "dp_cov() always clips, as its guarantee needs"
  if (!is.null(clip)) clip <- check_finite_clip(clip, "clip", why)
  if (!is.null(clip_mean)) clip_mean <- check_finite_clip(clip_mean, "clip_mean", why)
  one_pass <- inherits(x, "dp_suffstat")
  if (one_pass) x <- check_suffstat(x)  # a hand-made one too, before its fields are read
  # under add/remove n is private: a release must not succeed on a data set and
  # fail on its neighbour with one row fewer, so any n >= 0 is released
  min_rows <- if (neighbor == "add-remove") 0L else 2L
  if (one_pass && !is.null(box)) {
    abort("`x` is a dp_suffstat, whose rows were clipped to one L2 bound already; per-column bounds need the data (or a reader).",
          .arg = "x")
  }
  if (one_pass && !is.null(x$bounds)) {
    abort("`x` holds statistics of rows on the uncentred box of public bounds; dp_cov() centres on its own box: give it the data (or a reader) with `lower`/`upper` or `bounds`.",
          .arg = "x")
  }
  if (one_pass) {
    # the statistics fix the one bound both steps use
    x <- dp_cov_suffstat(x, clip, clip_mean, min_rows)
    clip <- clip_mean <- x$clip
  }
  # no bounds of any kind (and the data in memory): per-column bounds are
  # chosen privately (dp_column_bounds()), then the box path runs with them
  private_box <- is.null(box) && is.null(clip) && is.null(clip_mean) && !one_pass && !is.function(x)
  # the default split depends on the path (see *Default split*): bounds,
  # public or private, take box_split; the row-norm clips 0.6
  split_given <- !is.null(split)
  if (is.null(split)) split <- if (private_box || !is.null(box)) box_split else 0.6
  if (isTRUE(tighten) && is.null(box)) {
    abort("`tighten` = TRUE tightens public bounds: give `lower`/`upper` or `bounds`.", .arg = "tighten")
  }
  # (FALSE and NULL too: without public bounds there is nothing they decide)
  if (tighten_given && is.null(box) && is.null(given)) refuse_tighten_without_bounds(tighten)
  if (isTRUE(tighten) && is.function(x)) {
    abort("`tighten` = TRUE needs the data in memory (a matrix or data frame), not a reader.", .arg = "tighten")
  }
  joint <- (private_box || !is.null(box)) && mechanism == "analyze_gauss"
  box_weights <- check_choice(box_weights, c("equal", "frobenius"), "box_weights")
  if (weights_given && is.null(box) && !private_box) {
    # ("equal" given explicitly too: without a box it decides nothing)
    abort(paste0("`box_weights` = \"%s\" is about the per-column box (bounds given, or chosen privately when ",
                 "neither bounds nor clips are), and with `clip`, `clip_mean`, a dp_suffstat or a reader without ",
                 "bounds there is no box; leave `box_weights` out."), box_weights, .arg = "box_weights")
  }
  if (box_weights != "equal") {
    if (!joint) {
      abort(paste0("`box_weights` = \"frobenius\" shares the noise of the per-column box (bounds given, or chosen ",
                   "privately when neither bounds nor clips are) among its columns, with mechanism = ",
                   "\"analyze_gauss\"; %s."),
            if (mechanism != "analyze_gauss") sprintf("mechanism = \"%s\" has no such box", mechanism) else
              "with `clip`, `clip_mean`, a dp_suffstat or a reader without bounds there is no box", .arg = "box_weights")
    }
    if (type != "covariance") {
      abort(paste0("`box_weights` = \"frobenius\" gives the narrow columns more relative noise, which a correlation ",
                   "divides by; use it with type = \"covariance\"."), .arg = "box_weights")
    }
    if (!is.null(box)) box$weights <- box_weights
  }
  auto_clip <- is.null(clip) && is.null(box) && !private_box
  auto_mean <- is.null(clip_mean) && is.null(box) && !private_box
  split <- check_number(split, "split", lower = 0, upper = 1)
  # the per-column bounds get more than a row-norm bound: under the zCDP
  # composition their half of epsilon is about a quarter of the budget's rho
  share_given <- !is.null(bound_share)
  if (!share_given) bound_share <- if (private_box) column_bounds_share else 0.15
  bound_share <- check_number(bound_share, "bound_share", lower = 0, upper = 0.5)
  # public bounds tightened privately (TRUE, or by the automatic rule from
  # public quantities: n public and large enough against 1 / epsilon)
  tight <- FALSE
  if (!is.null(box) && !coded && !one_pass && !is.function(x) && !isFALSE(tighten)) {
    # logical and integer columns keep their public bounds: no choice is spent on them
    n_tight <- sum(tightened_columns(x, bounds = box))
    if (n_tight == 0L && isTRUE(tighten)) {
      abort("`tighten` = TRUE: the columns of `x` are all logical (or integer in bounds [0, 1]), which keep their public bounds; there is nothing to tighten.",
            .arg = "tighten")
    }
    if (n_tight > 0L) {
      if (!share_given) bound_share <- tighten_share
      cols_t <- tighten_epsilon(epsilon, delta, bound_share, n_tight)
      tight <- tighten_decision(tighten, if (neighbor == "add-remove") NA_real_ else public_nrow(x),
                                cols_t$epsilon_q)
    }
  }
  chosen <- private_box || tight
  # a tuning argument of a step this call does not run is refused, not
  # ignored: the row-norm clips' (chosen privately only where `clip` or
  # `clip_mean` is NULL without bounds) and the share of the private choices
  # (of bounds or clips; none where the bounds are kept as given, or both
  # clips are given), decided from public arguments and shapes only
  row_norm_auto <- auto_clip || auto_mean
  unused <- c(bound_quantile = !missing(bound_quantile) && !row_norm_auto,
              bound_factor = !missing(bound_factor) && !row_norm_auto,
              bound_range = !missing(bound_range) && !row_norm_auto,
              bound_share = share_given && !row_norm_auto && !chosen)
  if (any(unused)) {
    arg <- names(unused)[unused][1L]
    abort(paste0("`%s` tunes a step this call does not run: %s; drop it."), arg,
          if (arg == "bound_share") {
            paste0("nothing is chosen privately here (the bounds are kept as given: tighten = FALSE, or the automatic ",
                   "rule does not tighten at this n and epsilon, or they are the logical columns' coding; or both ",
                   "`clip` and `clip_mean` are given)")
          } else {
            "the row-norm clips are chosen privately only where `clip` or `clip_mean` is NULL and no bounds are given or chosen"
          }, .arg = arg)
  }
  bound_quantile <- check_number(bound_quantile, "bound_quantile", lower = 0, upper = 1)
  bound_factor <- check_number(bound_factor, "bound_factor", lower = 0, upper = 1e6)
  if (!is.numeric(bound_range) || is.object(bound_range) || length(bound_range) != 2L || anyNA(bound_range) ||
      !all(is.finite(bound_range)) || bound_range[1] <= 0 || bound_range[1] >= bound_range[2]) {
    abort("`bound_range` must be two finite numbers 0 < lower < upper (a public range of row norms).",
          .arg = "bound_range")
  }
  # a bound chosen privately lies in bound_factor * bound_range: it must be a
  # valid clip whatever the data, checked before any charge (a refusal of the
  # chosen value would depend on the data and quote it)
  if (auto_mean || auto_clip) {
    if (bound_range[1] < dp_limits$clip[1] || bound_range[2] > dp_limits$clip[2]) {
      abort("`bound_range` must lie in [%s, %s]; got [%s, %s].", format(dp_limits$clip[1]), format(dp_limits$clip[2]),
            format(bound_range[1]), format(bound_range[2]), .arg = "bound_range")
    }
    if (bound_factor * bound_range[1] < dp_limits$clip[1] || bound_factor * bound_range[2] > dp_limits$clip[2]) {
      abort(paste0("`bound_factor` * `bound_range` (the values a bound chosen privately can take) must lie in ",
                   "[%s, %s]; got [%s, %s]."), format(dp_limits$clip[1]), format(dp_limits$clip[2]),
            format(bound_factor * bound_range[1]), format(bound_factor * bound_range[2]), .arg = "bound_factor")
    }
  }
  # each bound not given is chosen privately with bound_share of epsilon
  # (pure epsilon-DP: no delta); the rest is split between the two steps
  eps_bound <- bound_share * epsilon
  # the per-column bounds take 2 * bound_share of epsilon and of delta (the
  # delta only where their zCDP composition uses it; see dp_column_bounds())
  # (logical columns among them are bounded by their coding: no choice is spent on them)
  cols <- if (private_box) column_bounds_epsilon(2 * bound_share * epsilon, 2 * bound_share * delta,
                                                 max(1L, sum(!fixed_bounds_flags(x, given))),
                                                 noisy_count = neighbor == "add-remove") else if (tight) cols_t else list(delta = 0)
  eps_cols <- if (chosen) 2 * bound_share * epsilon else 0
  eps_rest <- epsilon - eps_cols - (auto_clip + auto_mean) * eps_bound
  delta_rest <- delta - cols$delta
  eps_mean <- split * eps_rest
  delta_mean <- split * delta_rest
  eps_second <- eps_rest - eps_mean
  delta_second <- delta_rest - delta_mean
  if (joint && calibration == "classic" && eps_rest >= 1) {
    abort("the classic Gaussian calibration is proven only for epsilon < 1 (the mean and the second moment's %s); use calibration = \"analytic\".",
          format(eps_rest), .arg = "calibration")
  }
  if (!joint && calibration == "classic" && (eps_mean >= 1 || eps_second >= 1)) {
    abort("the classic Gaussian calibration is proven only for epsilon < 1 in each step (mean: %s, second moment: %s); use calibration = \"analytic\".",
          format(eps_mean), format(eps_second), .arg = "calibration")
  }
  # the joint mechanism: a share near 0 or 1 gives a block noise whose square overflows
  if (joint && (split < 1e-12 || split > 1 - 1e-12)) {
    abort("`split` = %s leaves the mean or the second moment almost none of the joint mechanism; choose a split nearer 0.5.",
          format(split), .arg = "split")
  }
  # a share the user gave is named; a default one leaves `epsilon` to blame
  if (!joint && (eps_mean < dp_limits$epsilon[1] || eps_second < dp_limits$epsilon[1])) {
    if (split_given) {
      abort("`split` = %s leaves a step with epsilon below %s; choose a split nearer 0.5.", format(split),
            format(dp_limits$epsilon[1]), .arg = "split")
    }
    abort("`epsilon` = %s is too small for this release: with the default split %s a step gets epsilon below %s; give more epsilon.",
          format(epsilon), format(split), format(dp_limits$epsilon[1]), .arg = "epsilon")
  }
  check_step_deltas(delta, if (joint) delta_rest else c(delta_mean, delta_second))
  if ((auto_clip || auto_mean || chosen) && eps_bound < dp_limits$epsilon[1]) {
    if (share_given) {
      abort("`bound_share` = %s leaves the private choice of a bound epsilon below %s.", format(bound_share),
            format(dp_limits$epsilon[1]), .arg = "bound_share")
    }
    abort("`epsilon` = %s is too small for this release: the private choice of a bound (the default bound_share %s) gets epsilon below %s; give more epsilon.",
          format(epsilon), format(bound_share), format(dp_limits$epsilon[1]), .arg = "epsilon")
  }
  if (mechanism == "wishart") {
    if (eps_second >= 1) {
      abort("`mechanism` = \"wishart\" needs the second moment's share of epsilon, (1 - split) * epsilon = %s, below 1 (Sheffet, Theorem 4.1); lower `epsilon` or use \"analyze_gauss\".",
            format(eps_second), .arg = "epsilon")
    }
    if (delta_second >= 1 / 6) {
      abort("`mechanism` = \"wishart\" needs the second moment's share of delta, %s, below 1/6 (Sheffet's proof of Theorem 4.1, Theorem B.3); lower `delta` or use \"analyze_gauss\".",
            format(delta_second), .arg = "delta")
    }
  }
  # the two Gaussian steps on clipped rows (no box: a reader, statistics,
  # clips given): composed by zCDP with the private clips' exponential
  # mechanisms when that gives both less noise than basic composition; the
  # steps then run at their own exact guarantees (composed_gaussian_steps())
  steps_z <- NULL
  if (!joint && mechanism == "analyze_gauss") {
    steps_z <- composed_gaussian_steps(epsilon, delta, c(eps_mean, eps_second), c(delta_mean, delta_second),
                                       (auto_mean + auto_clip) * em_zcdp_rho(eps_bound), c(split, 1 - split)^2,
                                       calibration)
    if (steps_z$composition == "zCDP") {
      eps_mean <- steps_z$epsilon[1]
      eps_second <- steps_z$epsilon[2]
    } else {
      steps_z <- NULL
    }
  }
  # every step is charged before the data is read, all or nothing
  steps <- c("private column bounds"[private_box], "public bounds tightened privately"[tight],
             "private clip_mean"[auto_mean], "private clip"[auto_clip],
             "dp_cov mean", paste("dp_cov second moment:", mechanism))
  ratio <- function(e, d) noise_sigma(1, e, d, calibration)
  n_bounds <- chosen + auto_mean + auto_clip
  if (joint) {
    # the mean and the second moment are one Gaussian mechanism: one charge
    steps <- c(steps[seq_len(n_bounds)], "dp_cov mean and second moment (one Gaussian mechanism): analyze_gauss")
  }
  n_steps <- if (joint) 1L else 2L
  # after private column bounds, the one Gaussian mechanism takes what the
  # bounds leave of the budget, by the better of basic and zCDP composition
  gauss <- if (joint && chosen) composed_gaussian(epsilon, delta, eps_cols, cols$delta, cols$rho, calibration)
  step_eps <- if (!is.null(gauss)) gauss$epsilon else if (joint) eps_rest else c(eps_mean, eps_second)
  step_delta <- if (!is.null(gauss)) gauss$delta else if (joint) delta_rest else c(delta_mean, delta_second)
  step_ratio <- if (!is.null(gauss)) gauss$ratio else if (joint) ratio(eps_rest, delta_rest) else
    c(ratio(eps_mean, delta_mean), if (mechanism == "wishart") NA_real_ else ratio(eps_second, delta_second))
  step_notion <- if (joint) neighbor else c(neighbor, second_step_notion(mechanism, neighbor))
  check_data_colnames(x)  # they name the release's columns and the bounds (schema: before the charge)
  # the width the input's shape makes public (a matrix's, statistics' or a
  # package reader's columns): the matrices' size, and thresholding's p >= 2,
  # are refused before the charge (after it, private bounds have drawn their
  # noise and it stands)
  p_public <- check_release_width(x)
  if (!is.na(p_public)) check_threshold_p(mechanism, p_public)
  # a package reader's columns are known before it is read: its shape checks come before the charge
  reader_cols <- reader_columns(x)
  if (!is.null(reader_cols)) {
    check_unique_colnames(reader_cols)  # they name the release's columns and the bounds
    if (!is.null(box)) {
      align_bounds(box, reader_cols, length(reader_cols))
    }
  }
  charge <- budget_charge(budget, steps,
                          c(eps_cols[chosen], rep(eps_bound, auto_mean + auto_clip), step_eps),
                          c(cols$delta[chosen], rep(0, auto_mean + auto_clip), step_delta),
                          sigma_ratio = c(rep(NA_real_, n_bounds), step_ratio),
                          neighbor = c(rep(if (private_box) column_bounds_notion(neighbor) else "any", chosen),
                                       rep("any", auto_mean + auto_clip), step_notion),
                          rho = c(cols$rho[chosen],
                                  # (exponential mechanisms: epsilon^2/8-zCDP however the call composes its steps)
                                  rep(em_zcdp_rho(eps_bound), auto_mean + auto_clip),
                                  rep(NA_real_, n_steps)),
                          bounds = bounds_g)
  # a failure on the input's shape (or a reader's) withdraws the charges: nothing is released
  if (tight) {
    return(finish_bounds_release(with_refund(budget, charge,
                       dp_cov_tightened_box(x, box, cols, eps_cols, min_rows, epsilon, delta, eps_mean, delta_mean,
                                            eps_second, delta_second, split, mechanism, type, divisor, neighbor,
                                            calibration, charge, call, gauss)), bounds_g, logical_column_names(x)))
  }
  if (private_box) {
    return(with_refund(budget, charge,
                       dp_cov_private_box(x, cols, eps_cols, min_rows, epsilon, delta, eps_mean, delta_mean,
                                          eps_second, delta_second, split, mechanism, type, divisor, neighbor,
                                          calibration, charge, call, gauss, box_weights = box_weights,
                                          given = given)))
  }
  if (coded) {
    # judged once it knows its columns are two-valued by their coding
    rel <- muffle_noise_warnings(with_refund(budget, charge,
      dp_cov_box(x, box, epsilon, delta, eps_mean, delta_mean, eps_second, delta_second, split,
                 mechanism, type, divisor, neighbor, calibration, charge, call, min_rows)))
    rel$params$coded_columns <- release_colnames(rel)
    return(finish_diagnostics(rel))
  }
  if (!is.null(box)) {
    return(finish_bounds_release(with_refund(budget, charge,
                       dp_cov_box(x, box, epsilon, delta, eps_mean, delta_mean, eps_second, delta_second, split,
                                  mechanism, type, divisor, neighbor, calibration, charge, call, min_rows)), bounds_g,
                       logical_column_names(x)))
  }
  if (one_pass) {
    return(with_refund(budget, charge,
                       dp_cov_one_pass(x, epsilon, delta, eps_mean, delta_mean, eps_second, delta_second,
                                       mechanism, type, divisor, neighbor, calibration, charge, call,
                                       split = split, gauss = steps_z)))
  }
  with_refund(budget, charge, {
    src <- dp_cov_source(x, min_rows)
    if (is.null(src$reader)) check_threshold_p(mechanism, src$p)

    # step 0 (only without `clip_mean`): a private quantile of the raw row norms
    if (auto_mean) {
      clip_mean <- bound_factor * dp_clip_bound(if (is.null(src$reader)) src$X else src$reader, eps_bound,
                                                quantile = bound_quantile, lower = bound_range[1],
                                                upper = bound_range[2], neighbor = neighbor,
                                                count_share = 0)$bound
    }
    # step 1 (a budget charge for (eps_mean, delta_mean) can precede this call);
    # a reader's shape is learnt in this pass
    mean_step <- dp_cov_mean_step(src, clip_mean, neighbor, eps_mean, delta_mean, calibration, min_rows)
    src[c("n", "p", "colnames")] <- mean_step[c("n", "p", "colnames")]
    check_threshold_p(mechanism, src$p)
    # step 1b (only without `clip`): a private quantile of the norms of the rows
    # centred at the released (hence public) mean
    if (auto_clip) {
      clip <- bound_factor * dp_clip_bound(centred_source(src, mean_step$center), eps_bound,
                                           quantile = bound_quantile, lower = bound_range[1],
                                           upper = bound_range[2], neighbor = neighbor,
                                           count_share = 0)$bound
    }
    # step 2 (a charge for (eps_second, delta_second) can precede this call)
    second <- dp_cov_second_step(src, mean_step$center, clip, mechanism, neighbor, eps_second,
                                 delta_second, calibration)

    n_public <- neighbor != "add-remove" || second$n_public
    n_hat <- if (n_public) src$n else max(2, mean_step$n_noisy)
    # centring at the released mean instead of the clipped rows' mean adds
    # n (xbar - mu)(xbar - mu)', of expectation sigma_m^2 / n I
    correction <- mean_step$sigma^2 / n_hat
    S <- second$sum - diag(correction, src$p)
    params <- list(split = split, epsilon_mean = eps_mean, delta_mean = delta_mean,
                   epsilon_second = eps_second, delta_second = delta_second, clip_mean = clip_mean,
                   sigma_mean = mean_step$sigma, second_mechanism = mechanism,
                   sigma_second = second$sigma, mean_correction = correction, divisor = divisor,
                   calibration = calibration, passes = 2 + auto_mean + auto_clip,
                   composition = if (is.null(steps_z)) "basic" else "zCDP")
    dp_cov_finish(S, n_hat, mean_step, second, src$colnames, src$n, src$p, params, type, divisor, epsilon,
                  delta, neighbor, clip, n_public, charge, call,
                  mechanism_text = sprintf("Gaussian mean, then %s on the rows centred at it", second$mechanism),
                  tuning = bound_tuning(auto_mean, auto_clip, eps_bound, bound_quantile, bound_factor,
                                        clip_mean, clip),
                  guarantee = dp_cov_guarantee_text(eps_mean, delta_mean, eps_second, delta_second, neighbor,
                                                    clip_mean, clip, n_public,
                                                    eps_bounds = (auto_mean + auto_clip) * eps_bound,
                                                    gauss = steps_z, epsilon = epsilon, delta = delta))
  })
}

# Both routes end here: S estimates the centred sum of squares; it is divided
# by n (or n - 1), projected to the PSD cone, optionally scaled to a
# correlation, and released with the private mean.
dp_cov_finish <- function(S, n_hat, mean_step, second, nm, n, p, params, type, divisor, epsilon, delta,
                          neighbor, clip, n_public, charge, call, mechanism_text, tuning, guarantee,
                          unmap = NULL) {
  pre <- symmetric_part(S) / (if (divisor == "n") n_hat else max(1, n_hat - 1))
  cov <- psd_project(pre)$matrix
  # how much the projection lifted each variance (post-processing of the
  # noisy matrix): the diagnostics judge the value before it
  lift <- pmax(0, diag(cov) - diag(pre))
  # public bounds: projected on the box scale (where the noise is isotropic), then mapped back
  if (!is.null(unmap)) {
    cov <- unmap(cov)
    lift <- diag(unmap(diag(lift, p)))
  }
  params$psd_shift <- stats::setNames(lift, nm)
  if (!n_public) params$n_noisy <- mean_step$n_noisy
  if (!is.null(charge)) params$budget_charge <- charge
  params$second_moment <- second$params
  dimnames(cov) <- if (is.null(nm)) NULL else list(nm, nm)
  center <- mean_step$center
  names(center) <- nm
  # the private mean is a release component, after the estimate
  release <- function() {
    new_dp_release(cov, "cov", sprintf("Private %s: %s", type, mechanism_text),
                   epsilon, delta, neighbor, clip, n, p, n_public = n_public, scale = "covariance",
                   centred = TRUE, params = params, tuning = tuning, guarantee = guarantee, call = call,
                   components = list(center = center))
  }
  if (type == "covariance") return(release())
  # the correlation is judged (and warns) on the covariance it scales
  finish_diagnostics(cov_release_to_cor(muffle_noise_warnings(release())))
}

#' A covariance release scaled to a correlation (post-processing). The
#' correlation has no scale on which to judge the noise, so the checks of the
#' noisy covariance before scaling (the noise norm, each variance's noise
#' against its value, the centring's) are kept in
#' `params$covariance_diagnostics`, which release_diagnostics() reads: a
#' variable whose variance is within its noise has correlations of noise.
#' @noRd
cov_release_to_cor <- function(rel) {
  d <- diagnose_release(check_release(rel))
  # the correlations' noise sd, about the covariance's over sqrt(c_ii c_jj)
  # (post-processing), for dp_pca()'s component checks
  v <- sqrt(pmax(0, diag(rel$estimate)))
  on_cor <- function(sd) {
    if (is.null(sd)) return(NULL)
    sd <- sd / tcrossprod(v)
    sd[!is.finite(sd)] <- Inf
    diag(sd) <- 0
    sd
  }
  sd <- on_cor(release_noise_sd(rel))
  if (!is.null(sd)) rel$params$correlation_noise_sd <- sd
  # a thresholded covariance's zeroed entries are not exact 0s: dp_pca()
  # counts them at their error bound (release_noise_sd(zeroed = "bound"))
  bound <- on_cor(release_noise_sd(rel, zeroed = "bound"))
  if (!is.null(bound) && !identical(bound, sd)) rel$params$correlation_bound_sd <- bound
  cc <- cov_to_cor(rel$estimate)
  est <- cc$matrix
  dimnames(est) <- dimnames(rel$estimate)
  rel$estimate <- est
  rel$scale <- "correlation"
  rel$params$zero_variance <- cc$zero_variance
  rel$params$covariance_diagnostics <- unclass(d)[covariance_checks]
  rel
}

# The checks of a covariance that its correlation keeps (cov_release_to_cor()).
covariance_checks <- c("noise_frobenius", "signal_frobenius", "noise_to_signal", "variance_noise", "mean_noise_sd",
                       "mean_noise", "at_bounds", "mean_clip_fill", "mean_clip_excess")

# A dp_suffstat given to dp_cov(): it must carry the column sums, and its
# clip bound (the only one both steps can use) must be finite and agree with
# any bound the caller gives.
dp_cov_suffstat <- function(s, clip, clip_mean, min_rows = 2L) {
  s <- check_suffstat(s)
  if (is.null(s$sum)) {
    abort(paste0("`x` is a dp_suffstat without column sums (`sum`), so it cannot be centred privately; ",
                 "compute it with second_moment(), which records them, or pass the data."), .arg = "x")
  }
  if (!is.finite(s$clip)) {
    abort("`x` is a dp_suffstat computed with clip = Inf; dp_cov() needs rows clipped to a finite bound.",
          .arg = "x")
  }
  if (s$n < min_rows) abort("dp_cov() needs at least 2 rows when n is public; `x` has %s.", format(s$n), .arg = "x")
  for (arg in c("clip", "clip_mean")) {
    v <- if (arg == "clip") clip else clip_mean
    if (!is.null(v) && !isTRUE(all.equal(v, s$clip))) {
      abort(paste0("`%s` = %s differs from the bound %s that the sufficient statistics `x` were clipped to; ",
                   "from a dp_suffstat both steps use that bound: leave `%s` NULL."),
            arg, format(v), format(s$clip), arg, .arg = arg)
    }
  }
  s
}

# Which columns of `x` (as check_data_matrix() takes it: a data frame's
# matrix columns expanded, a vector one column) are of the type `is_type`
# tests (its schema: public): logical_columns(), integer_columns().
typed_columns <- function(x, is_type) {
  if (!is.data.frame(x)) {
    return(rep(is_type(x) && !is.object(x) && (is.null(dim(x)) || is.matrix(x)), NCOL(x)))
  }
  unlist(lapply(x, function(col) {
    if (is.data.frame(col)) typed_columns(col, is_type) else rep(is_type(col) && !is.object(col), NCOL(col))
  }), use.names = FALSE)
}
logical_columns <- function(x) typed_columns(x, is.logical)
integer_columns <- function(x) typed_columns(x, is.integer)

# logical_columns() as one flag per column of check_data_matrix(x), `p` of
# them: none flagged where the schema does not line up with them.
coded_flags <- function(x, p = public_ncol(x)) {
  lc <- logical_columns(x)
  if (length(lc) != p) rep(FALSE, p) else lc
}

# `tighten` given (TRUE, FALSE or NULL) with no public bounds, in dp_cov()
# and dp_lm(): it decides nothing there, so it is refused, not ignored.
refuse_tighten_without_bounds <- function(tighten) {
  abort(paste0("`tighten` = %s is about public bounds, and none are given: give `lower`/`upper` or `bounds`, ",
               "or leave `tighten` at its default."), if (is.null(tighten)) "NULL" else tighten, .arg = "tighten")
}

# The columns of `x` whose public bounds a tightening moves: all but the
# logical ones (schema), which keep theirs, as dp_lm() keeps its factors' and
# dp_column_bounds() codes them, and the integer ones with public bounds
# [0, 1] (`bounds`, public): a 0/1 code, whose two atoms are the ends, so
# there is nothing to tighten; before the public bounds were candidates of
# the tightening (tighten_atom_share) a tightened end landed anywhere
# between (smoke's bounds [0.47, 0.51], its slope 41 for 2, graded "ok"),
# and a rare code still would.
tightened_columns <- function(x, p = public_ncol(x), bounds = NULL) {
  kept <- logical_columns(x)
  if (length(kept) != p) return(rep(TRUE, p))
  zero_one <- if (is.null(bounds)) NULL else tryCatch({
    a <- align_bounds(bounds, data_colnames(x), p)
    a$lower == 0 & a$upper == 1
  }, dpcov_error = function(e) NULL)
  if (length(zero_one) == p) kept <- kept | (integer_columns(x) & zero_one)
  !kept
}

# TRUE for a data frame whose columns, as as.matrix() expands them, are all
# logical (matrix columns included), a logical matrix with at least one
# column, or a logical vector (a public schema).
all_logical_columns <- function(x) {
  lc <- logical_columns(x)
  length(lc) > 0L && all(lc)
}

# The notion the second step's charge holds under: Sheffet's Wishart
# mechanism's own (sheffet_notions), the others the release's (thresholding
# refuses add/remove).
second_step_notion <- function(mechanism, neighbor) {
  if (mechanism == "wishart") sheffet_notions[["wishart_noise"]] else neighbor
}

# Thresholding needs p >= 2 (its threshold grows with log p); a reader's p is
# known only after the mean step's pass.
check_threshold_p <- function(mechanism, p) {
  if (mechanism == "threshold" && p < 2L) {
    abort("`mechanism` = \"threshold\" needs p >= 2 columns; `x` has %d.", as.integer(p), .arg = "mechanism")
  }
}

#' dp_cov() from a dp_suffstat, in one pass over the data: the private mean
#' from the clipped rows' column sums, the second mechanism on their
#' uncentred Gram, and the covariance \eqn{(\tilde G - \hat n \hat\mu
#' \hat\mu^T + \sigma_m^2/\hat n\, I)/\hat n}: \eqn{\hat n \hat\mu \hat\mu^T}
#' over-estimates \eqn{n \bar x \bar x^T} by \eqn{\sigma_m^2/n\, I} in
#' expectation. Both steps clip the raw rows to the same bound.
#' @noRd
dp_cov_one_pass <- function(s, epsilon, delta, eps_mean, delta_mean, eps_second, delta_second, mechanism,
                            type, divisor, neighbor, calibration, charge, call,
                            split = eps_mean / (eps_mean + eps_second), gauss = NULL) {
  check_threshold_p(mechanism, s$p)
  mean_step <- noisy_mean(s$sum, s$n, s$clip,
                          # (a zeroed record enters the sums as its transformed row, as in the Gram)
                          mean_step_sigma(s$clip, neighbor, eps_mean, delta_mean, calibration,
                                          zero_row = suffstat_zero_row(s, neighbor)),
                          neighbor == "add-remove")
  second <- second_moment_step(s, mechanism, neighbor, eps_second, delta_second, calibration)
  n_public <- neighbor != "add-remove" || second$n_public
  n_hat <- if (n_public) s$n else max(2, mean_step$n_noisy)
  S <- uncentred_to_centred(second$sum, mean_step$center, n_hat, mean_step$sigma)
  correction <- attr(S, "correction")
  params <- list(split = split, epsilon_mean = eps_mean,
                 delta_mean = delta_mean, epsilon_second = eps_second, delta_second = delta_second,
                 clip_mean = s$clip, sigma_mean = mean_step$sigma, second_mechanism = mechanism,
                 sigma_second = second$sigma, mean_correction = correction, divisor = divisor,
                 calibration = calibration, passes = 1, composition = if (is.null(gauss)) "basic" else "zCDP")
  dp_cov_finish(S, n_hat, mean_step, second, s$colnames, s$n, s$p, params, type, divisor, epsilon,
                delta, neighbor, s$clip, n_public, charge, call,
                mechanism_text = sprintf(paste0("Gaussian mean and %s on the uncentred rows, from sufficient ",
                                                "statistics (one pass)"), second$mechanism),
                tuning = tuning_record("none"),
                guarantee = dp_cov_guarantee_text(eps_mean, delta_mean, eps_second, delta_second, neighbor,
                                                  s$clip, s$clip, n_public, one_pass = TRUE, gauss = gauss,
                                                  epsilon = epsilon, delta = delta))
}

#' One pass: the centred sum from a noisy uncentred Gram `gram_sum` and the
#' released mean `center` (noise sd `sigma_mean` on the sums): \eqn{\tilde G -
#' \hat n \hat\mu \hat\mu^T + \sigma_m^2/\hat n\, I}, since \eqn{\hat n
#' \hat\mu\hat\mu^T} over-estimates \eqn{n \bar x \bar x^T} by
#' \eqn{\sigma_m^2/n\, I} in expectation. The correction is an attribute.
#' @noRd
uncentred_to_centred <- function(gram_sum, center, n_hat, sigma_mean) {
  correction <- sigma_mean^2 / n_hat
  S <- gram_sum - n_hat * tcrossprod(center) + diag(correction, length(center))
  structure(S, correction = correction)
}

# How the bounds were chosen: given (public), or by dp_clip_bound() (private,
# inside the stated budget).
bound_tuning <- function(auto_mean, auto_clip, eps_bound, quantile, factor, clip_mean, clip) {
  if (!auto_mean && !auto_clip) return(tuning_record("none"))
  which <- c("clip_mean"[auto_mean], "clip"[auto_clip])
  tuning_record("private clipping bound", private = TRUE,
                detail = sprintf(paste0("%s chosen as %s times the private %s quantile of the %s row norms ",
                                        "(dp_clip_bound(), exponential mechanism, epsilon = %s each, ",
                                        "inside the stated budget)"),
                                 paste(which, collapse = " and "), format(factor), format(quantile),
                                 paste(c("raw"[auto_mean], "centred"[auto_clip]), collapse = " and "),
                                 format_privacy(eps_bound)),
                value = c(clip_mean = clip_mean, clip = clip)[c(auto_mean, auto_clip)])
}

# The rows centred at a released mean, as dp_clip_bound() input: a matrix, or
# a reader that centres each block.
centred_source <- function(src, center) {
  if (is.null(src$reader)) return(sweep(src$X, 2L, center))
  reader_map(src$reader, function(b) {
    sweep(check_reader_block(b), 2L, center)
  })
}

# The data source: a checked matrix, or a chunk reader read once per step.
dp_cov_source <- function(x, min_rows = 2L) {
  if (missing(x)) abort_missing("x")
  if (is.function(x)) {
    check_reader(x)
    return(list(reader = x, X = NULL, n = NA_real_, p = NA_integer_, colnames = NULL))
  }
  X <- check_data_matrix(x, min_rows = min_rows)
  list(reader = NULL, X = X, n = nrow(X), p = ncol(X), colnames = colnames(X))
}

# One pass over a reader (reader_fold()), at least 2 rows.
dp_cov_stream <- function(reader, f, p = NULL, min_rows = 2L) {
  reader_fold(reader, f, p = p, min_rows = min_rows,
              too_few = paste0("the reader `x` returned too few rows (dp_cov() needs 2 when n is public) or none ",
                               "on a second pass: dp_cov() reads the reader twice, and it must start again after ",
                               "returning NULL."))
}

# Column sums of rows clipped to L2 norm `bound`.
clipped_col_sums <- function(X, bound) colSums(clipped_rows(X, bound))

#' Step 1: the private mean. Releases the noisy column sums of the clipped raw
#' rows (and under add/remove the noisy count, scaled by clip_mean, from the
#' same noise draw): noise N(0, sigma^2) per coordinate, sums first.
#' @noRd
dp_cov_mean_step <- function(src, clip_mean, neighbor, epsilon, delta, calibration, min_rows = 2L) {
  if (is.null(src$reader)) {
    sums <- clipped_col_sums(src$X, clip_mean)
    n <- src$n
    nm <- src$colnames
  } else {
    pass <- dp_cov_stream(src$reader, function(b) clipped_col_sums(b, clip_mean), min_rows = min_rows)
    sums <- pass$total
    n <- pass$n
    nm <- pass$colnames
  }
  sigma <- mean_step_sigma(clip_mean, neighbor, epsilon, delta, calibration)
  c(noisy_mean(sums, n, clip_mean, sigma, neighbor == "add-remove"),
    list(n = n, p = length(sums), colnames = nm))
}

# The Gaussian mechanism on the column sums of rows clipped to `clip_mean`
# (and under add/remove on the count scaled by clip_mean, from the same draw).
# dp_lm()'s bootstrap redraws it with the recorded sigma.
noisy_mean <- function(sums, n, clip_mean, sigma, add_remove) {
  p <- length(sums)
  note_draw()
  if (add_remove) {
    noisy <- c(unname(sums), clip_mean * n) + gaussian_noise(p + 1L, sigma)
    n_noisy <- noisy[p + 1L] / clip_mean
    center <- noisy[seq_len(p)] / max(2, n_noisy)
  } else {
    center <- (unname(sums) + gaussian_noise(p, sigma)) / n
    n_noisy <- NA_real_
  }
  list(center = center, n_noisy = n_noisy, sigma = sigma)
}

#' Step 2: the second moment of the rows centred at the released mean,
#' through one of the package's mechanisms, returned on the scale of the sum.
#' @noRd
dp_cov_second_step <- function(src, center, clip, mechanism, neighbor, epsilon, delta, calibration,
                               zero_record = -center) {
  ss <- if (is.null(src$reader)) {
    second_moment(sweep(src$X, 2L, center), clip)
  } else {
    pass <- dp_cov_stream(src$reader, function(b) clipped_gram_cpp(sweep(b, 2L, center), clip)$gram, src$p,
                          min_rows = min(1, src$n))
    if (pass$n != src$n) {
      # the counts are private: the message says only that they differ
      abort("the reader `x` returned a different number of rows on the second pass than on the first: dp_cov() needs a re-readable reader that returns the same rows each time.",
            .arg = "x")
    }
    new_suffstat(pass$total, pass$n, clip, src$colnames, 0)
  }
  # under zero-out the zeroed record enters this step as the row -center
  # (clipped), not as 0: the mechanism calibrates for it (see gram_sensitivity());
  # on a box of public bounds it is the zero record's box row minus the center
  ss$zero_row <- zero_row_norm(zero_record, clip)
  second_moment_step(ss, mechanism, neighbor, epsilon, delta, calibration)
}

# The second-moment mechanism on sufficient statistics, its estimate returned
# as a sum.
second_moment_step <- function(ss, mechanism, neighbor, epsilon, delta, calibration) {
  clip <- ss$clip
  # dp_cov()'s own release judges the noise (and warns) for both steps
  rel <- muffle_noise_warnings(switch(mechanism,
    analyze_gauss = analyze_gauss(ss, epsilon, delta, neighbor = neighbor, calibration = calibration),
    threshold = dp_threshold(ss, epsilon, delta, clip = clip, neighbor = neighbor,
                             calibration = calibration),
    wishart = wishart_noise(ss, epsilon, delta, shift = TRUE)))
  sigma <- switch(mechanism, analyze_gauss = rel$params[["sigma"]], threshold = rel$params$noise_sd,
                  wishart = NA_real_)
  # the mechanism's own estimate, as the centred sum (the average scaled by n)
  sum <- release_sum(rel, ss$n)
  # the scalars, and the thresholding's zeroed variances (indices, from the
  # noisy matrix) whatever their number: the covariance's diagnostics report them
  keep <- vapply(rel$params, function(v) is.atomic(v) && length(v) == 1L, logical(1)) |
    names(rel$params) == "thresholded_variances"
  list(sum = sum, sigma = sigma, n_public = rel$n_public, mechanism = rel$mechanism, params = rel$params[keep])
}

#' A release's estimate of the sum A'A (post-processing, public quantities
#' only). `n` is the number of rows where the caller knows it is public.
#' @noRd
release_sum <- function(release, n = release$n) {
  est <- release$estimate
  p <- ncol(est)
  ridge <- if (is.null(release$ridge)) 0 else release$ridge
  switch(release$scale,
    "sum" = est,
    "sum + ridge" = est - diag(ridge, p),
    "posterior sample" = {
      df <- release$params$df
      if (!(df > p + 1)) {
        abort("`release` is an inverse-Wishart draw with df = %s <= p + 1 = %d: its mean is not finite, so it does not estimate a scaled A'A.",
              format(df), as.integer(p + 1), .arg = "release")
      }
      out <- est * (df - p - 1) - diag(ridge, p)
      if (!all(is.finite(out))) {
        abort("`release`: its posterior draw times df - p - 1 (df = %s) is not finite; its `params$df` is not a release's.",
              format(df), .arg = "release")
      }
      out
    },
    "average" = {
      if (is.na(n)) abort("`release` is an average but does not release n.", .arg = "release")
      est * n
    },
    abort("`release` of scale \"%s\" is not a second-moment estimate.", release$scale, .arg = "release"))
}

#' Covariance to correlation; a variable with variance estimate <= 0 gets
#' correlation 0 with the others (the input is PSD, so only 0 occurs).
#' @noRd
cov_to_cor <- function(cov) {
  d <- diag(cov)
  zero <- !(d > 0)
  s <- ifelse(zero, 1, 1 / sqrt(ifelse(zero, 1, d)))
  r <- cov * tcrossprod(s)
  r[zero, ] <- 0
  r[, zero] <- 0
  diag(r) <- 1
  r <- pmin(pmax(r, -1), 1)
  list(matrix = r, zero_variance = sum(zero))
}

#' Convert a release to a covariance or correlation matrix
#'
#' Post-processing only (no privacy cost, no data): turns a release of any
#' [scale][dp_scales] into an estimate of the covariance or the
#' correlation matrix, where that is possible (see Details). A covariance
#' made here from another scale has divisor n; a covariance release is
#' returned as it is, divisor included (`params$divisor`: a [dp_cov()]
#' release made with `divisor = "n - 1"` stays so).
#'
#' * `"covariance"`: returned as is (with its own divisor), or scaled to a
#'   correlation. When a diagonal entry is not positive the matrix is first
#'   projected to the PSD cone (negative eigenvalues set to 0), and a
#'   variable whose variance is still 0 gets correlation 0 with the others;
#'   a warning says so.
#' * `"sum"`, `"sum + ridge"`, `"posterior sample"`: the public ridge is
#'   removed (and a posterior draw rescaled by \eqn{df - p - 1}) to estimate
#'   \eqn{A^TA}, which is divided by n, so only when the release made n
#'   public (`release$n` not `NA`).
#' * `"average"`: \eqn{A^TA/n} as is.
#' * Uncentred second moments are centred with `center`, a private mean of
#'   the same (clipped) rows released separately, e.g. the `center` of a
#'   [dp_cov()] release: covariance = average - center center'. The total
#'   privacy loss is then that of both releases: with a [dp_cov()] release
#'   as `center`, the result's `epsilon` and `delta` are that total (basic
#'   composition, the mean's guarantee restated under the release's notion),
#'   and its guarantee says so; with numbers, whose cost it cannot know (a
#'   release's mean, or the exact means, which leave no guarantee), the text
#'   says the loss adds that of the release they came from, and
#'   [has_guarantee()], `summary()` and `glance()` give the total as not
#'   known (`NA`). The centred matrix is kept as computed: a variance that
#'   comes out <= 0 (the noise, or the centring, exceeds it) is not projected
#'   away for `to = "covariance"`, and the diagnostics say so (at least
#'   `"noisy"`).
#' * `"correlation"` cannot be turned back into a covariance (the scale is
#'   gone), and `"compressed rows"` are not second moments (use
#'   [compressed_cov()]); both are errors.
#'
#' @param release A `dp_release`.
#' @param to `"covariance"` or `"correlation"`.
#' @param center For an uncentred release: a private mean (numeric vector of
#'   length p) or a [dp_cov()] release whose `center` to use.
#' @param ... Nothing: an argument dp_as_cov() does not take is an error (a
#'   misspelt name is refused, not ignored).
#' @return A `dp_release` of the same class whose `estimate` is the
#'   covariance (divisor n: `params$divisor`) or correlation, `scale` and
#'   `centred` updated, `params$converted_from` the original scale, and, for
#'   an uncentred release, `center`: the private mean it was centred at (as
#'   given). A covariance release converted `to = "covariance"` is `release`
#'   itself, unchanged (its divisor too). [update()] refuses a conversion: it
#'   keeps the call of the release it came from (update that release and
#'   convert it again).
#' @seealso [dp_cov()], which centres privately itself.
#' @examples
#' set.seed(2)
#' x <- matrix(rnorm(3000, 5), 1000, 3)
#' r <- dp_cov(x, epsilon = 1, delta = 1e-6, clip = 4, clip_mean = 12)
#' dp_as_cov(r, "correlation")$estimate
#' # an uncentred average, centred with dp_cov()'s private mean
#' a <- dp_threshold(x, epsilon = 1, delta = 1e-6, clip = 12)
#' dp_as_cov(a, center = r)$estimate
#' @export
dp_as_cov <- function(release, to = "covariance", center = NULL, ...) {
  refuse_unknown_args("dp_as_cov", ...)
  if (missing(release)) abort_missing("release")
  refuse_compressed_rows(release, "release", "use compressed_cov() for their covariance")
  check_release(release, "release", square = TRUE)
  check_guarantee_numbers(release, "release")
  to <- check_choice(to, c("covariance", "correlation"), "to")
  center_release <- if (inherits(center, "dp_cov")) center
  if (!is.null(center)) center <- check_center(center, release$p, colnames(release$estimate))
  if (!is.null(center_release)) check_guarantee_numbers(center_release, "center")
  sc <- release$scale
  if (sc == "compressed rows") {
    abort("`release` holds compressed rows, not second moments; use compressed_cov() for their covariance.", .arg = "release")
  }
  if (sc == "correlation") {
    # (a center given with it was dropped by the early return)
    if (!is.null(center)) abort("`center`: the release is already centred (scale \"correlation\"); `center` applies to uncentred second moments only.", .arg = "center")
    if (to == "correlation") return(release)
    abort("`release` is a correlation matrix: the variances are not in it, so it cannot be turned into a covariance.", .arg = "to")
  }
  out <- release
  guarantee_note <- NULL
  if (!is.null(center) && (sc %in% c("covariance", "correlation") || isTRUE(release$centred))) {
    abort("`center`: the release is already centred (scale \"%s\"); `center` applies to uncentred second moments only.",
          sc, .arg = "center")
  }
  if (sc == "covariance") {
    if (to == "covariance") return(release)
    cov <- release$estimate
  } else {
    if (sc != "average" && is.na(release$n)) {
      # (Sheffet's mechanisms have no `neighbor`: their notion is fixed)
      abort("`release` estimates %s (scale \"%s\") but does not release n (add/remove neighbours), so it cannot be divided by n; %s, or use dp_cov().",
            if (sc == "posterior sample") "a posterior sample of the sum" else "a sum", sc,
            if (is_string(release$mechanism) && grepl("Sheffet", release$mechanism, fixed = TRUE)) "Sheffet's mechanisms leave n private (except iwishart_posterior(), under replace-one)"
            else "release under neighbor = \"replace-one\" or \"zero-out\"", .arg = "release")
    }
    avg <- if (sc == "average") release$estimate else release_sum(release) / release$n
    if (isTRUE(release$centred)) {
      cov <- avg
    } else {
      if (is.null(center)) {
        abort("`release` is an uncentred second moment: give `center`, a private mean of the same rows released separately (e.g. the `center` of dp_cov()), or use dp_cov(), which centres privately.",
              .arg = "center")
      }
      cov <- avg - tcrossprod(center)
      # the mean it is centred at, a public input (released before), is part of what it estimates
      out$center <- stats::setNames(center, colnames(release$estimate))
      # its noise, for the diagnostics: a dp_cov() release's mean noise sd;
      # numbers count as exact (the caller's public numbers), and say so
      msd <- if (!is.null(center_release)) mean_noise_sd(center_release, release_n_hat(center_release))
      out$params$center_noise_sd <- if (is.null(center_release)) rep(0, release$p) else
        if (is.numeric(msd) && length(msd) == release$p) unname(msd) else rep(NA_real_, release$p)
      if (is.null(center_release)) out$params$center_numbers <- TRUE
      guarantee_note <- if (is.null(center_release)) {
        paste0("centred with a separately released mean given as numbers: the total privacy loss adds that ",
               "release's, which this object cannot know (has_guarantee() is NA; exact means leave no guarantee)")
      } else "centred with a separately released mean: the total privacy loss adds that release's"
    }
    cov <- symmetric_part(cov)
    out$params$divisor <- "n"
  }
  if (to == "correlation" && any(!(diag(cov) > 0))) {
    warn("dp_as_cov(): a diagonal entry of the covariance is not positive; projected to the PSD cone before scaling to a correlation.")
    cov <- psd_project(cov)$matrix
  }
  dimnames(cov) <- dimnames(release$estimate)
  out$estimate <- cov
  out$scale <- "covariance"
  out$centred <- TRUE
  out$ridge <- 0
  out$params$converted_from <- sc
  # the level the release was graded, and its noise sd on its own scale (JL's
  # and the posterior's are plug-ins of the matrix before conversion)
  src <- tryCatch(diagnose_release(release)$level, error = function(e) NULL)
  if (is_string(src)) out$params$source_level <- src
  ssd <- tryCatch(release_noise_sd(release), error = function(e) NULL)
  if (is.matrix(ssd) && all(dim(ssd) == release$p) && sc != "covariance") {
    # on the sum's scale, as release_sum() rescales a posterior draw
    if (sc == "posterior sample") ssd <- ssd * (release$params$df - release$p - 1)
    out$params$source_noise_sd <- unname(ssd)
  }
  if (!is.null(guarantee_note) && !is.null(center_release)) {
    # the estimate depends on both releases: its guarantee is their total
    out <- compose_center_guarantee(out, center_release)
  } else if (!is.null(guarantee_note) && !startsWith(out$guarantee, "NONE")) {
    out$guarantee <- paste0(out$guarantee, " Then ", guarantee_note, ".")
  }
  # a correlation is judged on the covariance it scales
  if (to == "correlation") out <- cov_release_to_cor(out)
  out$diagnostics <- diagnose_release(check_release(out))
  out
}

# dp_cov()'s box release `expr`, with bounds from a dp_column_bounds()
# release (guarantee `g`) composed in, and judged (and warned about) once it
# says where its bounds came from; with public bounds, as it is.
finish_bounds_release <- function(expr, g, coded = character(0)) {
  if (is.null(g) && !length(coded)) return(expr)
  finish_diagnostics(mark_coded_columns(compose_bounds_guarantee(muffle_noise_warnings(expr), g), coded))
}

# The names of `x`'s logical columns (its schema: public), as the release
# names its columns; none for a reader or statistics. (Not integer columns:
# one in public bounds [0, 1] is a 0/1 code or a count clamped to it, which
# the diagnostics must tell.)
logical_column_names <- function(x) {
  if (is.function(x) || inherits(x, "dp_suffstat")) return(character(0))
  lg <- logical_columns(x)
  nm <- data_colnames(x) %||% paste0("V", seq_along(lg))
  if (length(lg) != length(nm)) return(character(0))
  nm[lg]
}

# A release's columns among `cols` (two-valued by design: logical, a
# factor's dummies) whose bounds are their coding [0, 1] are coded
# (params$coded_columns): their values sit at the bounds by design, not by
# clamping, and the diagnostics do not judge them so.
mark_coded_columns <- function(rel, cols) {
  b <- release_bounds(rel)
  if (!length(cols) || is.null(b)) return(rel)
  nm <- release_colnames(rel)
  coded <- nm[nm %in% cols & b$lower == 0 & b$upper == 1]
  if (length(coded)) rel$params$coded_columns <- union(rel$params$coded_columns, coded)
  rel
}

# A private mean given to dp_as_cov(): numbers, or a dp_cov() release.
# Named by column (a release's center is): matched to `cols` by name, as
# predict() matches data, never by position.
check_center <- function(center, p, cols = NULL) {
  if (inherits(center, "dp_cov")) {
    check_release(center, "center")
    center <- center$center
  }
  center <- check_per_column(center, p, cols, "center")
  # check_release()'s limit on a release's mean: centring (the average less
  # center center') and dp_lm()'s n mu mu' stay finite, refused here naming
  # `center` (not, later, as a converted release's infinite estimate)
  if (max(abs(center)) > sqrt(.Machine$double.xmax / 2^53)) {
    abort("`center` is too large: its squares times a number of rows (up to 2^53) would overflow; one finite number per column of at most %s in size.",
          format(sqrt(.Machine$double.xmax / 2^53), digits = 3), .arg = "center")
  }
  center
}
