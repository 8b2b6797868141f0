# A privacy budget (accountant) that every mechanism charges before it reads
# the data. Reference semantics: the account lives in an environment, so every
# copy of a dp_budget object charges and sees the same ledger. The ledger holds
# public parameters only (what, when, epsilon, delta, rho), never a value
# computed from data.

#' A privacy budget that every release charges
#'
#' `dp_budget(epsilon, delta)` creates an accountant for a total
#' (epsilon, delta)-differential-privacy budget. Pass it as `budget =` to any
#' release ([dp_cov()], [dp_lm()], [dp_pca()] on data, [dp_column_bounds()],
#' [dp_clip_bound()], [analyze_gauss()], [wishart_noise()], [jl_ridge()],
#' [jl_adaptive()], [iwishart_posterior()], [iwishart_adaptive()],
#' [dp_threshold()], [ldp_perturb()]): it charges each of its steps'
#' (epsilon, delta) *before it reads the data*, and when the charge would take
#' the total spent above the budget it stops with an error of class
#' `dpcov_budget_error` (also a `dpcov_error`, naming `budget`) and records
#' nothing. The release records the rows of its charge in the ledger, as
#' they were when it was charged (a later withdrawal of an earlier charge
#' moves them), in `params$budget_charge`. The object has reference semantics: copies of it
#' (assignments, function arguments) share one account. A copy that could
#' not share it is refused at its first charge, with a `dpcov_budget_error`:
#' a budget restored from a file (`saveRDS()`/`readRDS()`, `load()`), sent to
#' a parallel worker (PSOCK clusters, `future`), or used in a forked process
#' (`parallel::mclapply()`), and a hand-made `dp_budget`. Give each worker its
#' own `dp_budget()` for its share of the total.
#'
#' @section Composition rule: A budget stops by one rule, `composition`,
#'   fixed when it is created: each rule is a *privacy filter*, so the
#'   budget's (epsilon, delta) holds for the whole sequence of releases even
#'   when the analyst chooses the next release and its epsilon after seeing
#'   the earlier results. (Composition theorems in their usual form assume
#'   parameters fixed in advance; with adaptively chosen ones the stopping
#'   rule itself must be proven, Rogers, Roth, Ullman and Vadhan 2016.)
#'
#'   The charges of one release (its steps: a private bound, a mean, a second
#'   moment, the [dp_column_bounds()] it runs on when made in the same call)
#'   form one *release* in the ledger. Their parameters are fixed by the call
#'   before it reads the data, so they compose as the release states its own
#'   guarantee: by basic composition, or by zCDP for its steps that have a
#'   \eqn{\rho} (Gaussian steps, exponential mechanisms) when that is smaller (a [dp_cov()] at epsilon 1 is a mean step and a second-
#'   moment step whose epsilons add up to more than 1 and whose zCDP total
#'   is exactly 1). Bounds made earlier and given as `bounds` are a release
#'   of their own. The releases then compose by the budget's rule:
#'
#'   * `"basic"` (default): the releases' epsilons add up, and their deltas
#'     add up. Basic composition is a valid filter for (epsilon, delta)-DP
#'     (Rogers et al. 2016), for every mix of mechanisms. `delta = 0` makes a
#'     pure-DP budget, which takes pure charges only.
#'   * `"zCDP"`: every charge is \eqn{\rho_i}-zero-concentrated DP, and the
#'     \eqn{\rho_i} add up; the budget takes charges while the total
#'     \eqn{\rho} stays within \eqn{\rho_B}, the largest \eqn{\rho} whose
#'     conversion to (epsilon, delta)-DP at the budget's delta is at most its
#'     epsilon. This is a filter for each Rényi order separately (Feldman and
#'     Zrnic 2021), so the sequence is \eqn{\rho_B}-zCDP, and hence
#'     (epsilon, delta)-DP by the conversion of Canonne, Kamath and Steinke
#'     (2020, Proposition 12 / Corollary 13),
#'     \eqn{\epsilon = \inf_{\alpha > 1} \alpha\rho + (\log(1/\delta) +
#'     (\alpha-1)\log(1 - 1/\alpha) - \log\alpha)/(\alpha - 1)}, never larger
#'     than Bun and Steinke's \eqn{\rho + 2\sqrt{\rho\log(1/\delta)}}. A
#'     Gaussian mechanism with noise-to-sensitivity ratio
#'     \eqn{s = \sigma/\Delta} is \eqn{1/(2s^2)}-zCDP whatever calibration
#'     chose \eqn{\sigma} (Bun and Steinke 2016, Proposition 1.6); an
#'     \eqn{\epsilon}-DP exponential mechanism ([dp_column_bounds()], the
#'     private bounds of [dp_clip_bound()] and [dp_cov()]) is
#'     \eqn{\epsilon}-bounded-range, hence \eqn{\epsilon^2/8}-zCDP (Cesar and
#'     Rogers 2021); any other pure \eqn{\epsilon}-DP step (a Laplace or
#'     geometric count) is \eqn{\epsilon^2/2}-zCDP (Bun and Steinke 2016,
#'     Proposition 1.4). A release with an (epsilon, delta) guarantee and a
#'     positive delta that is not made of such steps (Sheffet's mechanisms:
#'     [wishart_noise()], [jl_ridge()], [jl_adaptive()], [iwishart_posterior()],
#'     [iwishart_adaptive()], and [dp_lm()] with one of them) has no zCDP guarantee, and a zCDP budget refuses
#'     it before the data is read. The spent total is reported as
#'     (epsilon, delta) at the budget's delta; it is not additive, so a later
#'     release may fit even when its own epsilon exceeds the epsilon left
#'     (`budget_spent()$rho_left` is the measure that adds).
#'
#'   zCDP pays off for many Gaussian releases (ten [analyze_gauss()] calls
#'   at epsilon 0.3 and delta 1e-7 cost epsilon 0.87 at delta 1e-5, rather
#'   than 3) and costs more for few large pure ones (a Laplace step at
#'   epsilon 1 costs 4.7 at delta 1e-5). Neither rule may be switched
#'   after a release: taking the smaller of the two totals at each charge is
#'   not covered by a filter result we know of (the privacy loss of an
#'   adaptively chosen sequence can follow whichever accounting its path
#'   favours), and `budget_spent()` reports the other total for comparison
#'   only. A tolerance of 1e-9 (relative) absorbs rounding in the stop rule;
#'   it never lets the total delta reach 1.
#'
#'   Adaptive algorithms that split their budget internally (Sheffet's
#'   Algorithms 2 and 5: a Laplace step and a Wishart or projection step) are
#'   charged as one non-Gaussian (epsilon, delta) charge, the guarantee they
#'   prove. Releases without an (epsilon, delta) guarantee cannot be charged
#'   and refuse a budget, before the data is read: `clip = Inf`,
#'   [dp_compress()], [dp_threshold()] tuned on the private data
#'   (`tune = "cv"`, or a constant or grid from [threshold_cv()]), and a
#'   release whose delta and that of the [dp_column_bounds()] release it uses
#'   as `bounds` add up to 1 or more.
#'
#'   Bounds from a [dp_column_bounds()] release given as `bounds` are a step
#'   of the release that uses them (its guarantee adds theirs to its own), and
#'   a budget charges them with that release's own steps, all or nothing,
#'   unless it charged them already: the bounds were made with this budget
#'   as `budget`, or given before to a release charged to it (each
#'   `dp_column_bounds` object carries a `release_id` for this; the ledger
#'   row of the bounds' step reads "dp_column_bounds given as `bounds`").
#'   Bounds made without a budget, on another budget, in another R session
#'   or by hand are charged here: an account composes only what it charged.
#'   The object's table alone (`$bounds`, or its numbers) is public bounds
#'   to a release, which neither its guarantee nor the budget can tell came
#'   from the data. Post-processing charges nothing, with one exception of the
#'   same kind: [dp_threshold()] on an [ldp_aggregate()] of reports charges
#'   the reports' guarantee, once per aggregate, to a budget that did not
#'   charge every one of its batches in [ldp_perturb()], as made there (the
#'   batches' rows are disjoint, so one charge covers the aggregate; a batch
#'   edited since, or made in another R session, counts as not charged). A release made
#'   without a budget is accounted by none: [dp_as_cov()] centred at such a
#'   [dp_cov()] release states a guarantee that includes the centre's, which
#'   no budget holds.
#'
#'   A call evaluates its arguments (the data included) and is charged before
#'   it reads the data. If it then ends with an error, the charge is
#'   withdrawn only when the failure cannot depend on the data's values: a
#'   refusal of the data's shape, type or names (too few rows or columns, a
#'   non-numeric column, duplicated names) or of an argument, raised before
#'   any noisy value was drawn (the package counts its own draws; R's RNG
#'   state is never read) and before any pass over a chunk reader began (a
#'   package reader's columns are checked before the charge). The charge is
#'   kept, and the error has class `dpcov_data_error`, for every refusal of
#'   the values, in memory or from a reader: a missing, NaN or infinite value
#'   in `x`, in `data` or in a model frame's variables, and any failure of a
#'   reader or of a formula's transformations; it is kept too, with the
#'   same class, for any failure after a draw or after a reader's pass began. The guarantees
#'   hold for data in the domain every release assumes, finite numbers in
#'   every cell it uses; a refusal of data outside it (a missing, NaN or
#'   infinite value, text in a reader's column) is not covered by any
#'   guarantee: it tells whoever sees it that the data hold such a value,
#'   which no charge makes differentially private. Keeping the charge only
#'   keeps such refusals from being repeated at no cost to the ledger (data,
#'   a reader, its SQL or its `na_strings` written to fail on chosen values).
#'   For a release that cannot fail on the values, map them into the domain
#'   first, record by record (a public map of each row by itself: a reader's
#'   `na = "zero"`, a public constant for `NA` in memory), or, under
#'   add/remove, drop incomplete rows (neighbours stay neighbours). A condition only
#'   signalled during the call, which then completes, withdraws nothing.
#'   [second_moment()] and [second_moment_db()] take no budget: they compute
#'   exact statistics, not a release, so whoever calls them sees the data's
#'   sums and their refusals (same class) cost nothing; a budget accounts
#'   from the release of such statistics on.
#'
#' @section Neighbour notions: A budget accounts under one neighbour notion,
#'   `neighbor` (default `"add-remove"`, as for the mechanisms). Every charge
#'   records the notion its own guarantee holds under (the ledger's `neighbor`
#'   column; `"any"` for mechanisms private under all three, such as
#'   [dp_clip_bound()] and Sheffet's Algorithms 1, 2, 3 and 5;
#'   `"add-remove, zero-out"` for an add/remove [analyze_gauss()], which sees
#'   the rows only through \eqn{\sum x x^T} and counts nothing, so a zeroed
#'   row is a removed one) and is restated
#'   under the budget's notion before the totals are formed: unchanged for the
#'   same notion, `"any"`, either of `"add-remove, zero-out"`, or replace-one
#'   on a zero-out budget; by group
#'   privacy over two steps, \eqn{(2\epsilon, (1 + e^\epsilon)\delta)} and
#'   \eqn{4\rho}, for an add/remove or zero-out charge on a replace-one
#'   budget and an add/remove charge on a zero-out budget. A replace-one or
#'   zero-out charge on an add/remove budget implies no add/remove guarantee
#'   (those releases use or disclose n) and is refused with a
#'   `dpcov_budget_error`, before the data is read. The ledger keeps each
#'   charge as made; `budget_spent()` and `print()` report the restated totals.
#'
#' @param epsilon,delta The total budget (delta in \[0, 1) for basic
#'   composition, 0 making a pure-DP budget; in (0, 1) for zCDP).
#' @param neighbor The neighbour notion the budget accounts under:
#'   `"add-remove"` (default), `"replace-one"` or `"zero-out"`.
#' @param composition How the releases compose and when the budget stops
#'   (see "Composition rule"): `"basic"` (default; epsilons and deltas add)
#'   or `"zCDP"` (zero-concentrated DP: the releases' rhos add, converted at
#'   the budget's delta). Fixed at creation.
#' @param ... `dp_budget()`, `budget_spent()`: nothing (an argument they do
#'   not take is an error: a misspelt name is refused, not ignored); the
#'   methods: ignored (for the generics).
#' @return `dp_budget()`: an object of class `dp_budget`. `budget_spent()`: a
#'   list with the `epsilon` and `delta` spent by the budget's rule,
#'   `composition` (the rule), `epsilon_basic` and `delta_basic` (the basic
#'   total of the releases), `epsilon_zcdp` (the zCDP total at the budget's
#'   delta; Inf when a charge has no zCDP guarantee or the budget's delta is
#'   0), `rho` (the total rho of every charge, NA when one has none),
#'   `epsilon_left`, `delta_left` (NA for a zCDP budget, whose delta is the
#'   conversion's, not spent by parts), `rho_left` (zCDP budgets; NA
#'   otherwise), `charges` and `releases` (their numbers), `neighbor` (the
#'   budget's notion) and `copy` (TRUE for a copy of a budget: restored with
#'   [readRDS()], sent to a worker, forked or made by hand; its figures are
#'   its ledger as copied, which may be stale, and `budget_spent()` warns
#'   with a `dpcov_budget_warning`).
#' @references Feldman, V. and Zrnic, T. (2021). Individual privacy
#'   accounting via a Rényi filter. *Advances in Neural Information
#'   Processing Systems 34 (NeurIPS 2021)*, 28080-28091.
#'
#'   Rogers, R., Roth, A., Ullman, J. and Vadhan, S. (2016). Privacy odometers
#'   and filters: pay-as-you-go composition. *Advances in Neural Information
#'   Processing Systems 29 (NIPS 2016)*, 1921-1929.
#'
#'   Bun, M. and Steinke, T. (2016). Concentrated differential
#'   privacy: simplifications, extensions, and lower bounds. *Theory of
#'   Cryptography Conference (TCC 2016-B)*, LNCS 9985, 635-658.
#'   arXiv:1605.02065.
#'
#'   Canonne, C. L., Kamath, G. and Steinke, T. (2020). The discrete Gaussian
#'   for differential privacy. *Advances in Neural Information Processing
#'   Systems 33 (NeurIPS 2020)*. arXiv:2004.00010.
#'
#'   Cesar, M. and Rogers, R. (2021). Bounding, concentrating, and truncating:
#'   unifying privacy loss composition for data analytics. *Proceedings of
#'   the 32nd International Conference on Algorithmic Learning Theory (ALT)*,
#'   PMLR 132, 421-457.
#' @examples
#' b <- dp_budget(epsilon = 1, delta = 1e-5)
#' x <- matrix(rnorm(40000), 10000, 4)
#' r1 <- analyze_gauss(x, 0.3, 2e-6, clip = 2, budget = b)
#' r2 <- analyze_gauss(x, 0.3, 2e-6, clip = 2, budget = b)
#' b
#' as.data.frame(b)
#' # many Gaussian releases cost less on a zCDP budget
#' z <- dp_budget(epsilon = 1, delta = 1e-5, composition = "zCDP")
#' for (i in 1:5) analyze_gauss(x, 0.3, 1e-7, clip = 2, budget = z)
#' budget_spent(z)$epsilon   # below 1.5
#' # an over-spend is refused before the data is read, and nothing is charged
#' try(wishart_noise(x, 0.9, 1e-6, clip = 2, budget = b))
#' @export
dp_budget <- function(epsilon, delta, neighbor = "add-remove", ..., composition = "basic") {
  refuse_unknown_args("dp_budget", ...)
  epsilon <- check_epsilon(epsilon)
  composition <- check_choice(composition, budget_compositions, "composition")
  delta <- check_budget_delta(delta, composition)
  neighbor <- check_choice(neighbor, dp_neighbors, "neighbor")
  account <- new.env(parent = emptyenv())
  account$epsilon <- epsilon
  account$delta <- delta
  account$neighbor <- neighbor
  account$composition <- composition
  # fixed at creation: a filter's rule cannot change after a release
  lockBinding("composition", account)
  account$ledger <- empty_ledger()
  register_account(account)
  structure(list(account = account), class = "dp_budget")
}

