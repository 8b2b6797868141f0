# A table-driven bad-input sweep of every export and every registered S3
# method. Each entry of sweep_specs() is one valid baseline call; every
# argument has a role, and sweep_calls() mutates the baseline once per
# (argument, hostile value of its role). sweep_run() runs the calls in a
# persistent child R session (callr::r_session) so that a crash or a hang is
# recorded, and the session is restarted, instead of killing the run.
#
# Outcomes of one call:
#   classed   dpcov_error whose $arg (or message) names the mutated argument
#   accepted  returned, and the result passed the sanity check (only allowed
#             where the hostile value may be valid)
#   misnamed  dpcov_error naming another argument
#   plain     an error that is not a dpcov_error
#   silent    returned although the value is invalid, or returned garbage
#   refused   error although the value is valid (e.g. integer input)
#   crash     the child process died
#   hang      no answer within the time limit
# Only classed and accepted pass.

sweep_bad_outcomes <- c("misnamed", "plain", "silent", "refused", "crash", "hang")

# ---- hostile values by role ------------------------------------------------------

# h(name, value, expect): expect "error" (must be a classed error), "ok" (must
# succeed and be sane), "na" (must succeed; missing values that follow from the
# input's are expected) or "either".
sweep_h <- function(name, value, expect = "error") list(name = name, value = value, expect = expect)

# A role: its kind plus whatever the generator needs (choices, fields).
sweep_role <- function(kind, ...) list(kind = kind, ...)

sweep_scalar_common <- function(base) {
  list(sweep_h("NA", NA_real_), sweep_h("NaN", NaN), sweep_h("Inf", Inf), sweep_h("-Inf", -Inf),
       sweep_h("NULL", NULL), sweep_h("character", "1"), sweep_h("factor", factor(1)),
       sweep_h("list", list(1)), sweep_h("complex", 1i), sweep_h("zero-length", numeric(0)),
       sweep_h("two values", c(base, base)), sweep_h("logical", TRUE),
       sweep_h("1x1 matrix", matrix(base), "either"))
}

sweep_modify <- function(obj, ...) {
  mods <- list(...)
  for (nm in names(mods)) obj[nm] <- list(mods[[nm]])
  obj
}

sweep_drop <- function(obj, field) {
  cl <- class(obj)
  at <- attributes(obj)
  obj <- unclass(obj)
  obj[[field]] <- NULL
  if (is.data.frame(structure(list(), class = cl))) {
    return(structure(obj, class = cl, row.names = at$row.names))
  }
  structure(obj, class = cl)
}

sweep_hostile <- function(role, base) {
  k <- role$kind
  switch(k,
    epsilon = c(sweep_scalar_common(base), list(
      sweep_h("zero", 0), sweep_h("negative", -1), sweep_h("absurdly small", 1e-300),
      sweep_h("absurdly large", 1e300), if (!identical(role$int, "skip")) sweep_h("integer", 1L, role$int %||% "either"))),
    delta = c(sweep_scalar_common(base), list(
      # (0 is a valid total for a pure-DP budget: role `zero = "ok"`)
      sweep_h("zero", 0, role$zero %||% "error"), sweep_h("one", 1), sweep_h("above one", 1.5), sweep_h("negative", -0.1),
      sweep_h("subnormal", 1e-320))),
    clip = c(sweep_scalar_common(base)[-3], list(
      sweep_h("Inf", Inf, "either"), sweep_h("zero", 0), sweep_h("negative", -1),
      sweep_h("absurdly large", 1e300), sweep_h("absurdly small", 1e-300),
      sweep_h("integer", as.integer(ceiling(base)), if (is.finite(base)) "ok" else "either"))),
    count = c(sweep_scalar_common(base), list(
      sweep_h("zero", 0, "either"), sweep_h("negative", -1), sweep_h("fraction", 1.5),
      sweep_h("huge", 1e15, "either"), sweep_h("integer", as.integer(base), "ok"))),
    number = c(if (isTRUE(role$null_ok)) {
      # NULL is a valid value (a default chosen by the function)
      lapply(sweep_scalar_common(base), function(h) if (h$name == "NULL") sweep_h("NULL", NULL, "ok") else h)
    } else sweep_scalar_common(base), list(
      sweep_h("negative", -1, "either"), sweep_h("zero", 0, "either"),
      sweep_h("absurdly large", 1e300, "either"),
      sweep_h("integer", as.integer(round(base)), if (isTRUE(role$int_ok)) "ok" else "either"))),
    choice = list(
      sweep_h("NA", NA_character_), sweep_h("unknown", "bogus"),
      sweep_h("two valid choices", role$choices[1:2]), sweep_h("number", 1), sweep_h("NULL", NULL),
      sweep_h("zero-length", character(0)), sweep_h("factor", factor(base)), sweep_h("logical", TRUE)),
    flag = list(
      sweep_h("NA", NA), sweep_h("string", "TRUE"), sweep_h("number", 1), sweep_h("two", c(TRUE, FALSE)),
      # NULL: an error, or a valid value (an automatic choice) with null_ok
      sweep_h("NULL", NULL, if (isTRUE(role$null_ok)) "ok" else "error"), sweep_h("zero-length", logical(0)),
      sweep_h("factor", factor(TRUE)), sweep_h("list", list(TRUE))),
    data = {
      b <- as.matrix(base)
      na <- b; na[1, 1] <- NA
      nan <- b; nan[1, 1] <- NaN
      inf <- b; inf[1, 1] <- Inf
      int <- b; int[] <- round(3 * b); storage.mode(int) <- "integer"
      fdf <- as.data.frame(b); fdf[[1]] <- factor(round(b[, 1]))
      # a missing entry: an error, or (na_ok: predict() of a PCA) an NA row of scores
      list(sweep_h("NULL", NULL), sweep_h("NA entry", na, if (isTRUE(role$na_ok)) "na" else "error"),
           sweep_h("NaN entry", nan, if (isTRUE(role$na_ok)) "na" else "error"),
           sweep_h("Inf entry", inf), sweep_h("character", matrix(as.character(b), nrow(b))),
           sweep_h("factor", factor(b[, 1])), sweep_h("list", as.list(b[1, ])),
           sweep_h("complex", b + 0i),
           # no rows is a data set (under add/remove n is private, so it is released); refused where n is public
           sweep_h("0 rows", b[0, , drop = FALSE], "either"),
           sweep_h("0 columns", b[, 0, drop = FALSE]), sweep_h("1 x 1", matrix(1), "either"),
           sweep_h("zero-length", numeric(0), "either"), sweep_h("overflow when squared", b * 1e200, "either"),
           sweep_h("string", "a"), sweep_h("integer", int, role$int %||% "ok"),
           sweep_h("factor column", fdf), sweep_h("NA scalar", NA))
    },
    spd = {
      p <- nrow(base)
      asym <- base; asym[1, p] <- asym[1, p] + 1
      list(sweep_h("NULL", NULL), sweep_h("non-square", matrix(1, p, p + 1)),
           sweep_h("asymmetric", asym), sweep_h("not PD", -base), sweep_h("NA entry", replace(base, 1, NA)),
           sweep_h("0 x 0", matrix(0, 0, 0)), sweep_h("1 x 1", matrix(2), "either"),
           sweep_h("overflow when squared", base * 1e200), sweep_h("character", matrix("a", p, p)),
           sweep_h("list", as.list(base)), sweep_h("Inf entry", replace(base, 1, Inf)))
    },
    sym = {
      p <- nrow(base)
      asym <- base; asym[1, p] <- asym[1, p] + 1
      list(sweep_h("NULL", NULL), sweep_h("non-square", matrix(1, p, p + 1)),
           sweep_h("asymmetric", asym, role$asym %||% "error"), sweep_h("NA entry", replace(base, 1, NA)),
           sweep_h("0 x 0", matrix(0, 0, 0)), sweep_h("1 x 1", matrix(2), "either"),
           sweep_h("overflow when squared", base * 1e200, "either"), sweep_h("character", matrix("a", p, p)),
           sweep_h("list", as.list(base)), sweep_h("Inf entry", replace(base, 1, Inf)),
           sweep_h("data frame", as.data.frame(base), "either"))
    },
    vector = list(
      sweep_h("NULL", NULL), sweep_h("NA", c(base, NA)), sweep_h("NaN", NaN), sweep_h("Inf", Inf),
      sweep_h("negative", -1), sweep_h("fraction", base[1] + 0.5, role$fraction %||% "error"),
      sweep_h("character", as.character(base)), sweep_h("zero-length", numeric(0)),
      sweep_h("list", as.list(base)), sweep_h("complex", base + 0i), sweep_h("huge", 1e15, "either"),
      sweep_h("matrix", matrix(base), "either"), sweep_h("integer", as.integer(base), role$int %||% "ok")),
    release = {
      est <- base$estimate
      nonsq <- est[, -1, drop = FALSE]
      asym <- est; asym[1, ncol(est)] <- asym[1, ncol(est)] + 1
      list(sweep_h("NULL", NULL), sweep_h("string", "a"),
           if (!identical(role$matrix, "skip")) sweep_h("matrix, wrong shape", matrix(1, 2, 3), role$matrix %||% "error"),
           sweep_h("wrong-shaped estimate", sweep_modify(base, estimate = matrix(1, 2, 3)), role$wrong_shape %||% "error"),
           sweep_h("0 x 0 estimate", sweep_modify(base, estimate = matrix(0, 0, 0))),
           sweep_h("NA in estimate", sweep_modify(base, estimate = replace(est, 1, NA))),
           sweep_h("character estimate", sweep_modify(base, estimate = matrix("a", 2, 2))),
           sweep_h("NA p", sweep_modify(base, p = NA)), sweep_h("NA clip", sweep_modify(base, clip = NA)),
           sweep_h("NA neighbor", sweep_modify(base, neighbor = NA_character_)),
           sweep_h("NA mechanism", sweep_modify(base, mechanism = NA)),
           sweep_h("negative epsilon", sweep_modify(base, epsilon = -1)),
           sweep_h("NULL params", sweep_modify(base, params = NULL)),
           sweep_h("no fields", structure(list(), class = class(base))),
           sweep_h("unclassed", unclass(base)),
           if (isTRUE(role$square)) sweep_h("non-square estimate", sweep_modify(base, estimate = nonsq, p = ncol(nonsq))),
           if (isTRUE(role$square)) sweep_h("asymmetric estimate", sweep_modify(base, estimate = asym)))
    },
    suffstat = {
      g <- base$gram
      asym <- g; asym[1, ncol(g)] <- asym[1, ncol(g)] + 1
      list(sweep_h("asymmetric gram", sweep_modify(base, gram = asym)),
           sweep_h("NA n", sweep_modify(base, n = NA)), sweep_h("negative diagonal", sweep_modify(base, gram = -g)),
           sweep_h("0 x 0 gram", sweep_modify(base, gram = matrix(0, 0, 0), p = 0)),
           sweep_h("NA clip", sweep_modify(base, clip = NA)), sweep_h("character gram", sweep_modify(base, gram = "a")),
           sweep_h("no fields", structure(list(), class = class(base))))
    },
    group = list(
      sweep_h("NULL", NULL), sweep_h("wrong length", base[-1]), sweep_h("NA label", replace(base, 1, NA)),
      sweep_h("one class", rep(base[1], length(base))), sweep_h("list", as.list(base)),
      sweep_h("complex", as.complex(seq_along(base))), sweep_h("matrix", matrix(as.character(base)), "either")),
    fun = list(
      sweep_h("function that fails", function(...) stop("boom")),
      sweep_h("function returning junk", function(...) "junk"),
      sweep_h("function returning NA matrix", function(...) matrix(NA_real_, 2, 2)),
      # a reader over no rows: its columns, then NULL (noise under add/remove, refused where n is public)
      sweep_h("reader over no rows", local({
        k <- 0
        function(...) {
          k <<- k + 1
          if (k %% 2 == 1) matrix(numeric(0), 0, 2) else NULL
        }
      }), "either"),
      sweep_h("number", 42, role$number %||% "error"), sweep_h("NULL", NULL, role$null %||% "error")),
    dir = list(
      sweep_h("NA", NA_character_), sweep_h("missing directory", file.path(tempdir(), "no-such-dir")),
      sweep_h("two paths", c(base, base)), sweep_h("number", 1), sweep_h("NULL", NULL),
      sweep_h("empty string", ""), sweep_h("directory without data", tempdir())),
    # hand-made objects of a package class: each listed field removed, NA, or junk
    object = {
      out <- list(sweep_h("NULL", NULL), sweep_h("string", "a"),
                  sweep_h("no fields", structure(list(), class = class(base))))
      for (f in role$fields) {
        out <- c(out, list(
          sweep_h(paste0("no ", f), sweep_drop(base, f)),
          sweep_h(paste0("NA ", f), sweep_set(base, f, NA)),
          sweep_h(paste0("junk ", f), sweep_set(base, f, list("junk")))))
      }
      out
    },
    custom = role$values,
    stop("unknown role ", k))
}

