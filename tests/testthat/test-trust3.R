# Trust, third round: each block reproduces a defect found by the fifth audit
# (copies of a budget, refunds, hand-made releases that contradict their
# guarantee, readers, hand-made statistics, bounds that are themselves a
# release) and checks its fix.

test_that("a budget restored from a file, made by hand or used in a forked worker is refused; the original keeps count", {
  set.seed(301)
  x <- matrix(rnorm(300), 100, 3)
  b <- dp_budget(1, 1e-5)
  f <- tempfile(fileext = ".rds")
  saveRDS(b, f)
  copy <- readRDS(f)
  unlink(f)
  e <- expect_error(analyze_gauss(x, 0.9, 1e-6, clip = 2, budget = copy), class = "dpcov_budget_error")
  expect_identical(e$arg, "budget")
  expect_match(conditionMessage(e), "restored from a file")
  # its figures are a snapshot: said, with a classed warning and `copy`
  w <- expect_warning(spent_copy <- budget_spent(copy), class = "dpcov_budget_warning")
  expect_match(conditionMessage(w), "copy of a dp_budget.*may be stale")
  expect_equal(spent_copy$charges, 0)
  expect_true(spent_copy$copy)
  expect_match(paste(wide_output(print(copy)), collapse = " "), "Note: this is a copy of a dp_budget")
  # the original still charges, and refuses what the copy would have allowed
  analyze_gauss(x, 0.9, 1e-6, clip = 2, budget = b)
  expect_no_warning(spent <- budget_spent(b))
  expect_equal(spent$charges, 1)
  expect_false(spent$copy)
  expect_false(any(grepl("copy", wide_output(print(b)))))
  # after the original's charge, the copy's figures are stale, which it says
  expect_equal(suppressWarnings(budget_spent(copy))$charges, 0)
  expect_error(analyze_gauss(x, 0.9, 1e-6, clip = 2, budget = b), class = "dpcov_budget_error")
  # a hand-made account with valid fields
  forged <- structure(list(account = list2env(mget(ls(b$account), b$account))), class = "dp_budget")
  expect_error(dp_cov(x, 0.05, 1e-7, lower = -3, upper = 3, budget = forged), class = "dpcov_budget_error")
  # a locked account cannot record a charge: refused, classed
  locked <- dp_budget(1, 1e-5)
  lockEnvironment(locked$account, bindings = TRUE)
  e <- expect_error(analyze_gauss(x, 0.1, 1e-6, clip = 2, budget = locked), class = "dpcov_budget_error")
  expect_match(conditionMessage(e), "locked")
  # a forked worker holds a copy of the account: refused there, nothing lost here
  skip_on_os("windows")
  got <- parallel::mclapply(1:2, function(i) {
    tryCatch({
      analyze_gauss(x, 0.05, 1e-7, clip = 2, budget = b)
      "charged"
    }, dpcov_budget_error = function(e) if (grepl("forked", conditionMessage(e))) "refused" else "other")
  }, mc.cores = 2L)
  expect_identical(unlist(got), c("refused", "refused"))
  # and a forked copy's budget_spent() says it is a copy
  seen <- parallel::mclapply(1:2, function(i) tryCatch(budget_spent(b)$copy, dpcov_budget_warning = function(w) "warned"),
                             mc.cores = 2L)
  expect_identical(unlist(seen), c("warned", "warned"))
  expect_equal(budget_spent(b)$charges, 1)
})

test_that("ldp_perturb() withdraws its charge when it refuses the input's kind, keeps it for its values", {
  set.seed(302)
  x <- matrix(rnorm(300), 100, 3)
  x[5, 2] <- NA
  b <- dp_budget(2, 1e-4, neighbor = "replace-one")
  expect_error(ldp_perturb(second_moment(x[-5, ], 1), 0.1, 1e-6, clip = 1, budget = b), class = "dpcov_error")
  expect_error(ldp_perturb(matrix("a", 2, 2), 0.1, 1e-6, clip = 1, budget = b), class = "dpcov_error")
  expect_equal(budget_spent(b)$charges, 0)
  # a missing value: a refusal of the values, whose charge stands
  expect_error(ldp_perturb(x, 0.1, 1e-6, clip = 1, budget = b), class = "dpcov_data_error")
  expect_equal(budget_spent(b)$charges, 1)
  ldp_perturb(x[-5, ], 0.1, 1e-6, clip = 1, budget = b)
  expect_equal(budget_spent(b)$charges, 2)
})

test_that("a hand-made release whose fields contradict its guarantee is refused, never printed as private", {
  set.seed(303)
  x <- matrix(rnorm(3000), 1000, 3, dimnames = list(NULL, c("a", "b", "y")))
  r <- analyze_gauss(x, 1, 1e-5, clip = 3)
  expect_true(has_guarantee(r))
  expect_error(print(r), NA)
  no_clip <- r
  no_clip$clip <- Inf
  e <- expect_error(print(no_clip), class = "dpcov_error")
  expect_match(conditionMessage(e), "guarantee")
  no_eps <- r
  no_eps$epsilon <- NA_real_
  expect_error(has_guarantee(no_eps), class = "dpcov_error")
  expect_error(dp_pca(no_eps), class = "dpcov_error")
  # add/remove releases do not release n
  with_n <- r
  with_n$n <- 1000
  e <- expect_error(print(with_n), class = "dpcov_error")
  expect_identical(e$arg, "x")
  expect_error(dp_as_cov(with_n, center = c(0, 0, 0)), class = "dpcov_error")
  rb <- dp_cov(x, 1, 1e-5, lower = -4, upper = 4)
  rb$n_public <- TRUE
  expect_error(dp_lm(rb, y ~ a + b, B = 5), class = "dpcov_error")
  rb$n_public <- "yes"
  expect_error(dp_lm(rb, y ~ a + b, B = 5), class = "dpcov_error")
  # guarantee text missing, and n beyond 2^53
  r1 <- analyze_gauss(x, 1, 1e-5, clip = 3, neighbor = "replace-one")
  no_text <- r1
  no_text$guarantee <- NULL
  expect_error(dp_as_cov(no_text, center = c(0, 0, 0)), class = "dpcov_error")
  expect_error(qda_plugin(x, rep(1:2, 500), cov = no_text), class = "dpcov_error")
  big_n <- dp_threshold(x, 1, 1e-5, clip = 3)
  big_n$n <- 1e308
  expect_error(dp_lm(big_n, y ~ a + b, B = 5), class = "dpcov_error")
  # a release relabelled as compressed rows
  relabelled <- r
  class(relabelled) <- c("dp_compress", "dp_release")
  expect_error(compressed_cov(relabelled), class = "dpcov_error")
  expect_error(compressed_lm(relabelled, "y"), class = "dpcov_error")
  expect_error(print(relabelled), class = "dpcov_error")
})