# The rules a budget can stop by: each is a privacy filter (see ?dp_budget).
budget_compositions <- c("basic", "zCDP")

#' A budget's total delta: in [0, 1) for basic composition (0: a pure-DP
#' budget, which takes pure charges only), in (0, 1) for zCDP, whose
#' conversion to (epsilon, delta)-DP needs a delta.
#' @noRd
check_budget_delta <- function(delta, composition) {
  if (missing(delta)) abort_missing("delta")
  if (composition == "basic" && is_number(delta) && identical(as.double(delta), 0)) return(0)
  if (composition == "basic") return(check_delta(delta))
  if (is_number(delta) && identical(as.double(delta), 0)) {
    abort("`delta` must be in (0, 1) for a zCDP budget: rho-zCDP implies (epsilon, delta)-DP only for delta > 0; give a delta, or composition = \"basic\" for a pure-DP budget.", .arg = "delta")
  }
  check_delta(delta)
}

# The accounts created in this R session, with the process that created each.
# A copy of an account made by serialisation (saveRDS()/readRDS(), a PSOCK or
# future worker) is another environment, and one made by forking
# (parallel::mclapply()) lives in another process: charges to either would
# never reach the original ledger, so budget_charge() refuses them. Each
# account holds a token; the registry maps it to the account's address
# and process (about 200 bytes per budget, no reference to the account, so
# accounts are freed as usual). A copy has the token at another address.
budget_accounts <- new.env(parent = emptyenv())

