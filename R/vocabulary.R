# One vocabulary: the argument names and defaults shared by every family,
# documented in one place, and the shim that keeps renamed arguments working.

#' Arguments shared across dpcov
#'
#' The same thing has the same name, position and default in every family.
#'
#' | argument | meaning | where | default |
#' |---|---|---|---|
#' | `x` | the data, first argument: an n x p numeric matrix or data frame (rows are records), or where stated a [second_moment()] result or a chunk reader function | every mechanism ([analyze_gauss()], [wishart_noise()], [jl_ridge()], [jl_adaptive()], [iwishart_posterior()], [iwishart_adaptive()], [dp_threshold()], [ldp_perturb()], [dp_compress()], [dp_cov()], [dp_clip_bound()]), [second_moment()], the studies' data ([compression_pca_study()]) | none |
#' | `release` | a [dp_release] to post-process, first argument | [dp_as_cov()], [dp_pca()], [compressed_cov()], [compressed_pca()], [dp_regression()], [compressed_lm()] (the last two: their own pages) | none |
#' | `epsilon`, `delta` | the privacy parameters, in this order after `x` | every mechanism | none (`delta` only for Gaussian / Wishart noise; [dp_column_bounds()]: `delta = 0`, pure epsilon-DP unless given; [ldp_aggregate()]: `NULL`, the batches' own) |
#' | `clip` | the row-norm bound: rows longer than `clip` are shrunk to it; `Inf` means no clipping and no formal guarantee | every central mechanism; `NULL` in [dp_cov()] means "choose privately" | none (must be given); [dp_cov()], the formula [dp_lm()]: `NULL` |
#' | `lower`, `upper`, `bounds` | public per-column bounds, the way users know them (physical units, questionnaire scales): `lower` and `upper` (numbers, length 1 or p, optionally named by column; names of columns the call does not use are ignored, so one public table serves every call; [dp_lm()] ignores the names of columns of `data` its model does not use and refuses a name that is no column of `data`, a likely typo) or `bounds` (a data frame with the columns `lower` and `upper` only, named by its row names (automatic row names: in column order; a column of names, as in a tidy table, is refused, not read), or a named list of `c(lower, upper)` pairs, or a [dp_column_bounds()] release: bounds computed on data, so the release's `epsilon` and `delta` become the total of the two by basic composition, counted as if of the same data (restated under the release's notion; bounds released under replace-one or zero-out are refused by an add/remove release), and its guarantee says so; the guarantee it states is taken as given, except that one made in this R session must still state at least the guarantee it was made with (an edited one stating less is refused), so an object made by hand or in another session is trusted as the caller's statement; [second_moment()], a statistic with no guarantee, refuses one), not both; every column needs lower < upper, at least 1e-50 apart. In [dp_cov()], [dp_lm()] and [dp_pca()] a column whose bounds are not known takes NA for both (`lower = c(age = 18, income = NA)`, `upper = c(age = 99, income = NA)`, or `c(NA, NA)` in the list): its bounds are chosen privately by [dp_column_bounds()]'s mechanism with the share of the budget the default gives the bounds, spread over those columns alone (a logical column left NA is bounded by its coding, at no cost), the others' kept as given, and the release records both (`params$bounds`, and the given ones in `params$public_bounds`, NA where chosen); every column still needs an entry (a misspelt name is an error, not a private choice), and such bounds are not tightened. Values outside are clamped (a public map), the data are mapped to a unit box where the mechanism runs with the row-norm bound the box implies, and the result is mapped back to the data's units; the release records them in `params$bounds`. They replace `clip` (giving both is an error) | [dp_cov()], [dp_lm()], [dp_pca()] (centred box \eqn{[-1/2, 1/2]^p}); [analyze_gauss()], [wishart_noise()], [jl_ridge()], [jl_adaptive()], [iwishart_posterior()], [iwishart_adaptive()], [dp_threshold()] (uncentred box \eqn{[-1, 1]^p}, a linear map, so the second moment maps back exactly; thresholds on the box scale); [second_moment()] (statistics of the uncentred box rows, which those mechanisms map back) | `NULL`: in [dp_cov()] and the formula [dp_lm()] with no `clip` either, per-column bounds are chosen privately ([dp_column_bounds()]) |
#' | `tighten` | public bounds tightened privately inside themselves: per column a lower and an upper point chosen by two exponential mechanisms over the public interval (about \eqn{2/\epsilon_q} rows beyond each; the public bound itself is a candidate, kept where many rows attain it), with `2 * bound_share` of the budget, composed with the release by zCDP; the release records the tightened bounds (`params$bounds`) and the public ones (`params$public_bounds`) | [dp_cov()], [dp_lm()], [dp_pca()] (through [dp_cov()]) | [dp_cov()]: `FALSE` (never); [dp_lm()], [dp_pca()]: `NULL`. `TRUE`: always; `NULL`: when n is public (replace-one, zero-out) and \eqn{2/\epsilon_q} is at most n / 20 (the rows clamped can be several times the target) |
#' | `box_weights` | how the box of per-column bounds shares its noise among the columns: `"equal"` (each column's noise proportional to its width: the same relative noise for every column) or `"frobenius"` (box coordinate j weighted by \eqn{\sqrt{w_j / \max w}}{sqrt(w_j / max w)}: the least expected Frobenius norm of the noise in the data's units, more relative noise for the narrow columns); the release records the weights (`params$box_weights`) and the data units per box unit (`params$box_scale`) | [dp_cov()] (`type = "covariance"`, Analyze Gauss) | `"equal"` |
#' | `sigma_clip_inf` | with `clip = Inf`, the row norm the noise is calibrated for (papers' reproductions) | [analyze_gauss()], [wishart_noise()], [jl_ridge()], [jl_adaptive()], [iwishart_posterior()], [iwishart_adaptive()], [dp_threshold()], [threshold_cv()], [qda_estimators()], [run_study()] (not [dp_cov()], [dp_lm()] or [ldp_perturb()], whose `clip` is finite) | `NULL` |
#' | `neighbor` | the neighbour notion: `"add-remove"` (n private), `"replace-one"` or `"zero-out"` (n public) | [analyze_gauss()], [dp_cov()], [dp_lm()], [dp_clip_bound()], [dp_column_bounds()], [dp_budget()] (`"add-remove"`); [ldp_perturb()] (`"replace-one"`: a local report has no add/remove neighbour); [dp_threshold()], [threshold_cv()] (`NULL`: the variant's own notion, never add/remove), [second_moment_sensitivity()] | `"add-remove"`; a mechanism whose noise or prior uses n (thresholding; [dp_lm()]'s `mechanism = "iwishart_posterior"`) refuses it, and needs `neighbor` given; Sheffet's mechanisms have no `neighbor`: their guarantee is fixed (replace-one for [iwishart_posterior()], every notion for the others, stated as add/remove since n is not released) |
#' | `calibration` | Gaussian noise calibration: `"analytic"` (Balle and Wang, exact) or `"classic"` (\eqn{\sqrt{2\log(1.25/\delta)}/\epsilon}, valid for \eqn{\epsilon < 1}) | [analyze_gauss()], [dp_threshold()], [threshold_cv()], [ldp_perturb()], [ldp_aggregate()], [dp_cov()], [gaussian_sigma()] ([dp_lm()] always calibrates analytically) | `"analytic"`; [ldp_aggregate()]: `NULL`, the settings every batch shares; the paper reproductions [run_study()] and [qda_estimators()] default to the papers' `"classic"` |
#' | `method` | how a mechanism is computed; every value of one function gives the same output distribution (e.g. `"gram"` / `"explicit"`, `"bartlett"` / `"explicit"`, `"aggregate"` / `"explicit"`) | [dp_compress()], [jl_ridge()], [jl_adaptive()], [wishart_noise()], [dp_threshold()], [threshold_cv()], [compression_pca_study()] | the fast exact path |
#' | `mechanism` | which privacy mechanism (changes the output distribution) | [dp_cov()], [dp_lm()] | `"analyze_gauss"` |
#' | `budget` | a [dp_budget()] to charge before any data are read (its composition rule, basic or zCDP, fixed when it was created, is a privacy filter: see [dp_budget()]) | every mechanism with an (epsilon, delta) guarantee | `NULL` |
#' | `rank` | components kept | [dp_pca()], [compressed_pca()] | all |
#' | `dim` | dimension D of a principal subspace | [subspace_distance()], [compression_pca_study()] | none |
#' | `reps` | replications of a study | [sheffet_study()], [run_study()], [qda_study()], [compression_pca_study()] | the paper's; 20 for [compression_pca_study()] (the compression paper has no numerical study) |
#' | `object`, `x` of methods | the object, as in base R (`summary(object)`, `print(x)`, `predict(object, newdata)`) | S3 methods | |
#'
#' The four study runners ([sheffet_study()], [run_study()], [qda_study()],
#' [compression_pca_study()]) return one kind of object, class `dp_study`
#' (see [dp_study]), with `print`, `summary`, `plot` and `as.data.frame`.
#'
#' **Names that mean something else in one place.** In [dp_clip_bound()],
#' `lower` and `upper` are the ends of the data-free search range of one
#' row-norm bound (what [dp_cov()] calls `bound_range`), not per-column
#' bounds of the data; in [dp_column_bounds()], `range` is one public bound on
#' every column's magnitude (the search is in \[-`range`, `range`\]). The column of
#' ones of a release is named by `ones` in [dp_lm()] and `intercept` in
#' [dp_regression()]. In [dp_lm()], `B` is the number of bootstrap draws,
#' not a row-norm bound. The root-mean-squares of normalised columns are
#' `scale` in [dp_pca()] and [predict.dp_pca()] and `scales` in
#' [compressed_lm()].
#' These keep their names for now; a rename would go through the shim below.
#'
#' **Renamed arguments.** `compressed_cov(object)` and
#' `compressed_pca(object)` are now `compressed_cov(release)` and
#' `compressed_pca(release)`; the old name still works, with a deprecation
#' warning.
#' @name dpcov_arguments
#' @seealso [dp_scales] (what a release estimates), [dp_release].
NULL

#' The value of a renamed first argument: `new` when given, else the
#' deprecated name `old` captured in `...` (with a deprecation warning).
#' Anything else in `...` is an unused argument, as R would say.
#' @noRd
renamed_arg <- function(value, is_missing, dots, fun, old = "object", new = "release") {
  nm <- names(dots)
  if (is.null(nm)) nm <- rep("", length(dots))
  extra <- setdiff(nm, old)
  if (length(dots) && (length(extra) || anyDuplicated(nm))) {
    abort("%s(): unused argument(s) %s.", fun,
          paste0("`", ifelse(nzchar(nm), nm, "<unnamed>"), "`", collapse = ", "), .arg = if (nzchar(extra[1])) extra[1] else "...")
  }
  if (old %in% nm) {
    if (!is_missing) abort("`%s` and its deprecated name `%s` are both given to %s().", new, old, fun, .arg = new)
    .Deprecated(msg = sprintf("%s(%s = ) is deprecated; use %s(%s = ) (see ?dpcov_arguments).",
                              fun, old, fun, new))
    return(dots[[old]])
  }
  if (is_missing) abort_missing(new)
  value
}