test_that("a reader whose blocks change their columns' names or order is refused", {
  set.seed(304)
  b1 <- cbind(a = rnorm(50, 10), b = rnorm(50))
  b2 <- cbind(b = rnorm(50), a = rnorm(50, 10))
  blocks_reader <- function(blocks) {
    i <- 0
    function() {
      i <<- i + 1
      if (i > length(blocks)) {
        i <<- 0
        return(NULL)
      }
      blocks[[i]]
    }
  }
  e <- expect_error(second_moment(blocks_reader(list(b1, b2)), clip = Inf), class = "dpcov_error")
  expect_identical(e$arg, "x")
  expect_match(conditionMessage(e), "not the first block's")
  expect_error(analyze_gauss(blocks_reader(list(b1, b2)), 1, 1e-6, clip = 20), class = "dpcov_error")
  renamed <- b2
  colnames(renamed) <- c("height", "weight")
  expect_error(second_moment(blocks_reader(list(b1, renamed)), clip = Inf), class = "dpcov_error")
  # the same names in the same order, or unnamed blocks, are summed as before
  s <- second_moment(blocks_reader(list(b1, b2[, c("a", "b")])), clip = Inf)
  expect_equal(s$gram, crossprod(rbind(b1, b2[, c("a", "b")])))
  s <- second_moment(blocks_reader(list(unname(b1), unname(b2))), clip = Inf)
  expect_equal(unname(s$gram), unname(crossprod(rbind(b1, b2))))
})

test_that("a hand-made dp_suffstat whose rows break `clip` is refused (the trace bound)", {
  X <- matrix(1, 100, 3)  # every row has norm sqrt(3) > clip = 1, every diagonal entry n
  s <- structure(list(gram = crossprod(X), n = 100, p = 3, clip = 1, sum = colSums(X)),
                 class = c("dp_suffstat", "dp_nonprivate"))
  e <- expect_error(analyze_gauss(s, 1, 1e-5), class = "dpcov_error")
  expect_match(conditionMessage(e), "trace")
  # the statistics of rows clipped to 1 pass
  expect_s3_class(analyze_gauss(second_moment(X, 1), 1, 1e-5), "dp_release")
  expect_s3_class(analyze_gauss(second_moment(X / sqrt(3), 1), 1, 1e-5), "dp_release")
})

test_that("bounds released by dp_column_bounds() are counted in the guarantee of the release that uses them", {
  set.seed(305)
  n <- 4000
  d <- data.frame(x = rnorm(n, 5))
  d$y <- 2 * d$x + rnorm(n)
  cb <- dp_column_bounds(d, epsilon = 0.5, delta = 1e-7)
  set.seed(1)
  r <- dp_cov(d, 0.5, 1e-6, bounds = cb)
  set.seed(1)
  r_public <- dp_cov(d, 0.5, 1e-6, bounds = cb$bounds)
  # the same numbers (the bounds are the same), a different account
  expect_identical(r$estimate, r_public$estimate)
  expect_equal(r$epsilon, 0.5 + cb$epsilon)
  expect_equal(r$delta, 1e-6 + cb$delta)
  expect_true(has_guarantee(r))
  expect_match(r$guarantee, "^\\(1, 1\\.1e-06\\)-differential privacy in all")
  expect_match(r$guarantee, "dp_column_bounds", fixed = TRUE)
  expect_identical(r$params$bounds_guarantee$neighbor, "any")
  expect_match(r$mechanism, "from a dp_column_bounds() release", fixed = TRUE)
  expect_equal(r_public$epsilon, 0.5)
  expect_identical(r_public$params$bounds_source, "public")
  expect_null(r_public$params$bounds_guarantee)
  # under add/remove the bounds' utilities move by at most 1 under every
  # notion (as the ledger records them): a replace-one release adds them once
  bud <- dp_budget(10, 1e-4, neighbor = "replace-one")
  cbb <- dp_column_bounds(d, epsilon = 0.5, delta = 1e-7, budget = bud)
  r1 <- dp_cov(d, 0.5, 1e-6, bounds = cbb, neighbor = "replace-one", budget = bud)
  expect_equal(r1$epsilon, 0.5 + cbb$epsilon)
  expect_equal(r1$delta, 1e-6 + cbb$delta)
  expect_lte(budget_spent(bud)$epsilon, r1$epsilon + 1e-12)
  # zero-out bounds on a replace-one release count twice (group privacy)
  cbz <- dp_column_bounds(d, epsilon = 0.5, delta = 1e-7, neighbor = "zero-out")
  r2 <- dp_cov(d, 0.5, 1e-6, bounds = cbz, neighbor = "replace-one")
  expect_equal(r2$epsilon, 0.5 + 2 * cbz$epsilon)
  expect_equal(r2$delta, 1e-6 + cbz$delta * (1 + exp(cbz$epsilon)))
  # bounds released under replace-one give an add/remove release no guarantee: refused before any charge
  cb1 <- dp_column_bounds(d, epsilon = 0.5, delta = 1e-7, neighbor = "replace-one")
  b <- dp_budget(5, 1e-4)
  e <- expect_error(dp_cov(d, 0.5, 1e-6, bounds = cb1, budget = b), class = "dpcov_error")
  expect_identical(e$arg, "bounds")
  expect_error(wishart_noise(d, 0.5, 1e-6, bounds = cb1, budget = b), class = "dpcov_error")
  expect_error(dp_lm(y ~ x, d, 0.5, 1e-6, bounds = cb1, budget = b), class = "dpcov_error")
  expect_equal(budget_spent(b)$charges, 0)
  expect_equal(iwishart_posterior(d, 0.5, 1e-6, bounds = cb1)$epsilon, 0.5 + cb1$epsilon)
  # Algorithm 5's release is add/remove: refused before any charge, as the others
  expect_error(iwishart_adaptive(d, 0.5, 1e-6, bounds = cb1, budget = b), class = "dpcov_error")
  expect_equal(budget_spent(b)$charges, 0)
  # the other entry points: the mechanisms, dp_lm() and dp_pca()
  expect_equal(analyze_gauss(d, 0.5, 1e-6, bounds = cb)$epsilon, 0.5 + cb$epsilon)
  expect_equal(jl_ridge(d, 0.5, 1e-6, bounds = cb)$epsilon, 0.5 + cb$epsilon)
  f <- dp_lm(y ~ x, d, 0.5, 1e-6, bounds = cb, B = 10)
  expect_equal(glance(f)$epsilon, 0.5 + cb$epsilon)
  expect_match(f$guarantee, "dp_column_bounds", fixed = TRUE)
  pc <- dp_pca(d, epsilon = 0.5, delta = 1e-6, bounds = cb)
  expect_match(pc$guarantee, "^\\(1, 1\\.1e-06\\)-differential privacy in all")
  # a statistic cannot carry the bounds' guarantee
  expect_error(second_moment(d, bounds = cb), class = "dpcov_error")
})