account_key <- function(env) utils::capture.output(print.default(env))[1]

register_account <- function(env) {
  n <- (get0(".count", envir = budget_accounts, inherits = FALSE) %||% 0) + 1
  assign(".count", n, envir = budget_accounts)
  token <- sprintf("%d:%.0f", Sys.getpid(), n)
  assign("token", token, envir = env)
  assign(token, list(address = account_key(env), pid = Sys.getpid()), envir = budget_accounts)
}

#' Why an account cannot be charged here (a restored or forked copy, or a
#' hand-made one): its `message` and the `advice` for that case; NULL when it
#' can.
#' @noRd
account_copy_problem <- function(acc) {
  token <- get0("token", envir = acc$env, inherits = FALSE)
  reg <- if (is_string(token)) get0(token, envir = budget_accounts, inherits = FALSE)
  if (is.null(reg) || !identical(reg$address, account_key(acc$env))) {
    return(list(message = paste0("`budget` was not created by dp_budget() in this R session: it was restored ",
                                 "from a file (readRDS(), load()), sent to a parallel worker, or made by hand. Its ",
                                 "charges would not reach the original account, whose ledger is the one that counts."),
                advice = paste0("Where the original lives, budget_spent() gives what is left; create dp_budget() ",
                                "for that here only if the original will not be used again.")))
  }
  if (!identical(reg$pid, Sys.getpid())) {
    return(list(message = sprintf(paste0("`budget` belongs to R process %d, not to this one (%d): a forked worker ",
                                         "(e.g. parallel::mclapply()) holds a copy of the account, and its charges ",
                                         "would not reach the original."), as.integer(reg$pid), as.integer(Sys.getpid())),
                advice = paste0("Charge the budget in the process that created it, or give each worker its own ",
                                "dp_budget() for its share.")))
  }
  NULL
}

#' Refuses a charge to an account this process did not create (a restored or
#' forked copy, or a hand-made one) or cannot write (a locked environment).
#' @noRd
check_account_live <- function(acc) {
  problem <- account_copy_problem(acc)
  if (!is.null(problem)) {
    abort_budget("%s Nothing was charged and the data was not read. %s", problem$message, problem$advice)
  }
  if (bindingIsLocked("ledger", acc$env)) {
    abort_budget("`budget`'s account is locked (lockEnvironment() or lockBinding()), so no charge can be recorded; nothing was charged and the data was not read.")
  }
  invisible(acc)
}