`%||%` <- function(a, b) if (is.null(a)) b else a

# The classes whose results store no call: update() refuses every call
# (test-methods.R), so the sweep has no baseline for them
update_refusers <- c("threshold_cv", "threshold_tune", "dp_budget", "dp_suffstat", "pooled_cov", "compressed_cov",
                     "combo_data", "combo_features", "ldp_reports", "dp_coefficients", "dp_reader", "dp_diagnostics",
                     "compression_alpha", "study_summary", "dp_study", "summary.dp_release", "summary.dp_lm",
                     "summary.dp_pca")

# update() of an object: a call with placeholders, or none, is refused
# (evaluate = FALSE: the call, not a new release)
update_spec <- function(obj, label) {
  sweep_spec("update", list(object = obj, evaluate = FALSE),
             list(object = sweep_role("custom", values = list(
               sweep_h("no call", sweep_drop(obj, "call")), sweep_h("NA call", sweep_set(obj, "call", NA)),
               sweep_h("junk call", sweep_set(obj, "call", list("junk"))),
               sweep_h("placeholder data", sweep_set(obj, "call", quote(f(x = `<data>`)))))),
                  evaluate = sweep_role("flag")),
             label = label)
}

sweep_set <- function(obj, field, value) {
  obj[field] <- list(value)
  obj
}

# ---- the table of baselines ---------------------------------------------------------

sweep_spec <- function(fun, args, roles, label = fun) list(fun = fun, args = args, roles = roles, label = label)

# Entries that need the COMBO data directory (skipped without it).
sweep_data_dependent <- c("combo_read", "combo_preprocess", "combo_select", "print.combo_data",
                          "print.combo_features")

sweep_combo_dir <- function() {
  d <- Sys.getenv("DPCOV_COMBO_DIR", "")
  if (nzchar(d) && dir.exists(d)) return(d)
  if (dir.exists("/work/shared/data")) return("/work/shared/data")
  NULL
}

# The child's SQLite connection, made where it is used (see second_moment_db).
sweep_db_conn <- function(closed = FALSE) {
  substitute(local({
    con <- DBI::dbConnect(RSQLite::SQLite(), ":memory:")
    DBI::dbWriteTable(con, "t", data.frame(a = c(1, 2, 3, 0.5), b = c(0.5, -1, 2, 1)))
    if (CLOSED) DBI::dbDisconnect(con)
    con
  }), list(CLOSED = closed))
}

sweep_db_roles <- function() {
  R <- sweep_role
  list(conn = R("custom", values = list(
         sweep_h("NULL", NULL), sweep_h("string", "a"), sweep_h("number", 1), sweep_h("list", list()),
         sweep_h("data frame", data.frame(a = 1)), sweep_h("closed connection", sweep_db_conn(closed = TRUE)))),
       table = R("custom", values = list(
         sweep_h("NA", NA_character_), sweep_h("empty", ""), sweep_h("no such table", "no_such"),
         sweep_h("number", 1), sweep_h("two", c("t", "t")), sweep_h("list", list("t")), sweep_h("factor", factor("t")))),
       columns = R("custom", values = list(
         sweep_h("unknown", "zz"), sweep_h("twice", c("a", "a")), sweep_h("number", 1), sweep_h("NA", NA_character_),
         sweep_h("zero-length", character(0)), sweep_h("logical", TRUE), sweep_h("one", "b", "ok"))),
       query = R("custom", values = list(
         sweep_h("not SQL", "SELEC a FROM t"), sweep_h("number", 1), sweep_h("two", c("SELECT a FROM t", "x")),
         sweep_h("NA", NA_character_), sweep_h("empty", ""))),
       na = sweep_role("choice", choices = c("error", "zero")))
}

sweep_csv_file <- function() {
  f <- file.path(tempdir(), "dpcov-sweep.csv")
  writeLines(c("a,b,c", "1,2,3", "0.5,-1,2", "3,0,1"), f)
  f
}