test_that("dp_lm() and dp_pca() tighten public bounds by default only where the target is a twentieth of n", {
  # faithful's columns are bimodal and these public bounds are their ranges:
  # a tightened bound lands in the gap between the modes and clamps most rows
  b <- list(eruptions = c(1.6, 5.1), waiting = c(43, 96))
  set.seed(306)
  tightened <- function(rel) identical(rel$tuning$method, "public bounds tightened privately")
  f <- dp_lm(eruptions ~ waiting, faithful, 0.5, 1e-6, neighbor = "replace-one", bounds = b, B = 0)
  expect_false(tightened(f$release))
  f <- dp_lm(eruptions ~ waiting, faithful, 1, 1e-6, neighbor = "replace-one", bounds = b, B = 0)
  expect_false(tightened(f$release))
  f <- dp_lm(eruptions ~ waiting, faithful, 4, 1e-6, neighbor = "replace-one", bounds = b, B = 0)
  expect_true(tightened(f$release))
  pc <- dp_pca(faithful, epsilon = 0.5, delta = 1e-6, bounds = b, neighbor = "replace-one")
  expect_false(grepl("tightened", pc$guarantee))
  pc <- dp_pca(faithful, epsilon = 4, delta = 1e-6, bounds = b, neighbor = "replace-one")
  expect_true(grepl("tightened", pc$guarantee))
})

test_that("dp_lm()'s default intervals cover on faithful with its ranges as public bounds (control: tighten = TRUE)", {
  skip_if_not_extended()
  b <- list(eruptions = c(1.6, 5.1), waiting = c(43, 96))
  truth <- unname(stats::coef(stats::lm(eruptions ~ waiting, faithful))["waiting"])
  covers <- function(tighten, seed) {
    set.seed(seed)
    vapply(seq_len(40), function(i) {
      f <- dp_lm(eruptions ~ waiting, faithful, 0.5, 1e-6, neighbor = "replace-one", bounds = b, B = 100,
                 tighten = tighten)
      ci <- stats::confint(f)["waiting", ]
      ci[[1]] < truth && truth < ci[[2]]
    }, logical(1))
  }
  # 95% intervals: at least 31 of 40 cover unless the level is far off
  # (binomial(40, 0.95) puts about 1e-5 at or below 30)
  expect_gte(sum(covers(NULL, 307)), 31)
  # the previous default (tightened at this n and epsilon) covered about half
  expect_lt(sum(covers(TRUE, 307)), 31)
})

test_that("hand-made noise parameters and counts of a release or fit are checked, not taken by absolute value", {
  set.seed(308)
  x <- matrix(rnorm(3000), 1000, 3, dimnames = list(NULL, c("a", "b", "y")))
  r <- analyze_gauss(x, 1, 1e-5, clip = 3, neighbor = "replace-one")
  expect_s3_class(dp_lm(r, y ~ a + b - 1, B = 5), "dp_lm")
  neg <- r
  neg$params$sigma <- -neg$params$sigma
  e <- expect_error(dp_lm(neg, y ~ a + b - 1, B = 5), class = "dpcov_error")
  expect_match(conditionMessage(e), "params$sigma", fixed = TRUE)
  f <- dp_lm(r, y ~ a + b - 1, B = 5)
  f$n <- -5
  expect_error(nobs(f), class = "dpcov_error")
  expect_error(glance(f), class = "dpcov_error")
})