# What budget_spent() and print() say of a copy: its figures are its ledger
# as copied, which may be stale.
copy_words <- paste0("this is a copy of a dp_budget (restored, sent to a worker, forked or made by hand): its figures ",
                     "are its ledger as copied, which may be stale, and charges to it are refused; the original's ",
                     "budget_spent() is the one that counts.")

#' @rdname dp_budget
#' @param budget A `dp_budget`.
#' @export
budget_spent <- function(budget, ...) {
  refuse_unknown_args("budget_spent", ...)
  acc <- check_budget(budget)
  tot <- compose_account(acc)
  copy <- !is.null(account_copy_problem(acc))
  if (copy) {
    warn(paste0("budget_spent(): ", copy_words), .class = "dpcov_budget_warning")
  }
  zcdp <- acc$composition == "zCDP"
  c(tot, list(epsilon_left = acc$epsilon - tot$epsilon, delta_left = if (zcdp) NA_real_ else acc$delta - tot$delta,
              rho_left = if (zcdp) zcdp_rho(acc$epsilon, acc$delta) - tot$rho else NA_real_,
              charges = nrow(acc$ledger), releases = length(unique(acc$ledger$group)),
              neighbor = acc$neighbor, copy = copy))
}

empty_ledger <- function() {
  data.frame(what = character(0), when = .POSIXct(numeric(0)), neighbor = character(0),
             epsilon = numeric(0), delta = numeric(0), rho = numeric(0), id = numeric(0), group = numeric(0),
             stringsAsFactors = FALSE)
}

# The budget error: a dpcov_error that also says it is about the budget.
abort_budget <- function(fmt, ...) abort(fmt, ..., .arg = "budget", .class = "dpcov_budget_error")

#' Validate a `dp_budget` (hand-made objects included); returns its account.
#' @noRd
check_budget <- function(budget, arg = "budget") {
  if (missing(budget)) abort_missing(arg)
  bad <- function(what) abort("`%s` is not a valid dp_budget: %s; create one with dp_budget().", arg, what, .arg = arg)
  if (!inherits(budget, "dp_budget") || !is.list(budget)) {
    abort("`%s` must be a dp_budget object (from dp_budget()) or NULL.", arg, .arg = arg)
  }
  acc <- budget$account
  if (!is.environment(acc)) bad("it has no account")
  # its settings live in the account, fixed at creation: `b$composition <-
  # "zCDP"` added an element that read as the rule while the account kept its own
  if (!identical(names(budget), "account")) {
    bad(sprintf("it holds %s beside its account (a budget's settings are its account's, fixed at creation)",
                paste0("`", setdiff(names(budget), "account"), "`", collapse = ", ")))
  }
  comp <- get0("composition", envir = acc, inherits = FALSE)
  if (!(is.character(comp) && length(comp) == 1L && !is.na(comp) && comp %in% budget_compositions)) {
    bad("its composition rule is malformed")
  }
  for (f in c("epsilon", "delta")) {
    v <- get0(f, envir = acc, inherits = FALSE)
    # delta 0 (a pure-DP budget) only for basic composition
    ok_v <- is_number(v) && is.finite(v) && (if (f == "delta" && comp == "basic") v >= 0 else v > 0) &&
      !(f == "delta" && v >= 1)
    if (!ok_v) bad(sprintf("its total `%s` is malformed", f))
  }
  nb <- get0("neighbor", envir = acc, inherits = FALSE)
  if (!(is.character(nb) && length(nb) == 1L && !is.na(nb) && nb %in% dp_neighbors)) bad("its neighbour notion is malformed")
  led <- get0("ledger", envir = acc, inherits = FALSE)
  ok <- is.data.frame(led) && identical(names(led), names(empty_ledger())) &&
    is.character(led$what) && inherits(led$when, "POSIXct") && is.character(led$neighbor) &&
    !anyNA(led$neighbor) && all(led$neighbor %in% charge_neighbors) &&
    all(vapply(unique(led$neighbor), function(n) !is.null(convert_guarantee(1, 0, NA_real_, n, nb)), logical(1))) &&
    is.double(led$epsilon) &&
    is.double(led$delta) && is.double(led$rho) && !anyNA(led$epsilon) && !anyNA(led$delta) &&
    all(is.finite(led$epsilon) & led$epsilon >= 0) && all(is.finite(led$delta) & led$delta >= 0 & led$delta < 1) &&
    all(is.na(led$rho) & !is.nan(led$rho) | is.finite(led$rho) & led$rho > 0) &&
    is.double(led$id) && all(is.finite(led$id)) && !anyDuplicated(led$id) &&
    is.double(led$group) && all(is.finite(led$group) & led$group == round(led$group))
  if (!isTRUE(ok)) bad("its ledger is malformed")
  list(epsilon = acc$epsilon, delta = acc$delta, neighbor = nb, composition = comp, ledger = led, env = acc)
}