sweep_specs <- function() {
  sweep_csv <- sweep_csv_file()
  R <- sweep_role
  EPS <- R("epsilon"); DEL <- R("delta"); CLIP <- R("clip"); CNT <- R("count"); NUM <- R("number")
  FLAG <- R("flag"); DATA <- R("data")
  CH <- function(...) R("choice", choices = c(...))
  set.seed(1)
  x <- matrix(stats::rnorm(60), 20, 3)
  x4 <- matrix(stats::rnorm(160), 40, 4) / 2
  S <- crossprod(matrix(stats::rnorm(30), 10, 3)) / 10
  g <- factor(rep(c("lean", "obese"), c(12, 8)))
  rel <- dpcov::analyze_gauss(x, 0.5, 1e-5, clip = 2)
  ss <- dpcov::second_moment(x, clip = 2)
  reps_ldp <- dpcov::ldp_perturb(x4, epsilon = 0.5, delta = 1e-3, clip = 1)
  comp_x <- matrix(stats::rnorm(600), 200, 3)
  comp <- suppressWarnings(dpcov::dp_compress(comp_x, m = 60))
  lm_x <- cbind(comp_x, y = drop(comp_x %*% c(1, -1, 0.5)) + stats::rnorm(200))
  comp_lm <- suppressWarnings(dpcov::dp_compress(lm_x, m = 60))
  fit <- dpcov::qda_plugin(x, g)
  lm_d <- data.frame(x1 = stats::rnorm(200), x2 = stats::rnorm(200))
  lm_d$y <- 1 + lm_d$x1 + stats::rnorm(200)
  lm_A <- cbind("(Intercept)" = 1, as.matrix(lm_d))
  lm_fit <- suppressWarnings(dpcov::dp_lm(y ~ x1 + x2, lm_d, epsilon = 1, delta = 1e-5, clip = 5, B = 10))
  lm_fit_public <- suppressWarnings(dpcov::dp_lm(y ~ x1, lm_d, epsilon = 1, delta = 1e-5, clip = 5, B = 10,
                                                 neighbor = "replace-one"))
  cvx <- x4
  tcv <- dpcov::threshold_cv(cvx, epsilon = 0.5, delta = 1e-3, clip = 1, folds = 3)
  tt <- dpcov::threshold_tune("public", folds = 3, public = x4)
  feats <- list(x = rbind(matrix(stats::rnorm(60), 20), matrix(stats::rnorm(30, 1), 10)),
                group = factor(rep(c("lean", "obese"), c(20, 10))))
  est_np <- dpcov::qda_estimators(private = FALSE)
  qst <- dpcov::qda_study(feats, est_np, p = 2, reps = 2, n_test = c(lean = 4, obese = 2))
  cst <- suppressWarnings(dpcov::compression_pca_study(comp_x, m = 60, dim = 1, reps = 2))
  pca <- dpcov::dp_pca(rel)
  pca_c <- dpcov::dp_pca(comp)
  PCA_OBJ <- R("object", fields = c("sdev", "rotation", "units", "guarantee", "per_row", "n_negative"))
  study_junk <- function(st, col) R("custom", values = list(
    sweep_h(paste("character", col), do.call(sweep_modify, c(list(st), stats::setNames(list("a"), col)))),
    sweep_h("no fields", structure(list(), class = class(st))),
    sweep_h("string", structure("a", class = class(st)))))
  settings <- data.frame(cov = "model2", dist = "gaussian", p = 4, n = 30, epsilon = 0.5, delta = 0.01)
  rst <- dpcov::run_study(settings, reps = 1, tune = "theory")
  sst <- dpcov::sheffet_study("single", n = 2^7, epsilon = 0.5, reps = 2, p = 2)
  bnd <- dpcov::dp_clip_bound(x, 0.5)
  cbnd <- dpcov::dp_column_bounds(x, 0.5)
  sdir <- sweep_combo_dir()
  cdata <- if (!is.null(sdir)) dpcov::combo_read(sdir)
  cfeat <- if (!is.null(cdata)) dpcov::combo_preprocess(cdata)
  beta <- matrix(c(1, -1, 0.5), 3, 1)
  nbr <- CH("replace-one", "add-remove", "zero-out")
  cal <- CH("analytic", "classic")
  tune_junk <- R("custom", values = list(
    sweep_h("NULL", NULL), sweep_h("NA", NA), sweep_h("unknown string", "bogus"),
    sweep_h("two strings", c("cv", "theory")), sweep_h("negative constant", -1),
    sweep_h("NA constant", NA_real_), sweep_h("public matrix with NA", replace(x4, 1, NA)),
    sweep_h("list", list(1)), sweep_h("junk threshold_tune", structure(list(method = 5), class = "threshold_tune")),
    sweep_h("threshold_tune with NA folds", structure(list(method = "cv", folds = NA), class = "threshold_tune")),
    sweep_h("threshold_tune fixed without constant", structure(list(method = "fixed"), class = "threshold_tune")),
    sweep_h("threshold_tune as a string", structure("cv", class = "threshold_tune")),
    sweep_h("function", function() 1)))
  release_sq <- R("release", square = TRUE)
  dp_cov_rel <- dpcov::dp_cov(x, 1, 1e-6, clip = 2, clip_mean = 3)
  bud <- dpcov::dp_budget(100, 0.5)
  dpcov::analyze_gauss(x, 0.5, 1e-5, clip = 2, budget = bud)  # a ledger with one charge
  # a budget sent to the sweep's worker process is a copy, which dpcov refuses
  # to charge; the worker makes its own with the same ledger (sweep_child())
  attr(bud, "sweep_recreate") <- TRUE
  BUDGET <- R("object", fields = c("account"))
  # per-column bounds: 3 unnamed columns (x), or named ones (xn)
  xn <- x
  colnames(xn) <- c("a", "b", "c")
  xn_bounds <- data.frame(lower = c(-3, -3, -3), upper = c(3, 3, 3), row.names = c("a", "b", "c"))
  bound_common <- list(sweep_h("NA", NA_real_), sweep_h("NaN", NaN), sweep_h("Inf", Inf), sweep_h("-Inf", -Inf),
                       sweep_h("NULL", NULL), sweep_h("character", "1"), sweep_h("factor", factor(1)),
                       sweep_h("list", list(1)), sweep_h("complex", 1i), sweep_h("zero-length", numeric(0)),
                       sweep_h("wrong length", c(-3, 3)), sweep_h("named, no such column", c(zz = 1)),
                       sweep_h("matrix", matrix(0, 1, 3)), sweep_h("absurdly large", 1e300),
                       sweep_h("integer", 0L, "either"), sweep_h("one per column", c(0, 0, 0), "either"))
  BOUND_LO <- R("custom", values = c(bound_common, list(sweep_h("above upper", 5), sweep_h("equal to upper", 3))))
  BOUND_HI <- R("custom", values = c(bound_common, list(sweep_h("below lower", -5), sweep_h("equal to lower", -3))))
  BOUNDS <- R("custom", values = list(
    sweep_h("NA", NA), sweep_h("string", "a"), sweep_h("number", 1), sweep_h("empty list", list()),
    sweep_h("unnamed list", list(c(0, 1), c(0, 1), c(0, 1))), sweep_h("pair of one number", list(a = 1, b = c(0, 1), c = c(0, 1))),
    sweep_h("NA pair", list(a = c(NA, 1), b = c(0, 1), c = c(0, 1))),
    sweep_h("reversed pair", list(a = c(1, 0), b = c(0, 1), c = c(0, 1))),
    sweep_h("frame without lower", data.frame(lo = 1, upper = 2)),
    sweep_h("frame with character", data.frame(lower = "a", upper = "b")),
    sweep_h("frame, unknown row", data.frame(lower = 0, upper = 1, row.names = "zz")),
    sweep_h("list, unknown name", list(zz = c(0, 1))),
    sweep_h("list with a matrix", list(a = matrix(c(0, 1), 1), b = c(0, 1), c = c(0, 1))),
    sweep_h("NULL", NULL, "either")))

  specs <- list(
    sweep_spec("analyze_gauss", list(x = x, epsilon = 0.5, delta = 1e-5, clip = 2),
               list(x = DATA, epsilon = EPS, delta = DEL, clip = CLIP)),
    sweep_spec("analyze_gauss", list(x = x, epsilon = 0.5, delta = 1e-5, clip = 2, neighbor = "add-remove",
                                     calibration = "analytic", post = "shift"),
               list(neighbor = nbr, calibration = cal, post = CH("none", "shift", "psd")),
               label = "analyze_gauss (options)"),
    sweep_spec("analyze_gauss", list(x = x, epsilon = 0.5, delta = 1e-5, clip = Inf, sigma_clip_inf = 2),
               list(sigma_clip_inf = CLIP), label = "analyze_gauss (clip = Inf)"),
    sweep_spec("analyze_gauss", list(x = ss, epsilon = 0.5, delta = 1e-5),
               list(x = R("suffstat")), label = "analyze_gauss (dp_suffstat)"),
    sweep_spec("analyze_gauss", list(x = x, epsilon = 0.5, delta = 1e-5, clip = 2, budget = bud),
               list(budget = BUDGET), label = "analyze_gauss (budget)"),
    sweep_spec("dp_budget", list(epsilon = 1, delta = 1e-5, neighbor = "add-remove"),
               list(epsilon = EPS, delta = R("delta", zero = "ok"), neighbor = nbr)),
    sweep_spec("dp_budget", list(epsilon = 1, delta = 1e-5, composition = "zCDP"),
               list(epsilon = EPS, delta = DEL, composition = CH("basic", "zCDP")), label = "dp_budget zCDP"),
    sweep_spec("budget_spent", list(budget = bud), list(budget = BUDGET)),
    sweep_spec("analyze_gauss_shift", list(p = 3, sigma = 1, reps = 20),
               list(p = CNT, sigma = NUM, reps = CNT)),
    sweep_spec("combo_data_dir", list(start = tempdir()), list(start = R("custom", values = list(
      sweep_h("NA", NA_character_), sweep_h("two paths", c(tempdir(), tempdir())), sweep_h("number", 1),
      sweep_h("NULL", NULL), sweep_h("missing directory", file.path(tempdir(), "no-such-dir"), "either"))))),
    sweep_spec("compressed_cov", list(release = comp), list(release = R("release", matrix = "either", wrong_shape = "either"))),
    sweep_spec("compressed_lm", list(release = comp_lm, response = "y", features = NULL, lambda = 0.1,
                                     scales = c(1, 2, 1, 2)),
               list(release = R("release", matrix = "skip", wrong_shape = "either"),
                    response = R("custom", values = list(sweep_h("NA", NA), sweep_h("unknown", "zz"), sweep_h("0", 0),
                                                         sweep_h("NULL", NULL), sweep_h("two", c(1, 2)), sweep_h("list", list(1)))),
                    features = R("custom", values = list(sweep_h("NA", NA), sweep_h("unknown", "zz"), sweep_h("0", 0),
                                                         sweep_h("response", 4), sweep_h("fraction", 1.5), sweep_h("list", list(1)))),
                    lambda = NUM, scales = R("vector", fraction = "error"))),
    sweep_spec("compressed_pca", list(release = comp, rank = 2),
               list(release = R("release", matrix = "either", wrong_shape = "either"), rank = CNT)),
    sweep_spec("dp_pca", list(release = rel, rank = 2),
               list(release = release_sq, rank = CNT)),
    sweep_spec("dp_pca", list(release = dpcov::analyze_gauss(x, 0.5, 1e-5, clip = 2, neighbor = "replace-one"),
                              center = c(0.1, 0, -0.1)),
               list(center = R("vector", fraction = "either", int = "either")), label = "dp_pca (center)"),
    sweep_spec("dp_pca", list(release = comp, scale = c(1, 2, 1)),
               list(release = R("release", matrix = "error", wrong_shape = "either"),
                    scale = R("vector", fraction = "either", int = "either")), label = "dp_pca (compressed)"),
    sweep_spec("as_dp_study", list(x = rst),
               list(x = R("custom", values = list(
                 sweep_h("NULL", NULL), sweep_h("string", "a"), sweep_h("unrelated data frame", data.frame(a = 1)),
                 sweep_h("character errors", sweep_modify(rst, spectral = "a")),
                 sweep_h("compression study without distance", sweep_drop(cst, "distance")),
                 sweep_h("qda study without summary", structure(list(), class = "qda_study")))))),
    sweep_spec("compression_alpha", list(x1 = comp_x, x2 = comp_x[c(2, 1, 3:200), ] * 1.01, m = 60, normalize = TRUE),
               list(x1 = DATA, x2 = DATA, m = R("vector"), normalize = FLAG, delta_max = NUM)),
    sweep_spec("compression_condition", list(n = 1000, p = 3, m = 60, delta_max = 0.01),
               list(n = CNT, p = CNT, m = R("vector"), delta_max = NUM)),
    sweep_spec("compression_m_min", list(n = 1000, p = 3), list(n = CNT, p = CNT)),
    sweep_spec("compression_threshold", list(n = 1000, p = 3, m = 60, delta_max = 0.01),
               list(n = CNT, p = CNT, m = R("vector"), delta_max = NUM)),
    sweep_spec("compression_pca_study", list(x = comp_x, m = 60, dim = 1, reps = 1),
               list(x = DATA, m = R("vector"), dim = CNT, reps = CNT, normalize = FLAG, method = CH("gram", "explicit"))),
    sweep_spec("cov_error", list(estimate = S, truth = S + 0.1),
               list(estimate = R("sym", asym = "either"), truth = R("sym", asym = "either"),
                    norm = R("custom", values = list(sweep_h("NA", NA_character_), sweep_h("unknown", "max"), sweep_h("NULL", NULL),
                                                     sweep_h("zero-length", character(0)), sweep_h("number", 1))),
                    relative = FLAG)),
    sweep_spec("cov_model", list(p = 4, type = "model1", rho = 0.5),
               list(p = CNT, type = CH("model1", "model2", "random_sparse"), rho = NUM)),
    sweep_spec("cov_model", list(p = 4, type = "random_sparse", sparsity = 0.3, lambda = 50, scale = 200),
               list(sparsity = NUM, lambda = NUM, scale = NUM), label = "cov_model (random_sparse)"),
    sweep_spec("dp_clip_bound", list(x = x, epsilon = 0.5),
               list(x = DATA, epsilon = EPS, quantile = NUM, lower = CLIP, upper = CLIP,
                    neighbor = nbr, count_share = NUM)),
    sweep_spec("dp_clip_bound", list(x = local({
      done <- FALSE
      function() if (done) NULL else { done <<- TRUE; matrix(c(1, 2, 3, 4), 2) }
    }), epsilon = 0.5), list(x = R("fun", number = "either")), label = "dp_clip_bound (reader)"),
    sweep_spec("dp_compress", list(x = comp_x, m = 60),
               list(x = DATA, m = CNT, normalize = FLAG, truncate = FLAG, delta_max = NUM, affine_sd = NUM,
                    method = CH("gram", "explicit"), reference = R("sym"), max_tries = CNT)),
    sweep_spec("dp_regression", list(release = dpcov::analyze_gauss(lm_x, 0.5, 1e-5, clip = 10), response = "y"),
               list(release = release_sq,
                    response = R("custom", values = list(sweep_h("NA", NA), sweep_h("unknown", "zz"), sweep_h("0", 0),
                                                         sweep_h("NULL", NULL), sweep_h("two", c(1, 2)), sweep_h("list", list(1)))),
                    features = R("custom", values = list(sweep_h("NA", NA), sweep_h("unknown", "zz"), sweep_h("0", 0),
                                                         sweep_h("duplicated", c(1, 1)), sweep_h("fraction", 1.5), sweep_h("list", list(1)))),
                    intercept = R("custom", values = list(sweep_h("NA", NA), sweep_h("unknown", "zz"), sweep_h("two", c(1, 2)),
                                                          sweep_h("response", "y"), sweep_h("list", list(1)))),
                    ridge = CH("remove", "keep"))),
    sweep_spec("dp_threshold", list(x = x4, epsilon = 0.5, delta = 1e-3, clip = 1),
               list(x = DATA, epsilon = EPS, delta = DEL, clip = CLIP, variant = CH("modified", "wang_xu"),
                    model = CH("central", "local"), tune = tune_junk, neighbor = nbr,
                    ldp_threshold = CH("averaged", "printed"), keep_diagonal = FLAG, calibration = cal,
                    method = CH("aggregate", "explicit"), noise_multiplier = NUM)),
    sweep_spec("dp_threshold", list(x = dpcov::ldp_aggregate(reps_ldp), epsilon = 0.5, delta = 1e-3, clip = 1,
                                    model = "local"),
               list(x = R("release", square = TRUE, matrix = "either")), label = "dp_threshold (aggregate)"),
    sweep_spec("dp_cov", list(x = x, epsilon = 1, delta = 1e-6, clip = 2, clip_mean = 3),
               list(x = DATA, epsilon = EPS, delta = DEL, clip = CLIP, clip_mean = CLIP,
                    mechanism = CH("analyze_gauss", "threshold", "wishart"), split = NUM,
                    type = CH("covariance", "correlation"), divisor = CH("n", "n - 1"), neighbor = nbr,
                    calibration = cal, bound_share = R("number", null_ok = TRUE), bound_quantile = NUM,
                    bound_factor = NUM,
                    bound_range = R("custom", values = list(sweep_h("NA", NA), sweep_h("reversed", c(10, 1)), sweep_h("one", 1), sweep_h("text", "a"), sweep_h("NULL", NULL))))),
    sweep_spec("dp_cov", list(x = x, epsilon = 1, delta = 1e-6, budget = bud),
               list(budget = BUDGET), label = "dp_cov (budget)"),
    # the default: private per-column bounds, composed with the box release by zCDP
    sweep_spec("dp_cov", list(x = x, epsilon = 1, delta = 1e-6),
               list(x = DATA, epsilon = EPS, delta = DEL, bound_share = R("number", null_ok = TRUE),
                    calibration = cal, neighbor = nbr, type = CH("covariance", "correlation")),
               label = "dp_cov (private bounds)"),
    # public per-column bounds (R/box.R)
    sweep_spec("dp_cov", list(x = x, epsilon = 1, delta = 1e-6, lower = -3, upper = 3, neighbor = "replace-one"),
               list(x = DATA, lower = BOUND_LO, upper = BOUND_HI, split = NUM, neighbor = nbr,
                    mechanism = CH("analyze_gauss", "threshold", "wishart"), type = CH("covariance", "correlation"),
                    clip = R("custom", values = list(sweep_h("given with bounds", 2), sweep_h("NULL", NULL, "ok"))),
                    clip_mean = R("custom", values = list(sweep_h("given with bounds", 2)))),
               label = "dp_cov (bounds)"),
    # the weighted box (box_weights = "frobenius"), public bounds of unequal widths
    sweep_spec("dp_cov", list(x = x, epsilon = 1, delta = 1e-6, lower = -3, upper = c(3, 30, 300),
                              neighbor = "replace-one", box_weights = "frobenius"),
               list(x = DATA, box_weights = CH("equal", "frobenius"), neighbor = nbr,
                    mechanism = CH("analyze_gauss", "threshold", "wishart"), type = CH("covariance", "correlation"),
                    tighten = R("flag", null_ok = TRUE), split = NUM,
                    clip = R("custom", values = list(sweep_h("given with bounds", 2)))),
               label = "dp_cov (bounds, weighted box)"),
    # bounds given for some columns, NA for the others (chosen privately)
    sweep_spec("dp_cov", list(x = x, epsilon = 1, delta = 1e-6, lower = c(NA, -3, -3), upper = c(NA, 3, 3)),
               list(x = R("custom", values = c(sweep_hostile(sweep_role("data"), x), list(sweep_h("dp_suffstat", ss),
                                                                         sweep_h("reader", function() NULL)))),
                    neighbor = nbr, mechanism = CH("analyze_gauss", "threshold", "wishart"),
                    type = CH("covariance", "correlation"), box_weights = CH("equal", "frobenius"),
                    bound_share = R("number", null_ok = TRUE),
                    tighten = R("custom", values = list(sweep_h("TRUE", TRUE), sweep_h("FALSE", FALSE, "ok"),
                                                        sweep_h("NA", NA))),
                    lower = R("custom", values = list(sweep_h("one of a pair NA", c(NA, NA, -3)),
                                                      sweep_h("NaN", c(NaN, -3, -3)), sweep_h("Inf", c(NA, -Inf, -3)),
                                                      sweep_h("named, a column missing", c(V1 = NA, V2 = -3)),
                                                      sweep_h("all NA", NA_real_))),
                    clip = R("custom", values = list(sweep_h("given with bounds", 2)))),
               label = "dp_cov (some bounds NA)"),
    # public bounds tightened privately
    sweep_spec("dp_cov", list(x = x, epsilon = 1, delta = 1e-6, lower = -3, upper = 3, neighbor = "replace-one",
                              tighten = TRUE),
               list(x = DATA, tighten = R("flag", null_ok = TRUE), bound_share = R("number", null_ok = TRUE),
                    neighbor = nbr, mechanism = CH("analyze_gauss", "threshold", "wishart"),
                    calibration = CH("analytic", "classic"), type = CH("covariance", "correlation")),
               label = "dp_cov (bounds, tightened)"),
    sweep_spec("dp_cov", list(x = xn, epsilon = 1, delta = 1e-6, bounds = xn_bounds),
               list(bounds = BOUNDS, lower = R("custom", values = list(sweep_h("given with bounds", -3)))),
               label = "dp_cov (bounds frame)"),
    sweep_spec("analyze_gauss", list(x = x, epsilon = 0.5, delta = 1e-5, lower = -3, upper = 3),
               list(x = R("custom", values = list(sweep_h("dp_suffstat", ss), sweep_h("reader", function() NULL),
                                                  sweep_h("NULL", NULL), sweep_h("NA entry", replace(x, 1, NA)))),
                    lower = BOUND_LO, upper = BOUND_HI, neighbor = nbr, post = CH("none", "psd", "shift"),
                    sigma_clip_inf = R("custom", values = list(sweep_h("given with bounds", 2)))),
               label = "analyze_gauss (bounds)"),
    sweep_spec("second_moment", list(x = x, lower = -3, upper = 3),
               # (the data role at large is swept on second_moment's own entry; 0 rows are data)
               list(x = R("custom", values = list(sweep_h("NULL", NULL), sweep_h("NA entry", replace(x, 1, NA)),
                                                  sweep_h("0 rows", x[0, , drop = FALSE], "either"),
                                                  sweep_h("string", "a"), sweep_h("reader", function() NULL))),
                    lower = BOUND_LO, upper = BOUND_HI,
                    clip = R("custom", values = list(sweep_h("given with bounds", 2)))),
               label = "second_moment (bounds)"),
    sweep_spec("analyze_gauss", list(x = dpcov::second_moment(x, lower = -3, upper = 3), epsilon = 0.5, delta = 1e-5),
               list(x = R("suffstat"), lower = R("custom", values = list(sweep_h("given again", -3))),
                    clip = R("custom", values = list(sweep_h("other bound", 2))), post = CH("none", "psd", "shift")),
               label = "analyze_gauss (box dp_suffstat, bounds)"),
    sweep_spec("dp_pca", list(release = x, epsilon = 1, delta = 1e-6, lower = -3, upper = 3),
               list(lower = BOUND_LO, upper = BOUND_HI, center = R("custom", values = list(sweep_h("with data", c(0, 0, 0)))),
                    scale = R("custom", values = list(sweep_h("with data", c(1, 1, 1))))),
               label = "dp_pca (data, bounds)"),
    # 200 rows at epsilon 1 under replace-one: dp_pca()'s rule tightens the bounds
    sweep_spec("dp_pca", list(release = comp_x, epsilon = 1, delta = 1e-6, lower = -3, upper = 3,
                              neighbor = "replace-one"),
               list(epsilon = EPS, delta = DEL, neighbor = nbr, tighten = R("flag", null_ok = TRUE),
                    bound_share = R("number", null_ok = TRUE), lower = BOUND_LO, upper = BOUND_HI),
               label = "dp_pca (data, bounds, tightened by default)"),
    sweep_spec("dp_lm", list(x = y ~ x1 + x2, data = lm_d, epsilon = 1, delta = 1e-5, B = 10,
                             bounds = list(x1 = c(-4, 4), x2 = c(-4, 4), y = c(-6, 8))),
               list(bounds = BOUNDS, clip = R("custom", values = list(sweep_h("given with bounds", 5))),
                    lower = R("custom", values = list(sweep_h("given with bounds", c(x1 = -4)))),
                    mechanism = CH("analyze_gauss", "wishart", "jl_ridge", "iwishart_posterior"), neighbor = nbr,
                    regularize = CH("adaptive", "none")),
               label = "dp_lm.formula (bounds)"),
    sweep_spec("dp_lm", list(x = y ~ x1 + x2, data = lm_d, epsilon = 1, delta = 1e-5, B = 10,
                             bounds = list(x1 = c(-4, 4), x2 = c(NA, NA), y = c(NA, NA))),
               list(bounds = R("custom", values = list(
                      sweep_h("one of a pair NA", list(x1 = c(-4, 4), x2 = c(NA, 4), y = c(NA, NA))),
                      sweep_h("a variable missing", list(x1 = c(-4, 4), y = c(NA, NA))),
                      sweep_h("NA for no variable", list(x1 = c(-4, 4), x2 = c(NA, NA), y = c(NA, NA), zz = c(NA, NA))),
                      sweep_h("unnamed frame", data.frame(lower = c(-4, NA, NA), upper = c(4, NA, NA))))),
                    lower = R("custom", values = list(sweep_h("given with bounds", c(x1 = -4)))),
                    clip = R("custom", values = list(sweep_h("given with bounds", 5))),
                    tighten = R("custom", values = list(sweep_h("TRUE", TRUE), sweep_h("FALSE", FALSE, "ok"))),
                    mechanism = CH("analyze_gauss", "wishart", "jl_ridge", "iwishart_posterior"), neighbor = nbr),
               label = "dp_lm.formula (some bounds NA)"),
    sweep_spec("dp_lm", list(x = y ~ x1 + x2, data = lm_d, epsilon = 2, delta = 1e-5, B = 10, neighbor = "replace-one",
                             bounds = list(x1 = c(-4, 4), x2 = c(-4, 4), y = c(-6, 8)), tighten = TRUE),
               list(tighten = R("flag", null_ok = TRUE), bound_share = R("number", null_ok = TRUE),
                    mechanism = CH("analyze_gauss", "wishart", "jl_ridge", "iwishart_posterior"), neighbor = nbr),
               label = "dp_lm.formula (bounds, tightened)"),
    sweep_spec("dp_clip_bound", list(x = x, epsilon = 0.5, budget = bud),
               list(budget = BUDGET), label = "dp_clip_bound (budget)"),
    sweep_spec("dp_column_bounds", list(x = x, epsilon = 0.5, delta = 1e-6),
               list(x = DATA, epsilon = EPS, delta = NUM, neighbor = nbr, range = NUM, resolution = NUM,
                    tail_factor = NUM, max_level = NUM, decay = NUM)),
    sweep_spec("dp_column_bounds", list(x = x, epsilon = 0.5, n_hint = 100),
               list(n_hint = R("custom", values = list(
                 sweep_h("NA", NA_real_), sweep_h("text", "a"), sweep_h("Inf", Inf), sweep_h("two", c(1, 2)),
                 sweep_h("list", list(1)), sweep_h("NULL", NULL, "ok"), sweep_h("negative", -5, "either")))),
               label = "dp_column_bounds (n_hint)"),
    sweep_spec("dp_column_bounds", list(x = x, epsilon = 0.5, budget = bud),
               list(budget = BUDGET), label = "dp_column_bounds (budget)"),
    sweep_spec("dp_cov", list(x = local({
      k <- 0
      function() { k <<- k + 1; if (k %% 2 == 0) NULL else matrix(c(1, 2, 3, 4, 5, 7), 3) }
    }), epsilon = 1, delta = 1e-6, clip = 2, clip_mean = 3),
    list(x = R("fun", number = "either")), label = "dp_cov (reader)"),
    sweep_spec("dp_as_cov", list(release = dp_cov_rel, to = "correlation"),
               list(release = release_sq, to = CH("covariance", "correlation"),
                    center = R("custom", values = list(
                      sweep_h("NA", c(1, NA, 1)), sweep_h("wrong length", c(1, 2)), sweep_h("character", "a"),
                      sweep_h("Inf", c(1, Inf, 1)), sweep_h("list", list(1, 2, 3)),
                      sweep_h("junk dp_cov", structure(list(), class = c("dp_cov", "dp_release"))))))),
    sweep_spec("dp_as_cov", list(release = dpcov::analyze_gauss(x, 0.5, 1e-5, clip = 2, neighbor = "zero-out"),
                                 center = c(0.1, 0, -0.1)),
               list(center = R("vector", fraction = "either", int = "either")), label = "dp_as_cov (sum)"),
    sweep_spec("gaussian_sigma", list(sensitivity = 1, epsilon = 0.5, delta = 1e-5),
               list(sensitivity = NUM, epsilon = EPS, delta = DEL, calibration = cal)),
    sweep_spec("has_guarantee", list(x = rel), list(x = R("release"))),
    sweep_spec("release_diagnostics", list(x = rel), list(x = R("release"))),
    sweep_spec("release_diagnostics", list(x = dp_cov_rel), list(x = R("release")), label = "release_diagnostics (dp_cov)"),
    sweep_spec("iwishart_adaptive", list(x = x, epsilon = 0.5, delta = 1e-4, clip = 2),
               list(x = DATA, epsilon = EPS, delta = DEL, clip = CLIP, k0 = CNT)),
    sweep_spec("iwishart_posterior", list(x = x, epsilon = 0.5, delta = 1e-4, clip = 2),
               list(x = DATA, epsilon = EPS, delta = DEL, clip = CLIP)),
    sweep_spec("jl_adaptive", list(x = x, epsilon = 0.5, delta = 1e-4, clip = 2),
               list(x = DATA, epsilon = EPS, delta = DEL, clip = CLIP, r0 = CNT, method = CH("bartlett", "explicit"))),
    sweep_spec("jl_ridge", list(x = x, epsilon = 0.5, delta = 1e-4, clip = 2),
               list(x = DATA, epsilon = EPS, delta = DEL, clip = CLIP, r = CNT, method = CH("bartlett", "explicit"))),
    sweep_spec("laplace_scale", list(sensitivity = 2, epsilon = 0.5), list(sensitivity = NUM, epsilon = EPS)),
    sweep_spec("ldp_aggregate", list(reps_ldp), list(R("custom", values = list(
      sweep_h("NULL", NULL), sweep_h("string", "a"),
      sweep_h("NA reports", sweep_modify(reps_ldp, reports = replace(reps_ldp$reports, 1, NA)), "either"),
      sweep_h("all reports NA", sweep_modify(reps_ldp, reports = reps_ldp$reports * NA)),
      sweep_h("wrong width", sweep_modify(reps_ldp, reports = reps_ldp$reports[, -1])),
      sweep_h("sigma mismatch", sweep_modify(reps_ldp, sigma = 1e-9)),
      sweep_h("NA epsilon", sweep_modify(reps_ldp, epsilon = NA)),
      sweep_h("no fields", structure(list(), class = "ldp_reports")))))),
    sweep_spec("ldp_aggregate", list(reps_ldp, epsilon = 0.5, delta = 1e-3, clip = 1, neighbor = "replace-one",
                                     calibration = "analytic"),
               list(epsilon = R("epsilon", int = "skip"), delta = DEL, clip = CLIP, neighbor = nbr, calibration = cal),
               label = "ldp_aggregate (settings)"),
    sweep_spec("ldp_perturb", list(x = x4, epsilon = 0.5, delta = 1e-3, clip = 1),
               list(x = DATA, epsilon = EPS, delta = DEL, clip = CLIP, neighbor = nbr, calibration = cal)),
    sweep_spec("pooled_cov", list(x = x, group = g), list(x = DATA, group = R("group"))),
    sweep_spec("qda_estimators", list(private = TRUE),
               list(private = FLAG, epsilon = EPS, delta = DEL, clip = CLIP, sigma_clip_inf = CLIP, tune = tune_junk,
                    calibration = cal, local_neighbor = CH("zero-out", "replace-one"), standardize = FLAG)),
    sweep_spec("qda_plugin", list(x = x, group = g),
               list(x = DATA, group = R("group"), cov = R("fun"), singular = CH("pinv", "floor"), tol = NUM)),
    sweep_spec("qda_plugin", list(x = x, group = g, cov = S),
               list(cov = R("sym")), label = "qda_plugin (matrix cov)"),
    sweep_spec("qda_study", list(features = feats, estimators = est_np, p = 2, reps = 1, n_test = c(lean = 4, obese = 2)),
               list(features = R("custom", values = list(
                      sweep_h("NULL", NULL), sweep_h("empty list", list()), sweep_h("no group", feats["x"]),
                      sweep_h("NA in x", sweep_modify(feats, x = replace(feats$x, 1, NA))),
                      sweep_h("one class", sweep_modify(feats, group = factor(rep("lean", 30)))),
                      sweep_h("three classes", sweep_modify(feats, group = factor(rep(c("a", "b", "c"), 10)))),
                      sweep_h("character x", sweep_modify(feats, x = "a")))),
                    estimators = R("custom", values = list(
                      sweep_h("NULL", NULL), sweep_h("empty list", list()), sweep_h("unnamed", unname(est_np)),
                      sweep_h("not functions", list(a = 1)),
                      sweep_h("failing function", list(a = function(x, group) stop("boom"))),
                      sweep_h("junk-returning function", list(a = function(x, group) "junk")),
                      sweep_h("NA-matrix function", list(a = function(x, group) matrix(NA_real_, ncol(x), ncol(x)))))),
                    p = R("vector"), reps = CNT,
                    n_test = R("custom", values = list(
                      sweep_h("NULL", NULL), sweep_h("unnamed", c(4, 2)), sweep_h("NA", c(lean = NA, obese = 2)),
                      sweep_h("negative", c(lean = -1, obese = 2)), sweep_h("too many", c(lean = 19, obese = 2)),
                      sweep_h("wrong names", c(a = 4, b = 2)), sweep_h("character", c(lean = "4", obese = "2")))),
                    var_equal = FLAG, leak = CH("none", "selection", "training"), singular = CH("pinv", "floor"),
                    tol = NUM)),
    sweep_spec("qda_study_table", list(x = qst, digits = 2),
               list(x = R("object", fields = c("summary")), digits = CNT)),
    sweep_spec("rdata", list(n = 10, Sigma = S), list(n = CNT, Sigma = R("spd"), dist = CH("gaussian", "t"))),
    sweep_spec("rdata", list(n = 10, Sigma = S, dist = "t", df = 5), list(df = NUM), label = "rdata (t)"),
    sweep_spec("riwishart", list(n = 2, df = 6, Psi = S), list(n = CNT, df = NUM, Psi = R("spd"), chol = FLAG)),
    sweep_spec("rwishart", list(n = 2, df = 6, Sigma = S), list(n = CNT, df = NUM, Sigma = R("spd"), chol = FLAG)),
    sweep_spec("run_study", list(settings = settings, reps = 1, tune = "theory"),
               list(settings = R("custom", values = list(
                      sweep_h("NULL", NULL), sweep_h("missing column", settings[-1]),
                      sweep_h("NA p", sweep_modify(settings, p = NA)), sweep_h("negative n", sweep_modify(settings, n = -5)),
                      sweep_h("huge n", sweep_modify(settings, n = 1e15)),
                      sweep_h("character n", sweep_modify(settings, n = "30")), sweep_h("0 rows", settings[0, ]),
                      sweep_h("zero epsilon", sweep_modify(settings, epsilon = 0)),
                      sweep_h("unknown cov", sweep_modify(settings, cov = "bogus")),
                      sweep_h("unknown dist", sweep_modify(settings, dist = "cauchy")),
                      sweep_h("delta above 1", sweep_modify(settings, delta = 2)),
                      sweep_h("matrix", as.matrix(settings)))),
                    reps = CNT,
                    methods = R("custom", values = list(
                      sweep_h("NULL", NULL), sweep_h("0 rows", dpcov::threshold_methods()[0, ]),
                      sweep_h("unknown variant", sweep_modify(dpcov::threshold_methods(), variant = "bogus")),
                      sweep_h("NA model", sweep_modify(dpcov::threshold_methods(), model = NA)))),
                    tune = tune_junk, sigma_clip_inf = CLIP, ldp_threshold = CH("averaged", "printed"), df = NUM,
                    relative = FLAG, noise_multiplier = NUM, calibration = cal)),
    sweep_spec("second_moment", list(x = x, clip = 2),
               list(x = DATA, clip = CLIP)),
    sweep_spec("second_moment", list(x = local({
      done <- FALSE
      function() if (done) NULL else { done <<- TRUE; matrix(c(1, 2, 3, 4), 2) }
    }), clip = 2), list(x = R("fun", number = "either")), label = "second_moment (reader)"),
    # a DBI connection cannot be sent to the child: it is made there, from a
    # call that do.call() evaluates when the argument is forced
    sweep_spec("second_moment_db", list(conn = sweep_db_conn(), table = "t", clip = 2, max_terms = 1600),
               c(sweep_db_roles(), list(clip = CLIP, max_terms = CNT, double_type = R("custom", values = list(
                 sweep_h("NA", NA_character_), sweep_h("number", 1), sweep_h("injection", "REAL); DROP TABLE t; --"),
                 sweep_h("two", c("DOUBLE", "REAL")), sweep_h("empty", ""), sweep_h("REAL", "REAL"), sweep_h("BLOB", "BLOB")))))),
    sweep_spec("db_reader", list(conn = sweep_db_conn(), table = "t", chunk_rows = 2),
               c(sweep_db_roles(), list(chunk_rows = CNT))),
    sweep_spec("csv_reader", list(file = sweep_csv, chunk_rows = 2),
               list(file = R("custom", values = list(
                      sweep_h("NA", NA_character_), sweep_h("empty string", ""), sweep_h("directory", tempdir()),
                      sweep_h("no such file", file.path(tempdir(), "no-such.csv")), sweep_h("number", 1),
                      sweep_h("two paths", c(sweep_csv, sweep_csv)), sweep_h("NULL", NULL))),
                    columns = R("custom", values = list(
                      sweep_h("unknown name", "zz"), sweep_h("twice", c(1, 1)), sweep_h("zero", 0),
                      sweep_h("fraction", 1.5), sweep_h("beyond", 9), sweep_h("NA", NA), sweep_h("list", list(1)),
                      sweep_h("zero-length", character(0)), sweep_h("integer", 2L, "ok"))),
                    chunk_rows = CNT,
                    sep = R("custom", values = list(
                      sweep_h("two characters", ",,"), sweep_h("NA", NA_character_), sweep_h("number", 1),
                      sweep_h("empty", ""), sweep_h("tab", "\t", "either"))),
                    header = FLAG, na = CH("error", "zero"),
                    na_strings = R("custom", values = list(
                      sweep_h("NA", NA_character_), sweep_h("number", 1), sweep_h("none", character(0), "ok"))))),
    sweep_spec("print", list(x = dpcov::csv_reader(sweep_csv)),
               list(x = R("custom", values = list(
                 sweep_h("no source", structure(function() NULL, class = c("dp_reader", "function")), "ok")))),
               label = "print.dp_reader"),
    sweep_spec("second_moment_sensitivity", list(clip = 1, neighbor = "replace-one", n = 200),
               list(clip = CLIP, neighbor = nbr, n = CNT)),
    sweep_spec("sheffet_data", list(n = 10, beta = beta, noise_sd = 0.5),
               list(n = CNT, beta = R("custom", values = list(
                      sweep_h("NA", c(1, NA)), sweep_h("character", "a"), sweep_h("one entry", 1),
                      sweep_h("Inf", c(1, Inf)), sweep_h("list", list(1, 2)), sweep_h("0 x 0", matrix(0, 0, 0)),
                      sweep_h("factor", factor(1:3)))),
                    noise_sd = NUM)),
    sweep_spec("sheffet_study", list(experiment = "single", n = 2^7, epsilon = 0.5, reps = 1, p = 2),
               list(experiment = CH("single", "multiple"), n = R("vector"), epsilon = R("vector", int = "either"),
                    reps = CNT, delta = DEL, clip = CLIP, p = CNT, noise_sd = NUM,
                    beta = R("custom", values = list(sweep_h("NA", c(1, NA, 1)), sweep_h("character", "a"),
                                                     sweep_h("wrong length", c(1, 2)), sweep_h("Inf", c(1, Inf, 1)))))),
    sweep_spec("sheffet_study", list(experiment = "multiple", n = 2^7, epsilon = 0.5, reps = 1, p = 2, m = 1),
               list(m = R("vector")), label = "sheffet_study (multiple)"),
    sweep_spec("study_summary", list(results = rst),
               list(results = R("custom", values = list(
                      sweep_h("NULL", NULL), sweep_h("string", "a"), sweep_h("empty data frame", data.frame()),
                      sweep_h("no error columns", rst[c("cov", "method")]),
                      sweep_h("character errors", sweep_modify(rst, spectral = "a")),
                      sweep_h("list", as.list(rst)))),
                    measure = R("custom", values = list(sweep_h("NA", NA_character_), sweep_h("unknown", "zz"),
                                                        sweep_h("NULL", NULL), sweep_h("number", 1),
                                                        sweep_h("zero-length", character(0)))))),
    sweep_spec("subspace_distance", list(a = S, b = S + 0.01 * diag(3), dim = 1),
               list(a = R("sym"), b = R("sym"), dim = CNT)),
    sweep_spec("threshold_cv", list(x = cvx, epsilon = 0.5, delta = 1e-3, clip = 1, folds = 3),
               list(x = DATA, epsilon = EPS, delta = DEL, clip = CLIP, variant = CH("modified", "wang_xu"),
                    model = CH("central", "local"), folds = CNT, grid = R("vector", fraction = "either"), neighbor = nbr,
                    ldp_threshold = CH("averaged", "printed"), keep_diagonal = FLAG, calibration = cal,
                    noise = FLAG, method = CH("downdate", "naive"), noise_multiplier = NUM)),
    sweep_spec("threshold_methods", list(), list()),
    sweep_spec("threshold_tune", list(method = "fixed", constant = 2),
               list(method = CH("theory", "fixed", "public", "cv"), constant = NUM)),
    # (a grid, folds and fold noise only for the cross-validations: given to
    # "fixed" they are refused as unused)
    sweep_spec("threshold_tune", list(method = "cv"), list(grid = R("vector", fraction = "either"), folds = CNT, noise = FLAG),
               label = "threshold_tune (cv)"),
    sweep_spec("threshold_tune", list(method = "public", public = x4),
               list(public = DATA), label = "threshold_tune (public)"),
    sweep_spec("wishart_noise", list(x = x, epsilon = 0.5, delta = 1e-4, clip = 2),
               list(x = DATA, epsilon = R("epsilon", int = "error"), delta = DEL, clip = CLIP, shift = FLAG,
                    method = CH("bartlett", "explicit"))),

    # ---- registered S3 methods (dispatched through their generics) ----
    sweep_spec("as.matrix", list(x = rel), list(x = R("release")), label = "as.matrix.dp_release"),
    sweep_spec("print", list(x = comp), list(x = R("release", wrong_shape = "either"), digits = CNT),
               label = "print.dp_compress"),
    sweep_spec("print", list(x = dpcov::compressed_cov(comp)),
               list(x = R("custom", values = list(
                 sweep_h("string", structure("a", class = c("compressed_cov", "dp_nonprivate"))),
                 sweep_h("non-square", structure(matrix(1, 2, 3), class = c("compressed_cov", "dp_nonprivate"))),
                 sweep_h("no fields", structure(list(), class = c("compressed_cov", "dp_nonprivate"))))),
                    digits = CNT),
               label = "print.compressed_cov"),
    sweep_spec("as.matrix", list(x = dpcov::compressed_cov(comp)),
               list(x = R("custom", values = list(
                 sweep_h("string", structure("a", class = c("compressed_cov", "dp_nonprivate"))),
                 sweep_h("non-square", structure(matrix(1, 2, 3), class = c("compressed_cov", "dp_nonprivate"))),
                 sweep_h("no fields", structure(list(), class = c("compressed_cov", "dp_nonprivate")))))),
               label = "as.matrix.compressed_cov"),
    sweep_spec("print", list(x = dpcov::pooled_cov(x, g)),
               list(x = R("custom", values = list(
                 sweep_h("string", structure("a", class = c("pooled_cov", "dp_nonprivate"))),
                 sweep_h("non-square", structure(matrix(1, 2, 3), class = c("pooled_cov", "dp_nonprivate"))),
                 sweep_h("no fields", structure(list(), class = c("pooled_cov", "dp_nonprivate"))))),
                    digits = CNT),
               label = "print.pooled_cov"),
    sweep_spec("as.matrix", list(x = dpcov::pooled_cov(x, g)),
               list(x = R("custom", values = list(
                 sweep_h("string", structure("a", class = c("pooled_cov", "dp_nonprivate"))),
                 sweep_h("non-square", structure(matrix(1, 2, 3), class = c("pooled_cov", "dp_nonprivate"))),
                 sweep_h("no fields", structure(list(), class = c("pooled_cov", "dp_nonprivate")))))),
               label = "as.matrix.pooled_cov"),
    sweep_spec("print", list(x = rel), list(x = R("release"), digits = CNT), label = "print.dp_release"),
    sweep_spec("summary", list(object = rel), list(object = R("release")), label = "summary.dp_release"),
    update_spec(rel, "update.dp_release"),
    sweep_spec("print", list(x = summary(rel)),
               list(x = R("object", fields = c("mechanism", "guarantee", "n", "p", "epsilon", "delta")),
                    digits = CNT), label = "print.summary.dp_release"),
    sweep_spec("print", list(x = ss), list(x = R("suffstat")), label = "print.dp_suffstat"),
    sweep_spec("print", list(x = rel$diagnostics),
               list(x = R("object", fields = c("level", "messages", "noise_to_signal"))),
               label = "print.dp_diagnostics"),
    sweep_spec("print", list(x = bnd),
               list(x = R("object", fields = c("bound", "lower", "quantile", "epsilon", "neighbor", "guarantee",
                                               "n_clipped", "upper")), digits = CNT),
               label = "print.dp_bound"),
    sweep_spec("as.double", list(x = bnd), list(x = R("object", fields = c("bound", "lower", "guarantee"))),
               label = "as.double.dp_bound"),
    sweep_spec("print", list(x = cbnd),
               list(x = R("object", fields = c("bounds", "epsilon", "delta", "tail_rows", "max_level",
                                               "clamped_share", "guarantee", "neighbor")), digits = CNT),
               label = "print.dp_column_bounds"),
    sweep_spec("as.data.frame", list(x = cbnd), list(x = R("object", fields = c("bounds", "guarantee"))),
               label = "as.data.frame.dp_column_bounds"),
    sweep_spec("as.matrix", list(x = cbnd), list(x = R("object", fields = c("bounds", "guarantee"))),
               label = "as.matrix.dp_column_bounds"),
    sweep_spec("tidy.dp_column_bounds", list(x = cbnd), list(x = R("object", fields = c("bounds", "guarantee", "epsilon"))),
               label = "tidy.dp_column_bounds"),
    sweep_spec("nobs", list(object = dpcov::analyze_gauss(x, 0.5, 1e-5, clip = 2, neighbor = "replace-one")),
               list(object = R("release"), use.fallback = FLAG), label = "nobs.dp_release"),
    sweep_spec("print", list(x = dpcov::dp_regression(ss, 3)),
               list(x = R("custom", values = list(
                 sweep_h("string", structure("a", class = c("dp_coefficients", "dp_nonprivate")), "either"),
                 sweep_h("no fields", structure(list(), class = c("dp_coefficients", "dp_nonprivate")), "either"),
                 sweep_h("junk why", structure(c(a = 1), why = list(1), class = c("dp_coefficients", "dp_nonprivate")),
                         "either")))),
               label = "print.dp_coefficients"),
    sweep_spec("print", list(x = bud), list(x = BUDGET), label = "print.dp_budget"),
    sweep_spec("summary", list(object = bud), list(object = BUDGET), label = "summary.dp_budget"),
    sweep_spec("as.data.frame", list(x = bud), list(x = BUDGET), label = "as.data.frame.dp_budget"),
    sweep_spec("print", list(x = dpcov::compression_alpha(comp_x, comp_x * 1.01, m = 60)),
               list(x = R("custom", values = list(
                 sweep_h("no fields", structure(list(), class = "dp_nonprivate"), "either"),
                 sweep_h("string", structure("a", class = "dp_nonprivate"), "either")))),
               label = "print.dp_nonprivate"),
    sweep_spec("print", list(x = reps_ldp),
               list(x = R("object", fields = c("reports", "p", "sigma", "epsilon", "delta", "clip", "neighbor"))),
               label = "print.ldp_reports"),
    sweep_spec("dp_lm", list(x = y ~ x1 + x2, data = lm_d, epsilon = 1, delta = 1e-5, clip = 5, B = 10),
               list(x = R("custom", values = list(sweep_h("NULL", NULL), sweep_h("string", "y ~ x1"),
                                                  sweep_h("one-sided", ~ x1), sweep_h("unknown variable", y ~ zz),
                                                  sweep_h("scale()", y ~ scale(x1)), sweep_h("NA", NA))),
                    data = R("custom", values = list(sweep_h("NULL", NULL), sweep_h("NA entry", replace(lm_d, 1, NA)),
                                                     sweep_h("Inf entry", transform(lm_d, x1 = replace(x1, 1, Inf))),
                                                     sweep_h("character column", transform(lm_d, x1 = as.character(x1))),
                                                     sweep_h("0 rows", lm_d[0, ], "either"), sweep_h("no columns", lm_d[, 0]),
                                                     sweep_h("string", "a"), sweep_h("list", list(1)),
                                                     sweep_h("factor column", transform(lm_d, x2 = factor(x2 > 0)), "ok"),
                                                     sweep_h("integer matrix", round(3 * as.matrix(lm_d)), "ok"))),
                    epsilon = EPS, delta = DEL, clip = R("custom", values = list(
                      sweep_h("NA", NA_real_), sweep_h("zero", 0), sweep_h("negative", -1), sweep_h("string", "a"),
                      sweep_h("two", c(1, 2)), sweep_h("NULL", NULL, "either"), sweep_h("integer", 5L, "ok"))),
                    mechanism = CH("analyze_gauss", "wishart", "jl_ridge", "iwishart_posterior"), neighbor = nbr,
                    B = CNT, bound_share = R("number", null_ok = TRUE), regularize = CH("adaptive", "none")),
               label = "dp_lm.formula"),
    sweep_spec("dp_lm", list(x = y ~ x1 + x2, data = lm_d, epsilon = 1, delta = 1e-5, clip = 5, B = 10),
               list(x = R("custom", values = list(sweep_h("number", 1), sweep_h("list", list(1)),
                                                  sweep_h("function", function() 1), sweep_h("matrix", diag(2))))),
               label = "dp_lm.default"),
    sweep_spec("dp_lm", list(x = lm_fit$release, formula = y ~ x1 + x2, B = 10),
               list(x = release_sq,
                    formula = R("custom", values = list(sweep_h("NULL", NULL), sweep_h("string", "y ~ x1"),
                                                        sweep_h("one-sided", ~ x1), sweep_h("unknown column", y ~ zz),
                                                        sweep_h("transformation", y ~ log(x1)), sweep_h("NA", NA),
                                                        sweep_h("response as feature", y ~ y + x1))),
                    ones = R("custom", values = list(sweep_h("NA", NA_character_), sweep_h("number", 1),
                                                     sweep_h("unknown", "zz"), sweep_h("two", c("a", "b")),
                                                     sweep_h("NULL", NULL))),
                    n = R("custom", values = list(sweep_h("NA", NA_real_), sweep_h("negative", -1),
                                                  sweep_h("fraction", 2.5), sweep_h("string", "a"),
                                                  sweep_h("two", c(100, 200)),
                                                  # the baseline release has a column of ones: `n` does not apply
                                                  sweep_h("integer", 300L))),
                    B = CNT, regularize = CH("adaptive", "none")),
               label = "dp_lm.dp_release"),
    sweep_spec("dp_lm", list(x = lm_fit$release, formula = y ~ x1, B = 5), list(B = CNT), label = "dp_lm"),
    sweep_spec("dp_lm", list(x = dpcov::second_moment(lm_A, 5), formula = y ~ x1 + x2, B = 10),
               list(x = R("suffstat"),
                    formula = R("custom", values = list(sweep_h("NULL", NULL), sweep_h("unknown column", y ~ zz),
                                                        sweep_h("NA", NA)))),
               label = "dp_lm.dp_suffstat"),
    sweep_spec("print", list(x = lm_fit), list(x = R("object", fields = c("coefficients", "vcov", "sigma", "response", "guarantee", "mechanism", "units", "ci_type")), digits = CNT), label = "print.dp_lm"),
    sweep_spec("print", list(x = dpcov::compressed_lm(comp_lm, "y")), list(x = R("object", fields = c("coefficients", "vcov", "sigma", "response", "guarantee", "mechanism", "units", "ci_type"))),
               label = "print.dp_lm (compressed)"),
    sweep_spec("summary", list(object = lm_fit), list(object = R("object", fields = c("coefficients", "vcov", "sigma", "response", "guarantee", "mechanism", "units", "ci_type")), level = NUM),
               label = "summary.dp_lm"),
    sweep_spec("print", list(x = summary(lm_fit)),
               list(x = R("object", fields = c("coefficients", "mechanism", "guarantee", "n", "sigma", "ci_type",
                                               "units", "level")), digits = CNT),
               label = "print.summary.dp_lm"),
    sweep_spec("vcov", list(object = summary(lm_fit)),
               list(object = R("object", fields = c("coefficients", "vcov")), complete = FLAG),
               label = "vcov.summary.dp_lm"),
    sweep_spec("vcov", list(object = lm_fit), list(object = R("object", fields = c("coefficients", "vcov", "sigma", "response", "guarantee", "mechanism", "units", "ci_type")), complete = FLAG), label = "vcov.dp_lm"),
    sweep_spec("coef", list(object = lm_fit), list(object = R("object", fields = c("coefficients", "vcov", "sigma", "response", "guarantee", "mechanism", "units", "ci_type")), complete = FLAG), label = "coef.dp_lm"),
    sweep_spec("sigma", list(object = lm_fit), list(object = R("object", fields = c("coefficients", "vcov", "sigma", "response", "guarantee", "mechanism", "units", "ci_type"))), label = "sigma.dp_lm"),
    update_spec(lm_fit, "update.dp_lm"),
    # residuals() and fitted() refuse every fit (no data kept): test-dp-lm.R
    sweep_spec("model.matrix", list(object = lm_fit, data = lm_d[1:3, ]),
               list(object = R("object", fields = c(c("coefficients", "vcov", "sigma", "response", "guarantee", "mechanism", "units", "ci_type"), "terms")),
                    data = R("custom", values = list(sweep_h("NULL", NULL), sweep_h("string", "a"), sweep_h("NA", NA),
                                                     sweep_h("missing column", lm_d[1:3, "x1", drop = FALSE]),
                                                     sweep_h("NA entry", replace(lm_d[1:3, ], 1, NA))))),
               label = "model.matrix.dp_lm"),
    sweep_spec("nobs", list(object = lm_fit_public), list(object = R("object", fields = c("coefficients", "vcov", "sigma", "response", "guarantee", "mechanism", "units", "ci_type")), use.fallback = FLAG), label = "nobs.dp_lm"),
    sweep_spec("formula", list(x = lm_fit), list(x = R("object", fields = c(c("coefficients", "vcov", "sigma", "response", "guarantee", "mechanism", "units", "ci_type"), "formula"))), label = "formula.dp_lm"),
    sweep_spec("labels", list(object = lm_fit), list(object = R("object", fields = c("coefficients", "vcov", "sigma", "response", "guarantee", "mechanism", "units", "ci_type"))), label = "labels.dp_lm"),
    sweep_spec("variable.names", list(object = lm_fit), list(object = R("object", fields = c("coefficients", "vcov", "sigma", "response", "guarantee", "mechanism", "units", "ci_type"))), label = "variable.names.dp_lm"),
    sweep_spec("family", list(object = lm_fit), list(object = R("object", fields = c("coefficients", "vcov", "sigma", "response", "guarantee", "mechanism", "units", "ci_type"))), label = "family.dp_lm"),
    # the ridge's record: malformed is refused (the intervals centre on its least-squares coefficients)
    sweep_spec("confint", list(object = lm_fit),
               list(object = R("custom", values = list(
                 sweep_h("NA regularization", sweep_set(lm_fit, "regularization", NA)),
                 sweep_h("junk regularization", sweep_set(lm_fit, "regularization", list("junk"))),
                 sweep_h("negative lambda", sweep_set(lm_fit, "regularization", list(lambda = -1))),
                 sweep_h("short least_squares", sweep_set(lm_fit, "regularization", list(lambda = 0, least_squares = 1))),
                 sweep_h("NaN least_squares", sweep_set(lm_fit, "regularization",
                                                        list(lambda = 0, least_squares = c(NaN, 1, 1)))),
                 sweep_h("no regularization", sweep_drop(lm_fit, "regularization"), "ok")))),
               label = "confint.dp_lm (regularization)"),
    sweep_spec("print", list(x = lm_fit),
               list(x = R("custom", values = list(
                 sweep_h("junk regularization", sweep_set(lm_fit, "regularization", list("junk"))),
                 sweep_h("string lambda", sweep_set(lm_fit, "regularization", list(lambda = "a"))),
                 sweep_h("no regularization", sweep_drop(lm_fit, "regularization"), "ok")))),
               label = "print.dp_lm (regularization)"),
    sweep_spec("confint", list(object = lm_fit),
               list(object = R("object", fields = c("coefficients", "vcov", "sigma", "response", "guarantee", "mechanism", "units", "ci_type")),
                    parm = R("custom", values = list(sweep_h("unknown", "zz"), sweep_h("NA", NA), sweep_h("zero", 0),
                                                     sweep_h("list", list(1)), sweep_h("too large", 9))),
                    level = NUM, type = R("custom", values = list(sweep_h("NA", NA_character_), sweep_h("unknown", "zz"),
                                                                  sweep_h("number", 1), sweep_h("two", c("basic", "normal"))))),
               label = "confint.dp_lm"),
    sweep_spec("predict", list(object = lm_fit, newdata = lm_d[1:3, ]),
               list(object = R("object", fields = c(c("coefficients", "vcov", "sigma", "response", "guarantee", "mechanism", "units", "ci_type"), "terms")),
                    newdata = R("custom", values = list(sweep_h("NULL", NULL), sweep_h("string", "a"), sweep_h("NA", NA),
                                                        sweep_h("missing column", lm_d[1:3, "x1", drop = FALSE]),
                                                        # (an NA entry is valid: NA for that row, as
                                                        # predict.lm(); test-dp-lm.R checks it)
                                                        sweep_h("list", list(1)))),
                    interval = CH("none", "confidence"), level = NUM,
                    type = R("custom", values = list(sweep_h("terms", "terms"), sweep_h("NA", NA_character_),
                                                     sweep_h("NULL", NULL), sweep_h("two", c("response", "terms"))))),
               label = "predict.dp_lm"),
    sweep_spec("tidy.dp_lm", list(x = lm_fit),
               list(x = R("object", fields = c("coefficients", "vcov", "sigma", "response", "guarantee", "mechanism", "units", "ci_type")), conf.int = FLAG, conf.level = NUM,
                    exponentiate = R("custom", values = list(sweep_h("TRUE", TRUE), sweep_h("NA", NA), sweep_h("string", "no")))),
               label = "tidy.dp_lm"),
    sweep_spec("glance.dp_lm", list(x = lm_fit), list(x = R("object", fields = c("coefficients", "vcov", "sigma", "response", "guarantee", "mechanism", "units", "ci_type"))), label = "glance.dp_lm"),
    sweep_spec("print", list(x = fit), list(x = R("object", fields = c("means", "priors", "rank", "levels", "singular"))),
               label = "print.qda_plugin"),
    update_spec(fit, "update.qda_plugin"),
    sweep_spec("predict", list(object = fit, newdata = x),
               list(object = R("object", fields = c("means", "priors", "scaling", "logdet", "levels")),
                    newdata = R("data", na_ok = TRUE), type = CH("class", "score", "posterior")),
               label = "predict.qda_plugin"),
    sweep_spec("predict", list(object = fit, newdata = x),
               list(newdata = R("custom", values = list(sweep_h("too few columns", x[, 1:2]),
                                                        sweep_h("too many columns", cbind(x, x))))),
               label = "predict.qda_plugin (shape)"),
    sweep_spec("print", list(x = qst), list(x = R("object", fields = c("summary", "settings")), digits = CNT),
               label = "print.qda_study"),
    sweep_spec("print", list(x = dpcov::qda_study_table(qst)),
               list(x = R("custom", values = list(
                 sweep_h("string", structure("a", class = c("qda_study_table", "dp_nonprivate"))),
                 sweep_h("numeric matrix", structure(matrix(1, 2, 2), class = c("qda_study_table", "dp_nonprivate"))),
                 sweep_h("no fields", structure(list(), class = c("qda_study_table", "dp_nonprivate")))))),
               label = "print.qda_study_table"),
    sweep_spec("plot", list(x = qst),
               list(x = R("object", fields = c("summary")),
                    reference = R("custom", values = list(sweep_h("string", "a"), sweep_h("NA", NA),
                                                          sweep_h("no p column", data.frame(sample = 1)))),
                    labels = R("custom", values = list(sweep_h("number", 1), sweep_h("NA", NA))),
                    ylim = R("custom", values = list(sweep_h("NA", c(NA, 1)), sweep_h("string", "a"),
                                                     sweep_h("one value", 1)))),
               label = "plot.qda_study"),
    sweep_spec("print", list(x = tcv), list(x = R("object", fields = c("constant", "grid", "loss", "folds", "n", "p", "method"))),
               label = "print.threshold_cv"),
    sweep_spec("plot", list(x = tcv), list(x = R("object", fields = c("constant", "grid", "loss"))),
               label = "plot.threshold_cv"),
    sweep_spec("as.data.frame", list(x = tcv), list(x = R("object", fields = c("constant", "grid", "loss", "folds"))),
               label = "as.data.frame.threshold_cv"),
    sweep_spec("print", list(x = tt), list(x = R("object", fields = c("method", "public"))),
               label = "print.threshold_tune"),
    sweep_spec("plot", list(x = cst),
               list(x = R("custom", values = list(
                      sweep_h("no distance column", sweep_drop(cst, "distance")),
                      sweep_h("character distance", sweep_modify(cst, distance = "a")),
                      sweep_h("0 rows", cst[0, ]), sweep_h("NA m", sweep_modify(cst, m = NA)),
                      sweep_h("no fields", structure(list(), class = class(cst))))),
                    main = R("custom", values = list(sweep_h("function", function() 1))),
                    legend_pos = R("custom", values = list(sweep_h("NA", NA_character_), sweep_h("unknown", "zz"),
                                                           sweep_h("number", 1)))),
               label = "plot.compression_study"),
    sweep_spec("print", list(x = sst),
               list(x = R("custom", values = list(
                      sweep_h("no settings", structure(unclass(sst)[names(sst)], class = class(sst), row.names = seq_len(nrow(sst)))),
                      sweep_h("character error", sweep_modify(sst, error = "a")),
                      sweep_h("no fields", structure(list(), class = class(sst))))),
                    n_rows = CNT),
               label = "print.sheffet_study"),
    sweep_spec("summary", list(object = sst),
               list(object = R("custom", values = list(
                      sweep_h("no error column", sweep_drop(sst, "error")),
                      sweep_h("character error", sweep_modify(sst, error = "a")),
                      sweep_h("no fields", structure(list(), class = class(sst))),
                      sweep_h("string", structure("a", class = class(sst)))))),
               label = "summary.sheffet_study"),
    sweep_spec("plot", list(x = sst, figure = 4),
               list(x = R("custom", values = list(
                      sweep_h("character error", sweep_modify(sst, error = "a")),
                      sweep_h("no fields", structure(list(), class = class(sst))))),
                    figure = R("custom", values = list(sweep_h("NA", NA), sweep_h("six", 6), sweep_h("two", c(1, 2)),
                                                       sweep_h("NULL", NULL), sweep_h("list", list(4)))),
                    epsilon = R("custom", values = list(sweep_h("NA", NA_real_), sweep_h("absent", 0.3),
                                                        sweep_h("string", "a"), sweep_h("two", c(0.5, 0.5)))),
                    ylim = R("custom", values = list(sweep_h("NA", c(NA, 1)), sweep_h("string", "a"),
                                                     sweep_h("one value", 1)))),
               label = "plot.sheffet_study"),
    sweep_spec("print", list(x = pca), list(x = PCA_OBJ, digits = CNT), label = "print.dp_pca"),
    sweep_spec("summary", list(object = pca), list(object = PCA_OBJ), label = "summary.dp_pca"),
    sweep_spec("tidy.dp_pca", list(x = pca), list(x = PCA_OBJ, matrix = CH("v", "d")), label = "tidy.dp_pca"),
    sweep_spec("glance.dp_pca", list(x = pca), list(x = PCA_OBJ), label = "glance.dp_pca"),
    sweep_spec("print", list(x = summary(pca)),
               list(x = R("object", fields = c("importance", "units", "guarantee", "n_negative")), digits = CNT),
               label = "print.summary.dp_pca"),
    update_spec(pca, "update.dp_pca"),
    update_spec(bnd, "update.dp_bound"),
    update_spec(cbnd, "update.dp_column_bounds"),
    sweep_spec("plot", list(x = pca),
               list(x = PCA_OBJ, npcs = CNT, type = CH("barplot", "lines"), main = R("custom", values = list(sweep_h("function", function() 1)))),
               label = "plot.dp_pca"),
    # biplot() needs scores: compressed rows (a square release's PCA refuses every call, test-pca.R)
    sweep_spec("screeplot", list(x = pca),
               list(x = PCA_OBJ, npcs = CNT, type = CH("barplot", "lines"), main = R("custom", values = list(sweep_h("function", function() 1)))),
               label = "screeplot.dp_pca"),
    sweep_spec("biplot", list(x = pca_c), list(x = PCA_OBJ, choices = R("custom", values = list(
      sweep_h("past the components", c(1, 9)), sweep_h("one", 1), sweep_h("NA", c(1, NA))))), label = "biplot.dp_pca"),
    sweep_spec("predict", list(object = pca_c, newdata = comp_x, scale = c(1, 2, 1)),
               list(object = PCA_OBJ, newdata = R("data", na_ok = TRUE), scale = R("vector", fraction = "either", int = "either")),
               label = "predict.dp_pca"),
    sweep_spec("predict", list(object = pca, newdata = x),
               list(newdata = R("custom", values = list(sweep_h("too few columns", x[, 1:2]),
                                                        sweep_h("too many columns", cbind(x, x)))),
                    center = R("custom", values = list(sweep_h("given to a PCA with its center", c(0, 0, 0))))),
               label = "predict.dp_pca (shape)"),
    sweep_spec("plot", list(x = rel), list(x = R("release"), main = R("custom", values = list(sweep_h("number", 1)))),
               label = "plot.dp_release"),
    sweep_spec("as.data.frame", list(x = rel), list(x = R("release")), label = "as.data.frame.dp_release"),
    sweep_spec("tidy.dp_release", list(x = rel), list(x = R("release")), label = "tidy.dp_release"),
    sweep_spec("glance.dp_release", list(x = rel), list(x = R("release")), label = "glance.dp_release"),
    sweep_spec("print", list(x = rst), list(x = study_junk(rst, "spectral"), n_rows = CNT), label = "print.dp_study"),
    sweep_spec("summary", list(object = cst), list(object = study_junk(cst, "distance")), label = "summary.dp_study"),
    sweep_spec("plot", list(x = rst),
               list(x = study_junk(rst, "spectral"), measure = CH("spectral", "frobenius"),
                    main = R("custom", values = list(sweep_h("function", function() 1)))),
               label = "plot.dp_study"),
    sweep_spec("as.data.frame", list(x = qst),
               list(x = R("custom", values = list(
                 sweep_h("no errors", sweep_drop(qst, "errors")), sweep_h("junk errors", sweep_modify(qst, errors = "a")),
                 sweep_h("no fields", structure(list(), class = class(qst)))))),
               label = "as.data.frame.dp_study")
  )
  if (!is.null(sdir)) {
    specs <- c(specs, list(
      sweep_spec("combo_read", list(dir = sdir), list(dir = R("dir"), layout = CH("auto", "count_table", "genera_csv"))),
      sweep_spec("combo_preprocess", list(data = cdata),
                 list(data = R("object", fields = c("counts", "group")), min_samples = CNT, by_group = FLAG,
                      zero = CH("pseudocount", "zeros"), pseudocount = NUM, denominator = CH("all", "kept"),
                      transform = CH("log", "clr"))),
      sweep_spec("combo_select", list(x = cfeat$x, group = cfeat$group, p = 5),
                 list(x = DATA, group = R("group"), p = CNT, var_equal = FLAG)),
      sweep_spec("print", list(x = cdata), list(x = R("object", fields = c("counts", "group", "layout", "dir"))),
                 label = "print.combo_data"),
      sweep_spec("print", list(x = cfeat), list(x = R("object", fields = c("x", "settings"))),
                 label = "print.combo_features"),
      sweep_spec("qda_study", list(features = cfeat, estimators = est_np, p = 5, reps = 1),
                 list(p = R("vector")), label = "qda_study (COMBO)")
    ))
  }
  specs
}