test_that("dp_as_cov() centred at another release's mean states the total of both releases", {
  set.seed(309)
  x <- matrix(rnorm(3000, 5), 1000, 3)
  r <- dp_cov(x, 1, 1e-6, clip = 4, clip_mean = 12)                        # add/remove
  a <- dp_threshold(x, 1, 1e-6, clip = 12)                                 # replace-one
  cv <- dp_as_cov(a, center = r)
  expect_true(has_guarantee(cv))
  expect_identical(cv$neighbor, "replace-one")
  # the add/remove mean counts twice under replace-one (group privacy)
  expect_equal(cv$epsilon, 1 + 2 * 1)
  expect_equal(cv$delta, 1e-6 + 1e-6 * (1 + exp(1)))
  expect_match(cv$guarantee, "in all", fixed = TRUE)
  # the same notion: the plain sum
  r1 <- dp_cov(x, 0.5, 1e-7, clip = 4, clip_mean = 12, neighbor = "replace-one")
  cv1 <- dp_as_cov(a, center = r1)
  expect_equal(c(cv1$epsilon, cv1$delta), c(1.5, 1e-6 + 1e-7))
  # the estimate is the same as with the mean given as numbers
  expect_equal(cv1$estimate, dp_as_cov(a, center = r1$center)$estimate)
  # numbers: the release's own guarantee, with the note
  cvn <- dp_as_cov(a, center = r1$center)
  expect_equal(cvn$epsilon, 1)
  expect_match(cvn$guarantee, "adds that release's", fixed = TRUE)
})

test_that("dp_pca() of a release centred at another release's mean takes its guarantee, source and label from both", {
  set.seed(310)
  X <- matrix(rnorm(3000), 1000, dimnames = list(NULL, c("a", "b", "c")))
  ag <- analyze_gauss(X, 1, 1e-6, clip = 20, neighbor = "replace-one")
  cc <- dp_cov(X, 1, 1e-6, clip = 20, clip_mean = 20)
  p1 <- dp_pca(ag, center = cc)
  conv <- dp_as_cov(ag, center = cc)
  expect_equal(p1$source$epsilon, conv$epsilon)
  expect_equal(p1$source$delta, conv$delta)
  expect_gt(p1$source$epsilon, 1)
  expect_identical(p1$guarantee, conv$guarantee)
  expect_false(inherits(p1, "dp_nonprivate"))
  # a mean from a release without a guarantee: none, labelled so
  cn <- cc
  cn$params$no_formal_guarantee <- TRUE
  cn$guarantee <- "NONE: hand-made"
  p2 <- dp_pca(ag, center = cn)
  expect_match(p2$guarantee, "^NONE")
  expect_s3_class(p2, "dp_nonprivate")
  expect_false(p2$source$has_guarantee)
})

test_that("fifth-audit privacy review: pure-DP restatement at large epsilon, numeric headers, n and notion, centres by name", {
  set.seed(311)
  x <- matrix(rnorm(3000), 1000, 3, dimnames = list(NULL, c("a", "b", "c")))
  # a zero-out, delta = 0 step restated under replace-one at epsilon 800: (1600, 0), not NaN
  b <- dp_budget(1000, 1e-3, neighbor = "replace-one")
  # the ledger restates the charge as 1600 and refuses it, classed (it was NaN)
  expect_error(dp_column_bounds(x, epsilon = 800, neighbor = "zero-out", budget = b), class = "dpcov_budget_error")
  expect_equal(budget_spent(b)$charges, 0)
  cb <- dp_column_bounds(x, epsilon = 800, neighbor = "zero-out")
  r <- analyze_gauss(x, 1, 1e-6, bounds = cb, neighbor = "replace-one")
  expect_equal(r$epsilon, 1 + 1600)
  expect_equal(r$delta, 1e-6)
  # a headerless file read with header = TRUE: its first record would become the column names
  rec <- cbind(age = c(31, 45, 52), income = c(45402, 51000, 38000))
  f <- tempfile(fileext = ".csv")
  utils::write.table(rec, f, sep = ",", row.names = FALSE, col.names = FALSE)
  e <- expect_error(csv_reader(f), class = "dpcov_error")
  expect_identical(e$arg, "header")
  expect_false(grepl("45402", conditionMessage(e), fixed = TRUE))
  expect_identical(nrow(second_moment(csv_reader(f, header = FALSE), 1e6)$gram), 2L)
  unlink(f)
  # n and the notion agree both ways
  rr <- dp_cov(x, 1, 1e-6, clip = 5, clip_mean = 5)
  rr$neighbor <- "replace-one"
  expect_error(dp_lm(rr, c ~ a + b, B = 5), class = "dpcov_error")
  r1 <- dp_cov(x, 1, 1e-6, clip = 5, clip_mean = 5, neighbor = "replace-one")
  r1$n <- NA_real_
  expect_error(print(r1), class = "dpcov_error")
  # a centre named by column is matched by name; other names are refused
  xs <- x + rep(c(10, 0, -10), each = 1000)
  ag <- analyze_gauss(xs, 1, 1e-6, clip = 30, neighbor = "replace-one")
  cc <- dp_cov(xs[, c("c", "b", "a")], 0.5, 1e-7, clip = 30, clip_mean = 30, neighbor = "replace-one")
  o <- dp_as_cov(ag, center = cc)
  expect_identical(names(o$center), c("a", "b", "c"))
  expect_equal(unname(o$center), unname(cc$center[c("a", "b", "c")]))
  expect_equal(o$estimate, dp_as_cov(ag, center = unname(cc$center[c("a", "b", "c")]))$estimate)
  e <- expect_error(dp_as_cov(ag, center = c(a = 1, b = 2, z = 3)), class = "dpcov_error")
  expect_identical(e$arg, "center")
  # a conversion by dp_as_cov() cannot be bootstrapped by dp_lm(): said so, classed
  e <- expect_error(dp_lm(o, c ~ a + b, B = 0), class = "dpcov_error")
  expect_match(conditionMessage(e), "dp_as_cov")
  # the budget registry keeps a token's address and process, not the account
  bb <- dp_budget(1, 1e-6)
  reg <- get(bb$account$token, envir = dpcov:::budget_accounts)
  expect_named(reg, c("address", "pid"))
})