#' Charge a budget for one release, before the release reads the data.
#'
#' `sigma_ratio` = sigma / sensitivity of a Gaussian mechanism (its zCDP rho is
#' 1 / (2 sigma_ratio^2)); `NULL` for any other mechanism. `neighbor` is the
#' notion each charge's guarantee holds under (one per charge, or one for
#' all; `"any"` for mechanisms private under every notion); `rho`: the zCDP
#' rho of a non-Gaussian step that has one (NA or NULL: none; ignored where
#' `sigma_ratio` is given). A charge is
#' restated under the budget's notion by convert_guarantee(), or refused with
#' a `dpcov_budget_error` when no guarantee under it follows. `clip` = Inf
#' refuses: a release without a guarantee cannot be accounted. With `budget = NULL` nothing happens (and the lazy arguments are
#' never evaluated). Returns the index of the charge in the ledger, or NULL.
#' A refused charge records nothing.
#' @noRd
budget_charge <- function(budget, what, epsilon, delta, sigma_ratio = NULL, clip = NULL, neighbor,
                          rho = NULL, bounds = NULL) {
  if (is.null(budget)) return(NULL)
  acc <- check_account_live(check_budget(budget))
  if (identical(clip, Inf)) {
    abort_budget("`budget` cannot be charged for %s: with `clip` = Inf the release has no (epsilon, delta) guarantee to account; give a finite `clip`.", what)
  }
  # several charges at once (one release made of several steps) are refused
  # or recorded together; sigma_ratio NA marks a non-Gaussian step
  k <- length(what)
  sigma_ratio <- rep_len(if (is.null(sigma_ratio)) NA_real_ else sigma_ratio, k)
  # a non-Gaussian step may state its zCDP rho itself (e.g. exponential
  # mechanisms, (epsilon^2/8)-zCDP); NA: no zCDP guarantee recorded
  rho <- rep_len(if (is.null(rho)) NA_real_ else rho, k)
  neighbor <- rep_len(neighbor, k)
  # the bounds of a dp_column_bounds() release this one uses, when this
  # budget has not charged them yet: a step of the release, charged first
  # (a mechanism on box rows is handed them by box_uncentred_call(), for its
  # first charge to this account: with_pending_bounds())
  pending <- dpcov_state$pending_bounds
  if (is.null(bounds) && !is.null(pending) && identical(pending$account, acc$env)) {
    dpcov_state$pending_bounds <- NULL
    bounds <- pending$g
  }
  given <- given_release_step(acc, bounds, "dp_column_bounds given as `bounds` (not charged to this budget before)")
  if (!is.null(given)) {
    what <- c(given$what, what)
    epsilon <- c(given$epsilon, epsilon)
    delta <- c(given$delta, delta)
    sigma_ratio <- c(NA_real_, sigma_ratio)
    rho <- c(given$rho, rho)
    neighbor <- c(given$neighbor, neighbor)
  }
  if (!length(what)) return(NULL)
  rho <- ifelse(is.na(sigma_ratio), rho, 1 / (2 * sigma_ratio^2))
  if (any(!is.na(rho) & !(is.finite(rho) & rho > 0))) abort("internal: the noise ratio of %s is not a positive number.", what[1])
  stopifnot(all(neighbor %in% charge_neighbors))
  refused <- vapply(seq_along(what), function(i) {
    is.null(convert_guarantee(epsilon[i], delta[i], rho[i], neighbor[i], acc$neighbor))
  }, logical(1))
  if (acc$composition == "zCDP") {
    # a pure step is (epsilon^2 / 2)-zCDP; an approximate one without a rho has no zCDP guarantee
    no_rho <- is.na(rho) & delta > 0
    if (any(no_rho)) {
      abort_budget(paste0("`budget` composes by zCDP, but %s has an (epsilon, delta) guarantee with delta > 0 and ",
                          "no zCDP guarantee (it is not a Gaussian mechanism), which a zCDP budget cannot account; ",
                          "nothing was charged and the data was not read. Account it on a budget created with ",
                          "dp_budget(..., composition = \"basic\")."), what[which(no_rho)[1]])
    }
  }
  if (any(refused)) {
    i <- which(refused)[1]
    abort_budget(paste0("`budget` accounts under %s, but %s holds under %s only (it uses or discloses n), ",
                        "which implies no guarantee under the budget's notion; nothing was charged and the ",
                        "data was not read. Account such releases on a budget created with ",
                        "dp_budget(..., neighbor = \"%s\")."),
                 neighbor_words(acc$neighbor), what[i], neighbor_words(neighbor[i]), neighbor[i])
  }
  # each charge's id, never reused in its account (with_refund() withdraws
  # by id, and the releases it charged are recorded by id:
  # register_release_charge())
  last <- get0("last_id", envir = acc$env, inherits = FALSE)
  if (!is_num1(last) || !is.finite(last)) last <- 0  # (an account edited by hand)
  id <- max(0, acc$ledger$id, last) + seq_along(what)
  # the steps of one release form one group, named by its first row's id:
  # their parameters are fixed by the call before it reads the data, so they
  # compose as the release states (compose_ledger()); bounds given from an
  # earlier release, whose parameters the caller chose before this call, are
  # a group of their own
  group <- rep(id[1], length(what))
  if (!is.null(given) && length(what) > 1L) group[-1] <- id[2]
  row <- data.frame(what = what, when = Sys.time(), neighbor = neighbor, epsilon = epsilon, delta = delta,
                    rho = rho, id = id, group = group, stringsAsFactors = FALSE)
  after <- rbind(acc$ledger, row)
  tot <- compose_account(acc, after)
  tol <- 1 + 1e-9
  # the tolerance never lets the total delta reach 1: (epsilon, 1)-DP says nothing
  if (tot$epsilon > acc$epsilon * tol || tot$delta > acc$delta * tol || !(tot$delta < 1)) {
    now <- compose_account(acc)
    # the call quoted at its own total as the ledger composes it (its steps'
    # epsilons can add up to more: a dp_cov() at epsilon 1 is steps of 0.59
    # and 0.71 by zCDP)
    # the call quoted at its own guarantee: its steps composed as it states
    # (and its rho on a zCDP budget)
    own <- compose_ledger(row, acc$neighbor)
    what <- paste(what, collapse = " + ")
    rho_words <- if (acc$composition == "zCDP") {
      what <- sprintf("%s (rho = %s)", what, format_privacy(compose_account(acc, row)$rho))
      sprintf(" (rho %s of the budget's %s)", format_privacy(tot$rho), format_privacy(zcdp_rho(acc$epsilon, acc$delta), up = FALSE))
    } else ""
    abort_budget(paste0("`budget` refuses %s (epsilon = %s, delta = %s): the total spent by %s would be ",
                        "(epsilon, delta) = (%s, %s)%s, above the budget (%s, %s); spent so far (%s, %s). ",
                        "Nothing was charged and the data was not read."),
                 what, format_privacy(own$epsilon), format_privacy(own$delta), budget_composition_words(acc$composition),
                 format_privacy(tot$epsilon), format_privacy(tot$delta), rho_words,
                 format_privacy(acc$epsilon), format_privacy(acc$delta),
                 format_privacy(now$epsilon), format_privacy(now$delta))
  }
  assign("ledger", after, envir = acc$env)
  assign("last_id", max(id), envir = acc$env)
  if (!is.null(given)) register_release_charge(acc$env, given$release_id, id[1])
  seq.int(nrow(after) - nrow(row) + 1L, nrow(after))
}

# Releases that later releases may be given as input and whose guarantee
# they then compose (dp_column_bounds() as `bounds`, ldp_perturb() reports
# as an aggregate) carry an id (`release_id`): 128 random bits from the
# system's entropy source (random_token_cpp()), so ids differ across
# processes, forks and sessions, R's RNG streams are untouched, and an id
# (which travels with local reports) links nothing: not the process, the
# time or the releases made before. A budget's account maps the ids of
# such releases it has charged (made with it as `budget`, or charged when
# first given to a release on it) to their ledger rows' ids, so each is
# charged once per budget however often it is used.
new_release_id <- function() random_token_cpp()