# The fast tier's sample of the table (the extended tier runs all of it):
# every baseline, and for every (export, argument) one of its hostile values,
# the k-th for the k-th argument of the table (cycling), so that every
# argument is attacked once and the sample spreads over the kinds of hostile
# value. Fixed (no RNG): the same calls on every run.
sweep_sample <- function(calls) {
  key <- vapply(calls, function(cl) paste(cl$label, cl$arg, sep = "\r"), character(1))
  keep <- vapply(calls, function(cl) identical(cl$arg, "(baseline)"), logical(1))
  groups <- split(which(!keep), factor(key[!keep], levels = unique(key[!keep])))
  for (g in seq_along(groups)) {
    idx <- groups[[g]]
    keep[idx[(g - 1L) %% length(idx) + 1L]] <- TRUE
  }
  calls[keep]
}

# ---- generating the calls ------------------------------------------------------------

# One baseline call per spec (expect "ok"), then one mutated call per
# (argument, hostile value). An argument absent from the baseline is mutated
# from its default (its role's generators only look at the baseline value
# for shapes, so a stand-in of the right kind is used).
sweep_calls <- function(specs = sweep_specs()) {
  out <- list()
  for (sp in specs) {
    out[[length(out) + 1L]] <- list(label = sp$label, fun = sp$fun, args = sp$args, arg = "(baseline)",
                                    hostile = "(baseline)", expect = "ok")
    for (i in seq_along(sp$roles)) {
      arg <- if (is.null(names(sp$roles))) "" else names(sp$roles)[i]
      role <- sp$roles[[i]]
      pos <- if (nzchar(arg)) match(arg, names(sp$args)) else i
      base <- if (!is.na(pos) && pos <= length(sp$args)) sp$args[[pos]] else sweep_stand_in(role)
      exported <- sp$fun %in% getNamespaceExports("dpcov")
      default_null <- exported && nzchar(arg) && arg %in% names(formals(getExportedValue("dpcov", sp$fun))) &&
        is.null(formals(getExportedValue("dpcov", sp$fun))[[arg]])
      for (hv in sweep_hostile(role, base)) {
        if (is.null(hv)) next
        # an S3 method sees only objects of its class (others go elsewhere)
        if (!exported && i == 1L && !inherits(hv$value, class(base)[1])) next
        if (default_null && is.null(hv$value)) hv$expect <- "either"
        args <- sp$args
        if (is.na(pos)) {
          args <- c(args, stats::setNames(list(hv$value), arg))
        } else {
          args[pos] <- list(hv$value)
        }
        out[[length(out) + 1L]] <- list(label = sp$label, fun = sp$fun, args = args,
                                        arg = if (nzchar(arg)) arg else "...",
                                        hostile = hv$name, expect = hv$expect)
      }
    }
  }
  out
}