test_that("SQLite: a table's own column named like `a:1` is a name, not a repeated one", {
  skip_if_not_installed("RSQLite")
  con <- DBI::dbConnect(RSQLite::SQLite(), ":memory:")
  on.exit(DBI::dbDisconnect(con))
  set.seed(312)
  d <- data.frame(rnorm(50), rnorm(50))
  names(d) <- c("a", "a:1")
  DBI::dbWriteTable(con, "t1", d)
  s <- second_moment_db(con, "t1", clip = 5)
  expect_equal(unname(s$gram), unname(second_moment(as.matrix(d), 5)$gram))
  # a query repeating a name is still refused
  expect_error(second_moment_db(con, query = "SELECT a, a FROM t1", clip = 5), class = "dpcov_error")
})

test_that("last review: a header line with a number is refused, quoted or not; a centred release refuses `center`; bounds from a release are judged after composing", {
  f <- tempfile(fileext = ".csv")
  set.seed(313)
  # a quoted header of numbers is refused too: a headerless file written with
  # every field quoted looks the same (privacy audit: record 1 became the names)
  utils::write.csv(data.frame(`2019` = rnorm(20, 10), `2020` = rnorm(20, 12), check.names = FALSE), f, row.names = FALSE)
  e <- expect_error(csv_reader(f), class = "dpcov_error")
  expect_identical(e$arg, "header")
  # text names are a header, the control
  utils::write.csv(data.frame(y2019 = rnorm(20, 10), y2020 = rnorm(20, 12)), f, row.names = FALSE)
  blk <- csv_reader(f)()
  expect_identical(colnames(blk), c("y2019", "y2020"))
  expect_identical(nrow(blk), 20L)
  # a headerless file whose first record has a text field (an id) is refused: its numbers would become names
  d <- data.frame(id = sprintf("p%03d", 1:50), age = sample(20:80, 50, TRUE), income = round(rlnorm(50, 10, 0.6)))
  for (q in c(FALSE, TRUE)) {
    utils::write.table(d, f, sep = ",", row.names = FALSE, col.names = FALSE, quote = q)
    e <- expect_error(csv_reader(f, columns = 2:3), class = "dpcov_error")
    expect_identical(e$arg, "header")
    expect_false(grepl(d$age[1], conditionMessage(e), fixed = TRUE))
    blk <- csv_reader(f, columns = 2:3, header = FALSE)()
    expect_identical(nrow(blk), 50L)
  }
  # a number declared missing is refused with na = "error" (a free test of whether it occurs), allowed with "zero"
  utils::write.csv(data.frame(age = c(d$age[-1], 87), w = runif(50)), f, row.names = FALSE)
  e <- expect_error(csv_reader(f, na_strings = c("NA", "", "87")), class = "dpcov_error")
  expect_identical(e$arg, "na_strings")
  expect_error(csv_reader(f, na_strings = c("NA", " 8.7e1")), class = "dpcov_error")
  blk <- csv_reader(f, na = "zero", na_strings = c("NA", "", "87"))()
  expect_identical(unname(blk[50, "age"]), 0)
  unlink(f)
  x <- quakes[, c("lat", "long", "mag")]
  rc <- dp_cov(x, 1, 1e-6, lower = c(-40, 165, 4), upper = c(-10, 190, 6.5))
  e <- expect_error(dp_as_cov(rc, center = c(1, 2, 3)), class = "dpcov_error")
  expect_identical(e$arg, "center")
  # dp_cov() with bounds from a dp_column_bounds() release: the stored diagnostics are those print() shows
  # (the first seed whose release speaks of its bounds: a column at them, or a mean outside them)
  B <- MASS::Boston[, c("crim", "rm", "age", "dis", "lstat", "medv")]
  for (s in 1:200) {
    set.seed(s)
    cb <- suppressWarnings(dp_column_bounds(B, 1, 1e-7))
    rr <- suppressWarnings(dp_cov(B, epsilon = 1, delta = 1e-6, bounds = cb))
    if (any(grepl("(sits?|outside) .*bounds", rr$diagnostics$messages))) break
  }
  expect_identical(rr$diagnostics$level, release_diagnostics(rr)$level)
  expect_identical(rr$diagnostics$bounds_capped, isTRUE(cb$capped))
  expect_false(any(grepl("at (its|their) public bounds", rr$diagnostics$messages)))
  expect_true(any(grepl("private bounds from dp_column_bounds()", rr$diagnostics$messages, fixed = TRUE)))
})