register_release_charge <- function(env, release_id, ledger_id) {
  # (several ids at once: an aggregate's batches, one copy of the map)
  if (!is.character(release_id) || !length(release_id) || anyNA(release_id)) return(invisible())
  charged <- get0("release_charges", envir = env, inherits = FALSE)
  if (!is.numeric(charged)) charged <- numeric(0)
  charged[release_id] <- ledger_id
  assign("release_charges", charged, envir = env)
  invisible()
}

# The release `release_id` charged to `budget` by `charge` (its rows' positions,
# budget_charge(); NULL without a budget: nothing to record).
register_charged_release <- function(budget, release_id, charge) {
  if (is.null(charge)) return(invisible())
  acc <- check_budget(budget)
  register_release_charge(acc$env, release_id, acc$ledger$id[charge[1L]])
}

#' Whether the account `acc` has charged the release `release_id` with the
#' guarantee (`epsilon`, `delta`) it states: a row registered under its id
#' is still in the ledger (a withdrawn charge is not; ids are never reused)
#' with that guarantee.
#' @noRd
release_charged <- function(acc, release_id, epsilon, delta) {
  is_string(release_id) && releases_charged(acc, release_id, epsilon, delta)
}

# release_charged() for every id of a character vector at once (an
# aggregate's batches: one lookup each was a pass over the map, quadratic).
releases_charged <- function(acc, release_ids, epsilon, delta) {
  charged <- get0("release_charges", envir = acc$env, inherits = FALSE)
  if (!is.numeric(charged)) return(rep(FALSE, length(release_ids)))
  at <- match(release_ids, names(charged))
  row <- match(charged[at], acc$ledger$id)
  !is.na(row) & acc$ledger$epsilon[row] == epsilon & acc$ledger$delta[row] == delta
}

#' The ledger step, named `what`, for a release `g` (a list with `epsilon`,
#' `delta`, `rho`, `neighbor`, `release_id`) given to a release charged to
#' the account `acc`, or NULL when there is none or this account charged it
#' already (release_charged()). One made without a budget, on another
#' budget, in another session, or by hand is charged here: the account
#' composes only what it charged.
#' @noRd
given_release_step <- function(acc, g, what) {
  if (is.null(g) || release_charged(acc, g$release_id, g$epsilon, g$delta)) return(NULL)
  list(what = what, epsilon = g$epsilon, delta = g$delta, rho = g$rho %||% NA_real_, neighbor = g$neighbor,
       release_id = g$release_id)
}

#' `expr` with the bounds `g` (bounds_release_guarantee()) handed to the first
#' charge it makes to `budget` (budget_charge()): a mechanism run by
#' box_uncentred_call() on box rows charges them with its own steps. Set
#' only around the mechanism's call on values the package made (no caller
#' code runs before its charge), and restored on exit, so a nested call
#' neither takes nor clears another's.
#' @noRd
with_pending_bounds <- function(budget, g, expr) {
  if (is.null(g) || !inherits(budget, "dp_budget")) return(expr)
  old <- dpcov_state$pending_bounds
  dpcov_state$pending_bounds <- list(account = budget$account, g = g)
  on.exit(dpcov_state$pending_bounds <- old, add = TRUE)
  expr
}

#' A release charged to a budget must have an (epsilon, delta) guarantee for
#' the ledger to account: one made with the bounds of a dp_column_bounds()
#' release (guarantee `g`, bounds_release_guarantee()) has none when their
#' deltas, `g`'s restated under the release's notion (`neighbor`; NULL:
#' thresholding's own, never add/remove), reach 1 (compose_guarantees()).
#' Refused before the charge.
#' @noRd
refuse_void_bounds_budget <- function(budget, g, delta, neighbor) {
  if (is.null(budget) || is.null(g)) return(invisible())
  gb <- convert_guarantee(g$epsilon, g$delta, NA_real_, g$neighbor, neighbor %||% "replace-one")
  if (!is.null(gb) && !(delta + gb$delta < 1)) {
    abort_budget(paste0("`budget` cannot be charged: with the bounds of a dp_column_bounds() release (delta %s, ",
                        "%s under this release's notion) and delta = %s, the deltas add up to 1 or more, so the ",
                        "release has no (epsilon, delta) guarantee to account; nothing was charged and the data ",
                        "was not read. Give a smaller `delta`."),
                 format_privacy(g$delta), format_privacy(gb$delta), format_privacy(delta))
  }
  invisible()
}

#' Withdraws a charge made by this call when the call then fails on a shape
#' or argument check (only public facts: the data's dimensions) before any
#' noisy value exists: nothing was released, so nothing is spent. Once a
#' noisy value has been drawn (data_touches(): every draw of dpcov says so) a
#' failure may depend on that value, and on the data through it, so the
#' charge stands: refunding it would let the failures be replayed for free.
#' Only an error that ends `expr` withdraws the charge (an exiting handler):
#' a condition merely signalled inside it (by code the caller controls,
#' resumed by a restart or not an error at all) leaves the release running,
#' and its charge with it. The error is re-raised as it was, with the class
#' `dpcov_data_error` added when its charge stands. The charge's
#' rows are found by their ids, not their positions: a nested release on the
#' same budget may have moved them.
#' @noRd
with_refund <- function(budget, charge, expr) {
  if (is.null(charge)) return(expr)
  touches_before <- data_touches()
  ids <- check_budget(budget)$ledger$id[charge]
  tryCatch(expr, error = function(e) {
    # after a draw, or once a reader's pass began (an analyst's reader or SQL
    # can make it fail on what it read), a failure may depend on the data
    if (inherits(e, "dpcov_error") && !inherits(e, "dpcov_data_error")) {
      # a refusal whose charge stands is a data error, whatever its words:
      # one class says which refusals cost their charge
      if (identical(data_touches(), touches_before)) {
        withdraw_charge(budget, ids)
      } else {
        class(e) <- c("dpcov_data_error", class(e))
      }
    }
    stop(e)
  })
}

# Removes the ledger rows with these ids; a ledger that no longer validates
# (edited by hand meanwhile) keeps them.
withdraw_charge <- function(budget, ids) {
  acc <- tryCatch(check_budget(budget), error = function(e) NULL)
  if (is.null(acc)) return(invisible())
  ledger <- acc$ledger
  drop <- ledger$id %in% ids
  if (any(drop)) assign("ledger", ledger[!drop, , drop = FALSE], envir = acc$env)
  # the releases those rows charged are charged no more
  charged <- get0("release_charges", envir = acc$env, inherits = FALSE)
  if (is.numeric(charged) && any(charged %in% ids)) {
    assign("release_charges", charged[!charged %in% ids], envir = acc$env)
  }
  invisible()
}