sweep_stand_in <- function(role) {
  switch(role$kind, epsilon = 0.5, delta = 1e-3, clip = 1, count = 8, number = 1, flag = TRUE,
         choice = role$choices[1], data = matrix(stats::rnorm(12), 4, 3),
         spd = diag(3), sym = diag(3), vector = 3, group = factor(c("a", "a", "b", "b")), NULL)
}

# ---- the child side ---------------------------------------------------------------------

# Runs in the child session: one call, its outcome, and a sanity check of
# what it returned. Self-contained (it is serialised to the child).
sweep_child <- function(fun, args, arg, seed) {
  set.seed(seed)
  # the baseline budget, made again in this process with the same ledger
  # (a hostile mutation of it that lost its fields stays as it is)
  for (i in seq_along(args)) {
    b <- args[[i]]
    if (isTRUE(attr(b, "sweep_recreate")) && is.list(b) && is.environment(b$account)) {
      fresh <- tryCatch({
        acc <- b$account
        nb <- dpcov::dp_budget(acc$epsilon, acc$delta, acc$neighbor)
        assign("ledger", acc$ledger, envir = nb$account)
        nb
      }, error = function(e) NULL)
      if (!is.null(fresh)) args[i] <- list(fresh)
    }
  }
  sane <- function(v) {
    bad_num <- function(z) is.numeric(z) && any(is.nan(z) | (is.infinite(z)))
    if (inherits(v, "dp_release")) {
      e <- v$estimate
      return(is.matrix(e) && is.numeric(e) && length(e) > 0 && all(is.finite(e)) && ncol(e) == v$p)
    }
    if (is.null(v) || is.function(v)) return(TRUE)
    if (is.factor(v)) return(!anyNA(v))
    if (is.data.frame(v)) return(nrow(v) > 0 && !any(vapply(v, bad_num, logical(1))))
    if (is.list(v)) {
      # fields may be Inf (clip) or NA (n not released); NaN is never meant
      leaves <- unlist(v)
      return(!(is.numeric(leaves) && any(is.nan(leaves))))
    }
    if (is.numeric(v) || is.logical(v)) return(length(v) > 0 && all(is.finite(v) | is.logical(v) & !is.na(v)))
    if (is.character(v)) return(!anyNA(v))
    TRUE
  }
  f <- if (fun %in% getNamespaceExports("dpcov")) {
    getExportedValue("dpcov", fun)
  } else if (exists(fun, envir = asNamespace("dpcov"), inherits = FALSE)) {
    get(fun, envir = asNamespace("dpcov"))  # a registered method of a re-exported generic
  } else if (grepl("::", fun, fixed = TRUE)) {
    getExportedValue(sub("::.*$", "", fun), sub("^.*::", "", fun))  # a generic of another package
  } else {
    match.fun(fun)
  }
  warns <- character()
  out <- tryCatch(withCallingHandlers({
    utils::capture.output(val <- do.call(f, args))
    list(status = "ok", sane = isTRUE(sane(val)))
  }, warning = function(w) {
    warns <<- c(warns, conditionMessage(w))
    invokeRestart("muffleWarning")
  }),
  dpcov_error = function(e) list(status = "dpcov_error", arg = if (is.null(e$arg)) NA_character_ else as.character(e$arg)[1],
                                 message = conditionMessage(e)),
  error = function(e) list(status = "plain_error", message = conditionMessage(e), class = class(e)[1]))
  out$warnings <- warns
  out
}