test_that("private bounds that closed on a value most rows share are named, from the released spreads (audit J)", {
  X <- as.matrix(MASS::Boston)
  # zn and chas are both named in about half the releases (chas in 29 of
  # 30, zn in 15): the first seed where both are, checking the rule on every one
  for (s in 1:60) {
    set.seed(s)
    r <- suppressWarnings(dp_cov(X, epsilon = 8, delta = 1e-6, neighbor = "replace-one"))
    # plain R from released fields: bounds narrower than 1.5 times the private spread
    sc <- r$params$column_bounds$scale
    w <- r$params$bounds$upper - r$params$bounds$lower
    expect_identical(r$diagnostics$one_value, names(sc)[w < 1.5 * sc])
    expect_identical(r$diagnostics$level, "mostly noise")
    if (all(c("zn", "chas") %in% r$diagnostics$one_value)) break
  }
  expect_true(all(c("zn", "chas") %in% r$diagnostics$one_value))
  expect_match(paste(r$diagnostics$messages, collapse = " "), "private bounds of `zn`, `chas` are narrower than 1.5 times")
  # the variances they release are far below the truth: what the words warn of
  S <- stats::cov(X) * 505 / 506
  expect_lt(r$estimate["zn", "zn"] / S["zn", "zn"], 0.01)
  # controls: continuous columns, however skewed, span several spreads
  set.seed(1)
  Y <- cbind(a = rnorm(3000), b = exp(rnorm(3000)), c = rexp(3000))
  for (s in 1:5) {
    rc <- suppressWarnings(dp_cov(Y, 2, 1e-6))
    expect_length(rc$diagnostics$one_value, 0L)
  }
  # public bounds are not judged so
  rp <- suppressWarnings(dp_cov(X[, c("zn", "rm")], 8, 1e-6, bounds = list(zn = c(0, 100), rm = c(3, 9))))
  expect_length(rp$diagnostics$one_value, 0L)
  # dp_lm() on a 0/1 response with few ones: said, and the intervals called biased
  set.seed(8)
  n <- 2000
  d <- data.frame(d1 = as.numeric(runif(n) < 0.1), d2 = rnorm(n), d3 = rnorm(n))
  # (its private bounds close near 0, every 1 clamped; where they are
  # narrower than 1.5 private spreads, about half the releases, d1 is named:
  # the first seed where it is)
  for (s in 1:100) {
    set.seed(s)
    f <- suppressWarnings(dp_lm(d1 ~ d2 + d3, d, 2, 1e-6, neighbor = "replace-one", B = 20))
    if ("d1" %in% release_diagnostics(f$release)$one_value) break
  }
  expect_true("d1" %in% release_diagnostics(f$release)$one_value)
  expect_lt(f$release$params$bounds["d1", "upper"], 1)
  expect_true(f$diagnostics$intervals_biased)
  expect_identical(f$diagnostics$level, "mostly noise")
})

test_that("`y ~ .` with no other column is the intercept alone, as in lm(); an empty file refuses a position twice", {
  set.seed(314)
  d <- data.frame(y = rnorm(2000))
  f <- dp_lm(y ~ ., d, epsilon = 1, delta = 1e-6, bounds = list(y = c(-5, 5)), B = 0)
  expect_identical(names(coef(f)), names(coef(stats::lm(y ~ ., d))))
  g <- tempfile(fileext = ".csv")
  file.create(g)
  e <- expect_error(csv_reader(g, columns = c(2, 2), header = FALSE), class = "dpcov_error")
  expect_identical(e$arg, "columns")
  unlink(g)
})

test_that("off-diagonal entries noisy on the correlation scale are said, though the Frobenius ratio is one variance's (audit I)", {
  d <- datasets::quakes
  lo <- sapply(d, min)
  up <- sapply(d, max)
  set.seed(12)
  r <- suppressWarnings(dp_cov(d, 1, 1e-6, lower = lo, upper = up, type = "correlation"))
  # plain R from released fields: the median over pairs of the correlation-scale noise sd
  cs <- r$params$correlation_noise_sd
  expect_equal(r$diagnostics$correlation_noise, stats::median(cs[upper.tri(cs)]))
  expect_gt(r$diagnostics$correlation_noise, 0.1)
  expect_false(identical(r$diagnostics$level, "ok"))
  expect_match(paste(r$diagnostics$messages, collapse = " "), "off-diagonal entries are (noisy|mostly noise) on the correlation scale")
  # the covariance of the same draw says it too
  set.seed(12)
  rc <- suppressWarnings(dp_cov(d, 1, 1e-6, lower = lo, upper = up))
  expect_gt(rc$diagnostics$correlation_noise, 0.1)
  # control: a large n, the same bounds' scale: ok
  set.seed(3)
  n <- 20000
  X <- matrix(rnorm(n * 3), n) %*% chol(matrix(c(1, .5, .2, .5, 1, .3, .2, .3, 1), 3))
  ok <- suppressWarnings(dp_cov(X, 1, 1e-6, lower = -5, upper = 5, type = "correlation"))
  expect_lt(ok$diagnostics$correlation_noise, 0.1)
  expect_identical(ok$diagnostics$level, "ok")
})

test_that("dp_lm()'s release on bounds from a dp_column_bounds() release holds the diagnostics of what it says", {
  set.seed(315)
  B <- MASS::Boston[, c("rm", "lstat", "medv")]
  cb <- suppressWarnings(dp_column_bounds(B, 1, 1e-7))
  f <- suppressWarnings(dp_lm(medv ~ rm + lstat, B, 1, 1e-6, bounds = cb, B = 0))
  expect_identical(f$release$diagnostics$level, release_diagnostics(f$release)$level)
  expect_identical(f$release$diagnostics$messages, release_diagnostics(f$release)$messages)
})

test_that("a release on bounds from a dp_column_bounds() release speaks of those bounds, not of public or absent ones", {
  set.seed(309)
  d <- data.frame(y = rnorm(300), x = rnorm(300))
  cb <- suppressWarnings(dp_column_bounds(d, 0.2, 1e-6))
  expect_true(cb$capped)
  r <- suppressWarnings(dp_cov(d, 0.05, 1e-3, bounds = cb))
  m <- r$diagnostics$messages
  expect_true(any(grepl("the dp_column_bounds() release given as `bounds`", m, fixed = TRUE)))
  expect_false(any(grepl("no bounds given", m, fixed = TRUE)))
  expect_false(any(grepl("public bounds:", m, fixed = TRUE)))
  expect_true(any(grepl("the widths of the bounds (a dp_column_bounds() release)", m, fixed = TRUE)))
  f <- suppressWarnings(dp_lm(y ~ x, d, 0.3, 1e-3, bounds = cb, B = 50))
  expect_false(any(grepl("widths of the public bounds", f$diagnostics$messages, fixed = TRUE)))
  # the control: public bounds keep their words
  r_pub <- suppressWarnings(dp_cov(d, 0.05, 1e-3, lower = -4, upper = 4))
  expect_true(any(grepl("widths of the public bounds", r_pub$diagnostics$messages, fixed = TRUE)))
})