# An error of `expr` that depends on the data's values (a reader's failure,
# a missing value in its block) is re-raised as a dpcov_data_error, whose
# charge with_refund() never withdraws: an analyst who writes the reader or
# its SQL could otherwise test values for free, failing on purpose.
as_data_error <- function(expr) {
  tryCatch(expr, dpcov_error = function(e) {
    class(e) <- unique(c("dpcov_data_error", class(e)))
    stop(e)
  })
}

# The package's session state: `touches` counts the draws from R's RNG made
# in R (note_draw()) and the passes begun over a reader (reader_read());
# data_touches() adds the C++ exports' draws (dpcov::note_draw()). A failure
# with the total unchanged since the charge cannot depend on the data's
# values (with_refund()). R's RNG state itself is never read.
dpcov_state <- new.env(parent = emptyenv())
dpcov_state$touches <- 0

note_draw <- function() {
  dpcov_state$touches <- dpcov_state$touches + 1
  invisible()
}

# a pass begun over a reader counts as a draw does
reader_read <- note_draw

data_touches <- function() dpcov_state$touches + draw_calls_cpp()

#' Totals of a ledger (see ?dp_budget, "Composition rule"), every charge
#' first restated under the budget's notion `to`. The charges of one release
#' (one `group`) compose as the release states, by the smaller of basic
#' composition and zCDP for its Gaussian steps (release_epsilon()); the
#' releases compose by the budget's `composition`: basic (epsilons and deltas
#' add) or zCDP (the rhos add, every charge's rho: a pure step's
#' epsilon^2 / 2; converted at the budget's delta, `delta_budget`).
#' @noRd
compose_ledger <- function(ledger, to, composition = "basic", delta_budget = 0) {
  # plain vectors: assigning into the data frame's columns row by row copied
  # them each time (a loop of releases on one budget grew quadratically)
  epsilon <- ledger$epsilon
  delta_i <- ledger$delta
  rho_i <- ledger$rho
  for (i in seq_along(epsilon)) {
    g <- convert_guarantee(epsilon[i], delta_i[i], rho_i[i], ledger$neighbor[i], to)
    if (is.null(g)) abort("internal: the ledger holds a charge under %s that a %s budget cannot account.",
                          ledger$neighbor[i], to)
    epsilon[i] <- g$epsilon
    delta_i[i] <- g$delta
    rho_i[i] <- g$rho
  }
  groups <- split(seq_along(epsilon), match(ledger$group, unique(ledger$group)))
  eps_g <- vapply(groups, function(i) release_epsilon(epsilon[i], delta_i[i], rho_i[i]), numeric(1))
  delta_g <- vapply(groups, function(i) sum(delta_i[i]), numeric(1))
  eps_basic <- sum(eps_g)
  delta_basic <- sum(delta_g)
  # every charge's zCDP guarantee: its rho, or for a pure step epsilon^2 / 2
  # (Bun and Steinke 2016, Proposition 1.4); NA when one has none
  rho <- sum(ifelse(is.na(rho_i) & delta_i == 0, epsilon^2 / 2, rho_i))
  eps_zcdp <- if (!length(epsilon)) 0 else if (is.na(rho) || !(delta_budget > 0)) Inf else zcdp_epsilon(rho, delta_budget)
  zcdp <- composition == "zCDP"
  list(epsilon = if (zcdp) eps_zcdp else eps_basic,
       delta = if (!zcdp) delta_basic else if (length(epsilon)) delta_budget else 0,
       composition = composition, epsilon_basic = eps_basic, delta_basic = delta_basic,
       epsilon_zcdp = eps_zcdp, rho = rho)
}

#' The totals of a budget's account `acc` (check_budget()), of its ledger or
#' of the rows `ledger` composed as that account composes them.
#' @noRd
compose_account <- function(acc, ledger = acc$ledger) {
  compose_ledger(ledger, acc$neighbor, acc$composition, acc$delta)
}

#' The epsilon of one release's charges (restated): the smaller of basic
#' composition and zCDP for the steps with a rho (converted at their deltas'
#' sum) plus basic composition for the others. Both are valid for steps whose
#' parameters the call fixed before it read the data; at a total delta of 1
#' or more the conversion says nothing, and the basic total stands.
#' @noRd
release_epsilon <- function(epsilon, delta, rho) {
  basic <- sum(epsilon)
  gauss <- !is.na(rho)
  if (!any(gauss) || !(sum(delta) < 1)) return(basic)
  # remembered by its arguments: every charge, print() and budget_spent()
  # compose the whole ledger, and each conversion is a numerical search
  key <- paste(sprintf("%a", c(epsilon, delta, rho)), collapse = ",")
  hit <- release_epsilon_memo[[key]]
  if (!is.null(hit)) return(hit)
  out <- min(basic, zcdp_epsilon(sum(rho[gauss]), sum(delta[gauss])) + sum(epsilon[!gauss]))
  if (length(release_epsilon_memo) > 1e5) rm(list = ls(release_epsilon_memo), envir = release_epsilon_memo)
  assign(key, out, envir = release_epsilon_memo)
  out
}
release_epsilon_memo <- new.env(hash = TRUE, parent = emptyenv())

# How a budget's composition is named in its messages.
budget_composition_words <- function(composition) if (composition == "zCDP") "zCDP" else "basic composition"

#' The smallest epsilon such that rho-zCDP implies (epsilon, delta)-DP by the
#' conversion of Canonne, Kamath and Steinke (2020, Corollary 13):
#' inf over alpha > 1 of alpha rho + (log(1/delta) + (alpha - 1) log(1 - 1/alpha)
#' - log(alpha)) / (alpha - 1). Minimised over u = log(alpha - 1), around Bun
#' and Steinke's optimum alpha = 1 + sqrt(log(1/delta) / rho).
#' @noRd
zcdp_epsilon <- function(rho, delta) {
  if (rho <= 0) return(0)
  if (delta >= 1) return(0)
  # rho-zCDP gives no (epsilon, 0)-DP bound below infinity
  if (delta <= 0) return(Inf)
  L <- -log(delta)  # (log(1 / delta) overflows for a subnormal delta)
  # delta within about 1e-12 of 1: Bun and Steinke's bound (about rho), where
  # the objective below is 0 / 0 at its starting point
  if (L < 1e-12) return(max(0, rho + 2 * sqrt(rho * L)) * (1 + 1e-9))
  f <- function(u) {
    a <- 1 + exp(u)
    am1 <- a - 1  # exact: the objective is evaluated at the one alpha = a
    # log(1 - 1/alpha) by log1p(): (alpha - 1) (u - log(alpha)) cancelled
    # catastrophically at large alpha (small epsilon) and came out low
    v <- a * rho + (L + am1 * log1p(-1 / a) - log(a)) / am1
    if (is.finite(v)) v else .Machine$double.xmax  # an overflowed end of the search: never the minimum
  }
  u0 <- 0.5 * (log(L) - log(rho))
  opt <- stats::optimize(f, c(u0 - 30, u0 + 30), tol = 1e-10)
  # the bound is never worse than Bun and Steinke's (the same alpha without
  # the negative terms); rounded up, as gaussian_mechanism_epsilon(), so that
  # the rounding of the arithmetic never states less than the bound
  max(0, min(opt$objective, rho + 2 * sqrt(rho * L))) * (1 + 1e-9)
}