sweep_session <- function() {
  rs <- callr::r_session$new(wait = TRUE)
  rs$run(function() {
    suppressPackageStartupMessages(library(dpcov))
    grDevices::pdf(NULL)
    invisible(NULL)
  })
  rs
}

# Classify one call from the child's answer.
sweep_classify <- function(call, res) {
  if (res$status == "dpcov_error") {
    names_arg <- !is.na(res$arg) && (res$arg == call$arg || startsWith(res$arg, paste0(call$arg, "$")) ||
                                       startsWith(res$arg, paste0(call$arg, "[")))
    if (!names_arg) names_arg <- grepl(paste0("`", call$arg), res$message, fixed = TRUE)
    if (call$expect == "ok") return("refused")
    return(if (names_arg) "classed" else "misnamed")
  }
  if (res$status == "plain_error") return(if (call$expect == "ok") "refused" else "plain")
  # "na": a result whose missing values follow from the input's (scores of a row with an NA)
  if (call$expect == "na") return("accepted")
  if (call$expect == "error" || !isTRUE(res$sane)) return("silent")
  "accepted"
}

# Run the calls; a crash or a time-out restarts the session.
# Each call runs under its own seed (seed + i), so a failure reproduces;
# DPCOV_SWEEP_SEED varies the draws between runs. The calls go to the child
# in batches of `batch` (one round trip costs more than most calls); a batch
# that crashes the child or outlasts `timeout` is rerun one call at a time,
# each with its own `timeout`, so every call gets the outcome it would get
# alone in the same persistent session.
sweep_run <- function(calls, timeout = 20, progress = FALSE,
                      seed = as.integer(Sys.getenv("DPCOV_SWEEP_SEED", "1")), batch = 25L) {
  child <- sweep_child
  environment(child) <- globalenv()
  batch_child <- function(child, jobs) lapply(jobs, function(j) do.call(child, j))
  environment(batch_child) <- globalenv()
  job <- function(i) list(fun = calls[[i]]$fun, args = calls[[i]]$args, arg = calls[[i]]$arg, seed = seed + i)
  rs <- sweep_session()
  on.exit(try(rs$close(), silent = TRUE), add = TRUE)
  restart <- function() {
    try(rs$kill(), silent = TRUE)
    rs <<- sweep_session()
  }
  row <- function(cl, outcome, detail) {
    data.frame(label = cl$label, arg = cl$arg, hostile = cl$hostile, expect = cl$expect,
               outcome = outcome, detail = substr(gsub("\\s+", " ", detail), 1, 200),
               stringsAsFactors = FALSE)
  }
  answered <- function(cl, r) {
    detail <- switch(r$status, ok = if (length(r$warnings)) paste("warning:", r$warnings[1]) else "",
                     dpcov_error = sprintf("[arg %s] %s", r$arg, r$message),
                     plain_error = sprintf("[%s] %s", r$class, r$message))
    row(cl, sweep_classify(cl, r), detail)
  }
  # one call alone: a crash or a hang is its own
  alone <- function(i) {
    cl <- calls[[i]]
    rs$call(child, job(i))
    if (rs$poll_process(as.integer(timeout * 1000)) == "timeout") {
      restart()
      return(row(cl, "hang", ""))
    }
    res <- tryCatch(rs$read(), error = function(e) NULL)
    if (is.null(res) || !is.null(res$error) || !rs$is_alive()) {
      detail <- if (!is.null(res$error)) conditionMessage(res$error) else "child died"
      restart()
      return(row(cl, "crash", detail))
    }
    answered(cl, res$result)
  }
  rows <- vector("list", length(calls))
  for (first in seq(1L, length(calls), by = batch)) {
    ii <- first:min(length(calls), first + batch - 1L)
    rs$call(batch_child, list(child = child, jobs = lapply(ii, job)))
    res <- NULL
    if (rs$poll_process(as.integer(timeout * 1000)) != "timeout") {
      res <- tryCatch(rs$read(), error = function(e) NULL)
    }
    if (!is.null(res) && is.null(res$error) && rs$is_alive() && length(res$result) == length(ii)) {
      rows[ii] <- Map(answered, calls[ii], res$result)
    } else {
      restart()
      rows[ii] <- lapply(ii, alone)
    }
    if (progress) message(max(ii), " / ", length(calls))
  }
  do.call(rbind, rows)
}