test_that("a failure after a noisy value was drawn keeps its charge; a private clip's range is checked before any charge", {
  # the numeric audit: bound_factor * a private quantile beyond the clip limits was refused
  # after the draw, quoting it, and refunded, so it could be replayed for free
  set.seed(310)
  B <- matrix(rnorm(3000), 1000, 3) * 1e46
  b <- dp_budget(1, 1e-5)
  e <- expect_error(dp_cov(B, 1, 1e-6, clip_mean = 1e47, bound_range = c(1e-3, 1e49), bound_factor = 1e5, budget = b),
                    class = "dpcov_error")
  expect_identical(e$arg, "bound_factor")
  expect_match(conditionMessage(e), "got [100, 1e+54]", fixed = TRUE)
  e <- expect_error(dp_cov(B, 1, 1e-6, clip_mean = 1e47, bound_range = c(1e-300, 1), budget = b), class = "dpcov_error")
  expect_identical(e$arg, "bound_range")
  expect_equal(budget_spent(b)$charges, 0)
  # the same refusal for a data set of another scale: it depends on public arguments only
  expect_error(dp_cov(B / 1e46, 1, 1e-6, clip_mean = 1, bound_range = c(1e-3, 1e49), bound_factor = 1e5), class = "dpcov_error")
  # the rule itself: refunded before any draw, kept after one
  b2 <- dp_budget(1, 1e-5)
  ch <- dpcov:::budget_charge(b2, "test", 0.1, 0, neighbor = "any")
  expect_error(dpcov:::with_refund(b2, ch, dpcov:::abort("shape", .arg = "x")), class = "dpcov_error")
  expect_equal(budget_spent(b2)$charges, 0)
  ch <- dpcov:::budget_charge(b2, "test", 0.1, 0, neighbor = "any")
  expect_error(dpcov:::with_refund(b2, ch, {
    dpcov:::symmetric_gaussian_cpp(2L, 1)  # a draw in C++
    dpcov:::abort("after a draw", .arg = "x")
  }), class = "dpcov_error")
  expect_equal(budget_spent(b2)$charges, 1)
  ch <- dpcov:::budget_charge(b2, "test", 0.1, 0, neighbor = "any")
  expect_error(dpcov:::with_refund(b2, ch, {
    dpcov:::rgeometric2(1, 1)  # a draw in R
    dpcov:::abort("after a draw", .arg = "x")
  }), class = "dpcov_error")
  expect_equal(budget_spent(b2)$charges, 2)
  # the user's own use of R's RNG (in a reader, say) is no draw of the package: refunded
  ch <- dpcov:::budget_charge(b2, "test", 0.1, 0, neighbor = "any")
  expect_error(dpcov:::with_refund(b2, ch, {
    stats::rnorm(1)
    dpcov:::abort("shape", .arg = "x")
  }), class = "dpcov_error")
  expect_equal(budget_spent(b2)$charges, 2)
  # dp_lm()'s "no terms and no intercept" is the formula's: refused before the private bounds draw
  b4 <- dp_budget(5, 1e-4)
  dd <- data.frame(y = rnorm(200), x = rnorm(200))
  expect_error(dp_lm(y ~ 0, dd, 1, 1e-6, budget = b4, B = 0), "no terms and no intercept", class = "dpcov_error")
  expect_equal(budget_spent(b4)$charges, 0)
  # every release draws through the counted paths (so any RNG kind is covered)
  d0 <- dpcov:::data_touches()
  dp_cov(dd, 1, 1e-6, lower = -5, upper = 5)
  expect_gt(dpcov:::data_touches(), d0)
  d1 <- dpcov:::data_touches()
  dp_column_bounds(dd, 1, 1e-6)
  expect_gt(dpcov:::data_touches(), d1)
  # a data frame whose matrix column expands to a name twice is refused before the charge
  dm <- data.frame(m.1 = rnorm(100)); dm$m <- matrix(rnorm(200), 100, 2)
  b3 <- dp_budget(5, 1e-4)
  expect_error(dp_cov(dm, 1, 1e-6, lower = -9, upper = 9, budget = b3), "duplicate or missing column names")
  expect_equal(budget_spent(b3)$charges, 0)
})

test_that("re-review: a reader's reset failure keeps the charge and withholds its message; tighten checks names before drawing", {
  secret <- c(31, 47, 52)
  rd <- function(reset = FALSE) {
    if (reset) stop(paste(secret, collapse = " "))
    NULL
  }
  b <- dp_budget(10, 1e-3)
  e <- expect_error(dp_cov(rd, 1, 1e-6, clip = 10, budget = b), class = "dpcov_data_error")
  expect_false(grepl("31|47|52", conditionMessage(e)))
  n1 <- budget_spent(b)$charges
  expect_gt(n1, 0L)
  # a plain reader's failure mid-pass: message withheld, charge kept
  k <- 0
  rd2 <- function() {
    k <<- k + 1
    if (k > 1) stop("value 4711 seen")
    matrix(rnorm(20), 10, 2)
  }
  e <- expect_error(dp_cov(rd2, 1, 1e-6, clip = 10, clip_mean = 10, budget = b), class = "dpcov_data_error")
  expect_false(grepl("4711", conditionMessage(e)))
  expect_gt(budget_spent(b)$charges, n1)
  # dp_lm(tighten = TRUE) with a numeric variable missing from the bounds: refused before the draw, nothing charged
  set.seed(1)
  d <- data.frame(x1 = rnorm(500), x2 = rnorm(500))
  d$y <- d$x1 + rnorm(500)
  b2 <- dp_budget(10, 1e-3)
  e <- expect_error(dp_lm(y ~ x1 + x2, d, 1, 1e-6, B = 0, budget = b2, tighten = TRUE,
                          bounds = list(x1 = c(-4, 4), y = c(-15, 15))), class = "dpcov_error")
  expect_identical(e$arg, "bounds")
  expect_identical(budget_spent(b2)$charges, 0L)
})