#' @export
print.dp_budget <- function(x, ...) {
  acc <- check_budget(x, "x")
  tot <- compose_account(acc)
  # privacy figures through format_privacy(): the same digits and decimal
  # mark whatever the options, spent rounded up and left rounded down
  fp <- format_privacy
  cat(sprintf("<dp_budget> total (epsilon, delta) = (%s, %s) under %s, by %s; %d charge(s) in %d release(s)\n",
              fp(acc$epsilon), fp(acc$delta), neighbor_words(acc$neighbor), budget_composition_words(acc$composition),
              nrow(acc$ledger), length(unique(acc$ledger$group))))
  if (!is.null(account_copy_problem(acc))) cat_wrapped("Note:", copy_words)
  if (nrow(acc$ledger)) {
    led <- acc$ledger
    # a charge is restated where convert_guarantee() changes it (group privacy)
    restated <- vapply(led$neighbor, function(n) !identical(convert_guarantee(1, 0, 1, n, acc$neighbor)$epsilon, 1), TRUE)
    if (any(restated)) {
      cat("Charges under another notion are restated under the budget's (see ?dp_budget) before they are added.\n")
    }
    show <- data.frame(release = release_numbers(led$group), what = led$what,
                       when = format(led$when, "%Y-%m-%d %H:%M:%S"), neighbor = led$neighbor,
                       epsilon = fp(led$epsilon), delta = fp(led$delta), rho = fp(led$rho), stringsAsFactors = FALSE)
    rownames(show) <- seq_len(nrow(show))
    print(show, right = FALSE)
  }
  if (acc$composition == "zCDP") {
    rho_b <- zcdp_rho(acc$epsilon, acc$delta)
    cat(sprintf("Spent (zCDP): rho = %s of the budget's %s; as (epsilon, delta)-DP at the budget's delta: (%s, %s)\n",
                fp(tot$rho), fp(rho_b, up = FALSE), fp(tot$epsilon), fp(tot$delta)))
    cat(sprintf("Left: rho = %s; epsilon = %s at delta = %s\n", fp(rho_b - tot$rho, up = FALSE),
                fp(acc$epsilon - tot$epsilon, up = FALSE), fp(acc$delta)))
  } else {
    cat(sprintf("Spent (basic composition of the releases): epsilon = %s, delta = %s\n", fp(tot$epsilon), fp(tot$delta)))
    cat(sprintf("Left: epsilon = %s, delta = %s\n", fp(acc$epsilon - tot$epsilon, up = FALSE),
                fp(acc$delta - tot$delta, up = FALSE)))
  }
  invisible(x)
}

# The releases of a ledger numbered 1, 2, ... in their order (from the
# groups' internal ids).
release_numbers <- function(group) match(group, unique(group))

#' @rdname dp_budget
#' @param x,object A `dp_budget`.
#' @param row.names,optional `as.data.frame()`: as in [base::as.data.frame()]
#'   (`row.names` one distinct name per row of the ledger, else a classed
#'   error; `optional` `TRUE` or `FALSE`).
#' @return `as.data.frame()`: the ledger, one row per charge as made
#'   (`release`, the number of the release it belongs to, in order; `what`,
#'   `when`, `neighbor`, `epsilon`, `delta`, `rho`, NA for charges without a
#'   zCDP guarantee recorded). `summary()`: a data frame of the totals by
#'   basic composition and by zCDP (the one the budget does not stop by is
#'   shown for comparison only: see "Composition rule"), the reported total,
#'   the budget and what is left.
#' @export
as.data.frame.dp_budget <- function(x, row.names = NULL, optional = FALSE, ...) {
  acc <- check_budget(x, "x")
  led <- acc$ledger
  rownames(led) <- NULL
  led <- cbind(release = release_numbers(led$group), led)
  led$id <- NULL  # internal: identifies a charge for its withdrawal
  led$group <- NULL
  data_frame_args(led, row.names, optional, ...)
}

#' @rdname dp_budget
#' @export
summary.dp_budget <- function(object, ...) {
  acc <- check_budget(object, "object")
  tot <- compose_account(acc)
  zcdp <- acc$composition == "zCDP"
  rho_b <- if (zcdp) zcdp_rho(acc$epsilon, acc$delta) else NA_real_
  data.frame(total = c("basic composition", "zCDP", sprintf("reported (%s)", budget_composition_words(acc$composition)),
                       "budget", "left"),
             epsilon = c(tot$epsilon_basic, tot$epsilon_zcdp, tot$epsilon, acc$epsilon, acc$epsilon - tot$epsilon),
             delta = c(tot$delta_basic, if (nrow(acc$ledger)) acc$delta else 0, tot$delta, acc$delta,
                       if (zcdp) NA else acc$delta - tot$delta),
             rho = c(NA, tot$rho, if (zcdp) tot$rho else NA, rho_b, rho_b - tot$rho), stringsAsFactors = FALSE)
}

# The clip bound a release will use, known before the data is read: the
# argument, or that of the sufficient statistics passed as `x` (validated as
# the mechanism would; a chunk reader is not called).
budget_clip <- function(x, clip) {
  if (inherits(x, "dp_suffstat")) return(check_suffstat(x)$clip)
  if (is.null(clip)) abort("`clip` (the row-norm bound B) is required; use Inf for none.", .arg = "clip")
  check_clip(clip)
}

#' The largest rho whose conversion zcdp_epsilon(rho, delta) is at most
#' `epsilon` (the inverse of zcdp_epsilon(), which increases with rho), found
#' by bisection on log rho and rounded down so that the conversion of the
#' result never exceeds epsilon.
#' @noRd
zcdp_rho <- function(epsilon, delta) {
  lo <- log(1e-30)
  hi <- log(epsilon) + 1
  for (i in 1:200) {
    mid <- (lo + hi) / 2
    if (zcdp_epsilon(exp(mid), delta) <= epsilon) lo <- mid else hi <- mid
    if (hi - lo < 1e-12) break
  }
  exp(lo)
}