# Per-label tally: hostile inputs tried (baselines not counted), and outcomes.
sweep_tally <- function(res) {
  hostile <- res[res$arg != "(baseline)", ]
  labs <- unique(res$label)
  count <- function(l, o) sum(hostile$label == l & hostile$outcome %in% o)
  data.frame(
    export = labs,
    tried = vapply(labs, function(l) sum(hostile$label == l), integer(1)),
    classed = vapply(labs, count, integer(1), o = "classed"),
    accepted = vapply(labs, count, integer(1), o = "accepted"),
    crash = vapply(labs, count, integer(1), o = "crash"),
    hang = vapply(labs, count, integer(1), o = "hang"),
    unclassed_or_silent = vapply(labs, count, integer(1), o = c("misnamed", "plain", "silent", "refused")),
    baseline_ok = vapply(labs, function(l) all(res$outcome[res$label == l & res$arg == "(baseline)"] == "accepted"), logical(1)),
    row.names = NULL, stringsAsFactors = FALSE)
}

sweep_failures <- function(res) {
  bad <- res[res$outcome %in% sweep_bad_outcomes, ]
  if (!nrow(bad)) return(character())
  sprintf("%s: %s = <%s> -> %s %s", bad$label, bad$arg, bad$hostile, bad$outcome, bad$detail)
}