test_that("final re-review: ifelse()'s branches are both evaluated; wrapped package readers keep their words", {
  set.seed(1)
  d <- data.frame(age = c(20, 35, 47, 61, 33, 29, 52, 44), y = rnorm(8))
  b <- dp_budget(10, 1e-4)
  msgs <- vapply(c(10, 60, 61, 100), function(t) {
    f <- stats::as.formula(sprintf("y ~ age + ifelse(age > %s, exp(), 0)", t))
    tryCatch({
      dp_lm(f, d, 0.5, 1e-6, clip = 100, B = 0, budget = b)
      "released"
    }, dpcov_error = conditionMessage)
  }, "")
  # the same refusal whatever the threshold (it used to succeed above the maximum age);
  # exp() fails whatever the values, so it is refused from the schema, before any charge
  expect_identical(length(unique(msgs)), 1L)
  expect_match(msgs[1], "model frame could not be built")
  expect_identical(budget_spent(b)$charges, 0L)
  # a legitimate ifelse() is unchanged
  fit <- dp_lm(y ~ ifelse(age > 40, age, 0), d, 1, 1e-6, clip = 100, B = 0)
  expect_s3_class(fit, "dp_lm")
  # a package reader's refusal keeps its words through dp_cov()'s bounds path
  x <- data.frame(a = rnorm(200), b = rnorm(200))
  x$a[7] <- NA
  f <- tempfile(fileext = ".csv")
  utils::write.csv(x, f, row.names = FALSE)
  e <- expect_error(dp_cov(csv_reader(f), 1, 1e-6, lower = c(a = -5, b = -5), upper = c(a = 5, b = 5)),
                    class = "dpcov_data_error")
  expect_match(conditionMessage(e), "`a` contains missing values")
  unlink(f)
  # an empty header field is V<j> in the message, as in the release
  writeLines(c("a,,c", "1,NA,3", "4,5,6"), f)
  e <- expect_error(dp_cov(csv_reader(f), 1, 1e-6, lower = c(0, 0, 0), upper = c(10, 10, 10)),
                    class = "dpcov_data_error")
  expect_match(conditionMessage(e), "`V2` contains missing values")
  writeLines(c("a,,c", "1,2,3", "4,5,6"), f)
  expect_identical(colnames(dp_cov(csv_reader(f), 1, 1e-6, lower = c(0, 0, 0), upper = c(10, 10, 10))$estimate),
                   c("a", "V2", "c"))
  unlink(f)
})

test_that("last check: constant-only variables, integer and NA constants refused from the formula; deep formulas; comparison-like names", {
  d <- data.frame(x = c(3, 5, 7), y = c(1, 2, 2))
  # a variable of constants alone had one value, so the model frame was built only when n = 1
  for (n in 0:3) for (f in c("y ~ x + I(2)", "y ~ x + pmin(1, 2)")) {
    b <- dp_budget(10, 1e-4)
    e <- expect_error(dp_lm(stats::as.formula(f), d[seq_len(n), ], 1, 1e-6, clip = 10, B = 0, budget = b),
                      "uses no column of `data`", class = "dpcov_error")
    expect_identical(budget_spent(b)$charges, 0L)
  }
  # ifelse() with a constant test is recycled to every row
  set.seed(1)
  f1 <- dp_lm(y ~ ifelse(TRUE, x, 0), d, 1, 1e-6, clip = 10, B = 0)
  set.seed(1)
  f2 <- dp_lm(y ~ x, d, 1, 1e-6, clip = 10, B = 0)
  expect_equal(unname(coef(f1)), unname(coef(f2)))
  # integer and NA constants crashed after the charge (labels unmatched); refused before it now
  for (f in c("y ~ I(x + 1L)", "y ~ I(x == NA_character_)", "y ~ ifelse(x > 4, x, NA)")) {
    b <- dp_budget(10, 1e-4)
    e <- expect_error(dp_lm(stats::as.formula(f), d, 1, 1e-6, clip = 10, B = 0, budget = b), "constant",
                      class = "dpcov_error")
    expect_identical(e$arg, "x")
    expect_identical(budget_spent(b)$charges, 0L)
  }
  # y ~ . over 110 columns overflowed the C stack (recursive call_heads())
  set.seed(1)
  X <- as.data.frame(matrix(runif(300 * 110), 300))
  X$y <- rnorm(300)
  expect_s3_class(suppressWarnings(dp_lm(y ~ ., X, 1, 1e-6, clip = 20, B = 0)), "dp_lm")
  # a numeric column named like a comparison is not bounded [0, 1] silently
  set.seed(2)
  dv <- data.frame(v = runif(500, 0, 100), y = rnorm(500))
  names(dv)[1] <- "v > 3"
  e <- expect_error(dp_lm(y ~ `v > 3`, dv, 5, 1e-6, bounds = list(y = c(-5, 10)), B = 0), "give public bounds",
                    class = "dpcov_error")
  expect_identical(e$arg, "bounds")
})
