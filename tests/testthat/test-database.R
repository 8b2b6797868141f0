# Sufficient statistics computed inside a real database (RSQLite), the chunk
# readers over a DBI result set and over a CSV file, and the same release from
# every source under the same seed.

skip_if_not_installed("DBI")
skip_if_not_installed("RSQLite")

db_data <- function(n, p, seed = 1) {
  set.seed(seed)
  X <- matrix(stats::rnorm(n * p, mean = rep(rep_len(c(0, 3, -1, 10), p), each = n)), n, p,
              dimnames = list(NULL, paste0("x", seq_len(p))))
  X[seq_len(n / 20), ] <- X[seq_len(n / 20), ] * 5  # heavy rows: clipped
  X
}

db_memory <- function(tables) {
  con <- DBI::dbConnect(RSQLite::SQLite(), ":memory:")
  for (nm in names(tables)) DBI::dbWriteTable(con, nm, as.data.frame(tables[[nm]]))
  con
}

rel_err <- function(a, b) max(abs(a - b)) / max(abs(b))

test_that("in-database, streamed and in-memory statistics agree to 1e-10 on 10^6 rows (fast tier 10^5) with clipping", {
  n <- if (extended_tests()) 1e6 else 1e5
  chunk <- if (extended_tests()) 2^17 else 2^14  # several chunks either way
  X <- db_data(n, 4)
  clip <- 12
  f <- tempfile(fileext = ".sqlite")
  con <- DBI::dbConnect(RSQLite::SQLite(), f)
  on.exit({DBI::dbDisconnect(con); unlink(f)}, add = TRUE)
  DBI::dbWriteTable(con, "big", as.data.frame(X))
  csv <- tempfile(fileext = ".csv")
  on.exit(unlink(csv), add = TRUE)
  utils::write.csv(X, csv, row.names = FALSE)

  mem <- second_moment(X, clip)
  # a plain-R reference: the clipped rows, then long-double sums
  cf <- pmin(1, clip / sqrt(rowSums(X^2)))
  expect_equal(mem$gram, crossprod(X * cf), tolerance = 1e-12, ignore_attr = TRUE)
  expect_gt(mem$n_clipped, 1000)
  expect_lt(mem$n_clipped, n - 1000)

  sources <- list(db = second_moment_db(con, "big", clip = clip),
                  db_reader = second_moment(db_reader(con, "big", chunk_rows = chunk), clip),
                  csv_reader = second_moment(csv_reader(csv, chunk_rows = chunk), clip))
  for (s in names(sources)) {
    got <- sources[[s]]
    expect_s3_class(got, "dp_suffstat")
    expect_identical(got$n, n)
    expect_identical(got$n_clipped, mem$n_clipped)
    expect_identical(got$colnames, mem$colnames)
    expect_lt(rel_err(got$gram, mem$gram), 1e-10)
    expect_lt(max(abs(got$gram - mem$gram) / abs(mem$gram)), 1e-10)  # entry by entry
    expect_lt(max(abs(got$sum - mem$sum) / abs(mem$sum)), 1e-10)
  }
  # columns chosen, and a query
  expect_lt(rel_err(second_moment_db(con, "big", c("x4", "x2"), clip = 11)$gram,
                    second_moment(X[, c(4, 2)], 11)$gram), 1e-10)
})

test_that("second_moment_db() equals second_moment(): batches, a query, clip = Inf, integers, NULL as zero", {
  X <- db_data(4000, 6)
  con <- db_memory(list(t = X))
  on.exit(DBI::dbDisconnect(con))
  ref <- second_moment(X, 6)
  one <- second_moment_db(con, "t", clip = 6)
  expect_equal(one, ref, tolerance = 1e-12)
  # p = 6 gives 3 + 6 + 6 + 6 + 21 aggregates; 10 per query forces 5 scans
  expect_equal(second_moment_db(con, "t", clip = 6, max_terms = 10), one, tolerance = 1e-14)
  keep <- X[, "x2"] > 3
  expect_equal(second_moment_db(con, query = "SELECT x1, x3 FROM t WHERE x2 > 3;", clip = 6),
               second_moment(X[keep, c("x1", "x3")], 6), tolerance = 1e-12)
  # a final `;` with comments after it goes; a string literal is never cut
  expect_equal(second_moment_db(con, query = "SELECT x1, x3 FROM t WHERE x2 > 3; -- kept rows\n-- end\n", clip = 6),
               second_moment(X[keep, c("x1", "x3")], 6), tolerance = 1e-12)
  expect_equal(second_moment_db(con, query = "SELECT x1, x3 FROM t WHERE x2 > 3 -- kept rows", clip = 6),
               second_moment(X[keep, c("x1", "x3")], 6), tolerance = 1e-12)
  lit <- second_moment_db(con, query = "SELECT x1, x3 FROM t WHERE 'a; --b' <> 'c'", clip = 6)
  expect_equal(lit, second_moment(X[, c("x1", "x3")], 6), tolerance = 1e-12)
  expect_equal(second_moment_db(con, "t", clip = Inf), second_moment(X, Inf), tolerance = 1e-12)
  expect_equal(second_moment_db(con, DBI::Id(table = "t"), "x1", clip = 1)$gram,
               second_moment(X[, "x1", drop = FALSE], 1)$gram, tolerance = 1e-12)
  # integer columns are cast to doubles (no integer overflow in SQL)
  big_int <- data.frame(a = c(3e9, -2e9, 7), b = c(1L, 2L, 3L))
  DBI::dbWriteTable(con, "ints", big_int)
  expect_equal(second_moment_db(con, "ints")$gram, second_moment(big_int)$gram, tolerance = 1e-15)
  # NULL read as zero: the same as the data with zeros
  DBI::dbExecute(con, "CREATE TABLE nulls (a REAL, b REAL)")
  DBI::dbExecute(con, "INSERT INTO nulls VALUES (1, 2), (NULL, 3), (4, NULL), (0.5, 0.25)")
  Z <- cbind(a = c(1, 0, 4, 0.5), b = c(2, 3, 0, 0.25))
  expect_equal(second_moment_db(con, "nulls", clip = 2.5, na = "zero"), second_moment(Z, 2.5), tolerance = 1e-14)
  expect_equal(second_moment(db_reader(con, "nulls", na = "zero"), 2.5), second_moment(Z, 2.5), tolerance = 1e-14)
  # not private, and says so
  expect_s3_class(one, "dp_nonprivate")
  expect_output(print(one), "NOT a private release")
})

test_that("bad sources give classed errors naming the argument", {
  X <- db_data(100, 3)
  con <- db_memory(list(t = X, chr = data.frame(a = 1:3, b = c("u", "v", "w"))))
  DBI::dbExecute(con, "CREATE TABLE empty (a REAL, b REAL)")
  DBI::dbExecute(con, "CREATE TABLE nulls (a REAL, b REAL)")
  DBI::dbExecute(con, "INSERT INTO nulls VALUES (1, 2), (NULL, 3)")
  # SQLite types values, not columns: a text value in a REAL column
  DBI::dbExecute(con, "CREATE TABLE mixed (a REAL, b REAL)")
  DBI::dbExecute(con, "INSERT INTO mixed VALUES (1, 2), (2, 'abc')")
  DBI::dbExecute(con, "CREATE TABLE infs (a REAL, b REAL)")
  DBI::dbExecute(con, "INSERT INTO infs VALUES (1, 2), (9e999, 1)")
  err <- function(expr, arg, pattern) {
    e <- expect_error(expr, class = "dpcov_error")
    expect_identical(e$arg, arg)
    expect_match(conditionMessage(e), pattern)
  }
  for (f in list(function(...) second_moment_db(..., clip = 2),
                 function(...) second_moment(db_reader(...), 2))) {
    err(f(con, "t", c("x1", "zz")), "columns", "zz not found")
    err(f(con, "chr"), "columns", "`columns`: `b` holds text or blob values")
    err(f(con, "nosuch"), "table", "no such table")
    err(f(con, query = "SELEC x1 FROM t"), "query", "syntax error")
    err(f(con, "t", query = "SELECT x1 FROM t"), "query", "not both")
    err(f(con), "table", "table")
    err(f("not a connection", "t"), "conn", "DBI connection")
  }
  # no rows are data, as in memory: statistics of n = 0
  expect_equal(second_moment_db(con, "empty", clip = 2), second_moment(matrix(0, 0, 2, dimnames = list(NULL, c("a", "b"))), 2))
  expect_equal(second_moment(db_reader(con, "empty"), 2), second_moment(matrix(0, 0, 2, dimnames = list(NULL, c("a", "b"))), 2))
  err(second_moment_db(con, "nulls", clip = 2), "na", "NULL values in `columns` a; use na")
  err(second_moment(db_reader(con, "nulls"), 2), "x", "missing values.*na = \"zero\"")
  err(second_moment_db(con, "mixed", clip = 2), "columns", "`b` holds text")
  err(second_moment_db(con, "infs", clip = 2), "table", "infinite or NaN")
  err(second_moment_db(con, query = "SELECT * FROM infs", clip = Inf), "query", "infinite or NaN")
  err(second_moment_db(con, "t", na = "drop"), "na", "one of")
  err(second_moment_db(con, "t", double_type = "REAL); DROP TABLE t; --"), "double_type", "SQL type")
  # a dropped connection, before and during a pass
  r <- db_reader(con, "t", chunk_rows = 30)
  expect_true(is.matrix(r()))
  suppressWarnings(DBI::dbDisconnect(con))  # warns of the reader's open result set
  err(second_moment_db(con, "t", clip = 2), "conn", "closed or dropped")
  err(db_reader(con, "t"), "conn", "closed or dropped")
  # (the reader's connection is checked with its schema, before any read)
  err(second_moment(r, 2), "x", "its connection is closed")
})

test_that("no rows from a reader are data, as in memory: under add/remove the same releases as n = 0", {
  X0 <- matrix(numeric(0), 0, 2, dimnames = list(NULL, c("a", "b")))
  h <- tempfile(fileext = ".csv")
  writeLines("a,b", h)
  con <- db_memory(list(t = db_data(10, 2)))
  DBI::dbExecute(con, "CREATE TABLE empty (a REAL, b REAL)")
  readers <- list(csv = function() csv_reader(h), db = function() db_reader(con, "empty"),
                  fn = function() {
                    k <- 0
                    function() {
                      k <<- k + 1
                      if (k %% 2 == 0) NULL else X0
                    }
                  })
  for (nm in names(readers)) {
    # a reader over no rows returns its columns first, then NULL, and starts again
    r <- readers[[nm]]()
    expect_identical(r(), X0, label = nm)
    expect_null(r())
    expect_identical(r(), X0, label = nm)
    expect_null(r())
    # the two-pass release and Analyze Gauss: the in-memory release under the same seed
    set.seed(11)
    a <- suppressWarnings(dp_cov(readers[[nm]](), 1, 1e-6, clip = 2, clip_mean = 2))
    set.seed(11)
    b <- suppressWarnings(dp_cov(X0, 1, 1e-6, clip = 2, clip_mean = 2))
    expect_equal(a$estimate, b$estimate, label = nm)
    expect_equal(a$params$n_noisy, b$params$n_noisy, label = nm)
    set.seed(12)
    a <- suppressWarnings(analyze_gauss(readers[[nm]](), 1, 1e-6, clip = 2))
    set.seed(12)
    b <- suppressWarnings(analyze_gauss(X0, 1, 1e-6, clip = 2))
    expect_equal(a$estimate, b$estimate, label = nm)
    # where n is public, too few rows is the (public) shape's refusal
    e <- expect_error(dp_cov(readers[[nm]](), 1, 1e-6, clip = 2, clip_mean = 2, neighbor = "replace-one"),
                      class = "dpcov_error")
    expect_identical(e$arg, "x")
  }
  # the default (private clips on the row norms) releases too, noise only
  set.seed(13)
  r0 <- suppressWarnings(dp_cov(readers$csv(), 1, 1e-6))
  expect_identical(dim(r0$estimate), c(2L, 2L))
  expect_true(all(is.finite(r0$estimate)))
  # a reader that returns no block at all leaves the columns unknown: refused, naming `x`
  e <- expect_error(second_moment(function() NULL, 1), "no block", class = "dpcov_error")
  expect_identical(e$arg, "x")
  DBI::dbDisconnect(con)
  unlink(h)
})

test_that("no rows where n is public: a classed error naming `x` before any charge; under add/remove, noise", {
  X0 <- matrix(numeric(0), 0, 3)
  calls <- list(
    analyze_gauss = function(nb, b) analyze_gauss(X0, 1, 1e-6, clip = 2, neighbor = nb, budget = b),
    analyze_gauss_box = function(nb, b) analyze_gauss(X0, 1, 1e-6, lower = c(0, 0, 0), upper = c(1, 1, 1),
                                                     neighbor = nb, budget = b),
    iwishart_posterior = function(nb, b) iwishart_posterior(X0, 1, 1e-6, clip = 2, budget = b))
  for (nm in names(calls)) {
    nbs <- if (nm == "iwishart_posterior") "replace-one" else c("replace-one", "zero-out")
    for (nb in nbs) {
      b <- dp_budget(5, 1e-3, neighbor = nb)
      e <- expect_error(calls[[nm]](nb, b), "has no rows: where n is public", class = "dpcov_error")
      expect_identical(e$arg, "x")
      expect_identical(nrow(as.data.frame(b)), 0L, label = paste(nm, nb, "charged"))
    }
  }
  # under add/remove the same calls release noise of the right shape
  r <- suppressWarnings(analyze_gauss(X0, 1, 1e-6, clip = 2))
  expect_true(is.na(r$n))
  expect_identical(dim(r$estimate), c(3L, 3L))
  expect_gt(sum(abs(r$estimate)), 0)
})

test_that("csv_reader(): columns, missing values and bad files", {
  X <- db_data(500, 3)
  f <- tempfile(fileext = ".csv")
  utils::write.csv(X, f, row.names = FALSE)
  expect_equal(second_moment(csv_reader(f, c("x3", "x1"), chunk_rows = 77), 4),
               second_moment(X[, c(3, 1)], 4), tolerance = 1e-13)
  expect_equal(second_moment(csv_reader(f, 2:3), 4), second_moment(X[, 2:3], 4), tolerance = 1e-13)
  g <- tempfile(fileext = ".tsv.gz")
  con <- gzfile(g, "w")
  utils::write.table(X, con, sep = "\t", row.names = FALSE, col.names = FALSE)
  close(con)
  expect_equal(second_moment(csv_reader(g, sep = "\t", header = FALSE), 4),
               second_moment(`colnames<-`(X, paste0("V", 1:3)), 4), tolerance = 1e-13)
  h <- tempfile(fileext = ".csv")
  writeLines(c("a,b,c", "1,2,3", "1,2,jane.doe@example.org", "3,4,5"), h)
  e <- expect_error(second_moment(csv_reader(h), 1), class = "dpcov_error")
  # the field's content and its line are data: neither is in the message
  expect_match(conditionMessage(e), "could not be read as numbers: a field of a selected column is not a number")
  expect_false(grepl("jane|[0-9]", conditionMessage(e)))
  e <- expect_error(dp_cov(csv_reader(h, chunk_rows = 1), 1, 1e-6, clip = 3, clip_mean = 3), class = "dpcov_error")
  expect_false(grepl("jane|[0-9]", sub("1e-06", "", conditionMessage(e), fixed = TRUE)))
  expect_equal(second_moment(csv_reader(h, c("a", "b")), 1), second_moment(cbind(a = c(1, 1, 3), b = c(2, 2, 4)), 1))
  writeLines(c("a,b", "1,", "NA,4", "5,6"), h)
  e <- expect_error(second_moment(csv_reader(h), 10), class = "dpcov_error")
  expect_match(conditionMessage(e), "`a`, `b` contain missing values")
  expect_equal(second_moment(csv_reader(h, na = "zero"), 10), second_moment(cbind(a = c(1, 0, 5), b = c(0, 4, 6)), 10))
  writeLines(c("a,b", "1,2,3"), h)
  expect_error(second_moment(csv_reader(h), 1), class = "dpcov_error")
  writeLines("a,b", h)
  expect_equal(second_moment(csv_reader(h), 1), second_moment(matrix(0, 0, 2, dimnames = list(NULL, c("a", "b"))), 1))
  writeLines(character(0), h)
  expect_error(csv_reader(h), "empty", class = "dpcov_error")
  expect_error(csv_reader(file.path(tempdir(), "no-such.csv")), "does not exist", class = "dpcov_error")
  expect_error(csv_reader(f, "zz"), "zz not found", class = "dpcov_error")
  expect_error(csv_reader(f, 9), "positions", class = "dpcov_error")
  expect_error(csv_reader(f, sep = ",,"), class = "dpcov_error")
  unlink(c(f, g, h))
})

test_that("the readers are re-readable, reset on request, and hold one block at a time", {
  X <- db_data(1000, 3)
  con <- db_memory(list(t = X))
  on.exit(DBI::dbDisconnect(con))
  f <- tempfile(fileext = ".csv")
  utils::write.csv(X, f, row.names = FALSE)
  for (r in list(db_reader(con, "t", chunk_rows = 300), csv_reader(f, chunk_rows = 300))) {
    expect_s3_class(r, "dp_reader")
    expect_output(print(r), "chunk reader")
    a <- second_moment(r, 2)
    expect_identical(second_moment(r, 2), a)  # starts again after NULL
    first <- r()
    expect_identical(dim(first), c(300L, 3L))
    r()                                       # a pass abandoned midway ...
    expect_null(r(reset = TRUE))              # ... is reset on request
    expect_identical(r(), first)
    # a pass of the package's functions starts at the first row, whatever the
    # reader's position: after a peek (or an interrupt) it read 700 of 1000 rows
    r()
    expect_identical(second_moment(r, 2), a)
    r(); r()
    expect_identical(analyze_gauss(r, 1, 1e-6, clip = 2, neighbor = "replace-one")$n, 1000)
    r(reset = TRUE)
    # nothing of the data is kept between blocks: only the source and the cursor
    env <- environment(r)
    expect_false(any(vapply(ls(env), function(v) is.numeric(get(v, env)) && length(get(v, env)) > 10, logical(1))))
  }
  unlink(f)
  # a pass stopped by the package's own check on a block (an infinite value in
  # row 450) resets the reader: the next pass starts again and fails the same
  # way, where it read the rows after the bad block before
  Xi <- X
  Xi[450, 2] <- Inf
  DBI::dbWriteTable(con, "ti", as.data.frame(Xi))
  g <- tempfile(fileext = ".csv")
  utils::write.csv(Xi, g, row.names = FALSE)
  for (r in list(db_reader(con, "ti", chunk_rows = 300), csv_reader(g, chunk_rows = 300))) {
    for (k in 1:3) expect_error(second_moment(r, 2), "infinite", class = "dpcov_error")
    expect_identical(dim(r()), c(300L, 3L))  # at the start
    r(reset = TRUE)
    b <- dp_budget(5, 1e-4)
    for (k in 1:2) expect_error(analyze_gauss(r, 1, 1e-6, clip = 2, budget = b), class = "dpcov_data_error")
    # a reader's refusal of its values keeps the charge: its reader or SQL may be
    # the analyst's, who could otherwise fail on purpose to test values for free
    expect_identical(nrow(as.data.frame(b)), 2L)
  }
  unlink(g)
})

test_that("every mechanism gives the same release from a matrix, statistics and readers under one seed", {
  X <- db_data(3000, 4, seed = 5)
  B <- 8
  con <- db_memory(list(t = X))
  on.exit(DBI::dbDisconnect(con))
  f <- tempfile(fileext = ".csv")
  utils::write.csv(X, f, row.names = FALSE)
  on.exit(unlink(f), add = TRUE)
  sources <- list(matrix = function(clip) X, suffstat = function(clip) second_moment(X, clip),
                  db = function(clip) second_moment_db(con, "t", clip = clip),
                  db_reader = function(clip) db_reader(con, "t", chunk_rows = 700),
                  csv_reader = function(clip) csv_reader(f, chunk_rows = 700))
  mechanisms <- list(
    analyze_gauss = function(x) analyze_gauss(x, 1, 1e-6, clip = B),
    analyze_gauss_shift = function(x) analyze_gauss(x, 1, 1e-6, clip = B, post = "shift"),
    wishart_noise = function(x) wishart_noise(x, 0.5, 1e-6, clip = B),
    jl_ridge = function(x) jl_ridge(x, 0.5, 1e-6, clip = B),
    jl_adaptive = function(x) jl_adaptive(x, 0.5, 1e-6, clip = B),
    iwishart_posterior = function(x) iwishart_posterior(x, 0.5, 1e-6, clip = B),
    iwishart_adaptive = function(x) iwishart_adaptive(x, 0.5, 1e-6, clip = B),
    dp_threshold = function(x) dp_threshold(x, 1, 1e-6, clip = B))
  for (m in names(mechanisms)) {
    rel <- lapply(sources, function(s) {
      set.seed(42)
      mechanisms[[m]](s(B))
    })
    # statistics computed by second_moment() on the same matrix: bitwise
    expect_identical(rel$suffstat$estimate, rel$matrix$estimate, label = paste(m, "suffstat"))
    for (s in c("db", "db_reader", "csv_reader")) {
      expect_equal(rel[[s]]$estimate, rel$matrix$estimate, tolerance = 1e-10, label = paste(m, s))
      expect_identical(rel[[s]]$params$sigma, rel$matrix$params$sigma)
    }
  }
  # the noise is the same draw: release minus statistics agrees to rounding
  set.seed(1); a <- analyze_gauss(X, 1, 1e-6, clip = B)
  set.seed(1); b <- analyze_gauss(sdb <- second_moment_db(con, "t", clip = B), 1, 1e-6)
  expect_equal(unname(b$estimate - sdb$gram), unname(a$estimate - second_moment(X, B)$gram), tolerance = 1e-9)
  # dp_compress needs the unclipped Gram
  set.seed(3); a <- suppressWarnings(dp_compress(X, m = 40))
  set.seed(3); b <- suppressWarnings(dp_compress(second_moment_db(con, "t"), m = 40))
  set.seed(3); d <- suppressWarnings(dp_compress(db_reader(con, "t"), m = 40))
  expect_equal(b$estimate, a$estimate, tolerance = 1e-10)
  expect_equal(d$estimate, a$estimate, tolerance = 1e-10)
  # dp_cov: two passes from the matrix and the re-readable readers (row-norm
  # bounds given, or chosen privately: four passes; public per-column bounds),
  # one pass from statistics wherever computed. (Without any bounds a matrix
  # takes the private per-column default, which readers do not have yet.)
  for (args in list(list(clip = B, clip_mean = B), list(clip = B), list(lower = -30, upper = 30))) {
    two <- lapply(sources[c("matrix", "db_reader", "csv_reader")], function(s) {
      set.seed(7)
      do.call(dp_cov, c(list(s(B), 1, 1e-6), args))
    })
    expect_equal(two$db_reader$estimate, two$matrix$estimate, tolerance = 1e-10)
    expect_equal(two$csv_reader$estimate, two$matrix$estimate, tolerance = 1e-10)
    expect_equal(two$db_reader$center, two$matrix$center, tolerance = 1e-10)
  }
  one <- lapply(sources[c("suffstat", "db")], function(s) {
    set.seed(7)
    dp_cov(s(B), 1, 1e-6)
  })
  expect_equal(one$db$estimate, one$suffstat$estimate, tolerance = 1e-10)
  expect_identical(one$db$params$passes, 1)
  # the private clipping bound: from row norms, identical
  bounds <- lapply(sources[c("matrix", "db_reader", "csv_reader")], function(s) {
    set.seed(9)
    dp_clip_bound(s(B), 1)$bound
  })
  expect_identical(bounds$db_reader, bounds$matrix)
  expect_equal(bounds$csv_reader, bounds$matrix, tolerance = 1e-12)  # write.csv keeps 15 digits
})

test_that("mechanisms that need the rows say so for statistics and readers", {
  X <- db_data(200, 3)
  con <- db_memory(list(t = X))
  on.exit(DBI::dbDisconnect(con))
  s <- second_moment_db(con, "t", clip = 5)
  r <- db_reader(con, "t")
  g <- rep(c("a", "b"), 100)
  refusals <- list(
    ldp_perturb = list(function(x) ldp_perturb(x, 1, 1e-3, clip = 5), "local model"),
    threshold_cv = list(function(x) threshold_cv(x, 1, 1e-3, clip = 5, folds = 3), "folds"),
    qda_plugin = list(function(x) qda_plugin(x, g), "class labels"),
    pooled_cov = list(function(x) pooled_cov(x, g), "class labels"),
    threshold_local = list(function(x) dp_threshold(x, 1, 1e-3, clip = 5, model = "local"), "local model"),
    threshold_cv_tune = list(function(x) dp_threshold(x, 1, 1e-3, clip = 5, tune = "cv"), "data matrix"),
    jl_explicit = list(function(x) jl_ridge(x, 0.5, 1e-6, clip = 5, method = "explicit"), "data matrix"))
  for (m in names(refusals)) {
    for (x in list(s, r)) {
      e <- expect_error(refusals[[m]][[1]](x), class = "dpcov_error", label = m)
      expect_match(conditionMessage(e), refusals[[m]][[2]], label = m)
    }
  }
  e <- expect_error(dp_clip_bound(s, 1), class = "dpcov_error")
  expect_match(conditionMessage(e), "no row norms.*chunk reader")
})

test_that("an engine without SQRT and a missing DBI are classed errors naming `conn`", {
  X <- db_data(200, 3)
  con <- db_memory(list(t = X))
  on.exit(DBI::dbDisconnect(con), add = TRUE)
  # an engine whose SQRT does not compile, and RSQLite's math extension unavailable
  send <- DBI::dbSendQuery
  no_sqrt <- function(conn, statement, ...) {
    if (grepl("SQRT", statement, fixed = TRUE)) stop("no such function: SQRT")
    send(conn, statement, ...)
  }
  with_binding("DBI", "dbSendQuery", no_sqrt, with_binding("RSQLite", "initExtension", function(...) invisible(TRUE), {
    e <- tryCatch(second_moment_db(con, "t", clip = 5), error = identity)
    expect_s3_class(e, "dpcov_error")
    expect_identical(e$arg, "conn")
    expect_match(conditionMessage(e), "no SQRT function")
    # clip = Inf needs no square root: the same engine answers
    expect_equal(second_moment_db(con, "t", clip = Inf)$gram, crossprod(X), tolerance = 1e-12, ignore_attr = TRUE)
  }))
  # the same connection with SQRT answers (the replacement was undone)
  expect_equal(second_moment_db(con, "t", clip = 5)$n, 200)

  with_binding("dpcov", "dbi_installed", function() FALSE, {
    for (f in list(function() second_moment_db(con, "t", clip = 5), function() db_reader(con, "t"))) {
      e <- tryCatch(f(), error = identity)
      expect_s3_class(e, "dpcov_dependency_error")
      expect_identical(e$arg, "conn")
      expect_match(conditionMessage(e), "install.packages(\"DBI\")", fixed = TRUE)
    }
  })
})

# ---- trust (issue 20, items 4 to 6) ------------------------------------------

test_that("double_type must be an 8-byte float type, and the engine's answer is checked on known rows", {
  X <- db_data(300, 3)
  con <- db_memory(list(t = X))
  on.exit(DBI::dbDisconnect(con))
  ref <- second_moment(X, 2)
  expect_gt(ref$n_clipped, 100)
  # SQLite casts to BLOB, a number compares below any BLOB: no row was
  # clipped, and a release from it stated a guarantee for B = 2
  for (bad in c("BLOB", "TEXT", "REAL", "INTEGER", "NUMERIC", "DOUBLE PRECISION; --", NA_character_)) {
    e <- expect_error(second_moment_db(con, "t", clip = 2, double_type = bad), class = "dpcov_error", label = bad)
    expect_identical(e$arg, "double_type")
  }
  for (ok in c("DOUBLE PRECISION", "double  precision", "DOUBLE", "FLOAT8", "FLOAT64")) {
    expect_equal(second_moment_db(con, "t", clip = 2, double_type = ok), ref, tolerance = 1e-12, label = ok)
  }
  # past the list, the engine's own answer: these types reach the query and
  # the check on known rows refuses them before any data is read
  with_binding("dpcov", "check_double_type", function(double_type, ...) double_type, {
    for (bad in c("BLOB", "TEXT", "INTEGER")) {
      e <- expect_error(second_moment_db(con, "t", clip = 2, double_type = bad), class = "dpcov_error", label = bad)
      expect_identical(e$arg, "double_type")
      expect_match(conditionMessage(e), "known rows")
    }
    # the same engine with a double type passes the check and gives the statistics
    expect_equal(second_moment_db(con, "t", clip = 2, double_type = "REAL"), ref, tolerance = 1e-12)
  })
  # an engine whose clipping is wrong is caught even when the type is fine:
  # here the database's answers lose their clipped-row count
  moments <- get("db_moments", asNamespace("dpcov"))
  with_binding("dpcov", "db_moments", function(...) {
    m <- moments(...)
    m$n_clipped <- 0
    m
  }, {
    e <- expect_error(second_moment_db(con, "t", clip = 2), class = "dpcov_error")
    expect_identical(e$arg, "double_type")
  })
  # ... and an engine whose arithmetic is right passes it at every clip: the
  # known rows' cancelling entries are compared against the statistics' scale
  # (1e9, 1e10, 1e50 and about one clip in seven were refused)
  set.seed(406)
  for (clip in c(1e-50, 1e-20, 1, 1e5, 1e9, 1e10, 1e50, 10^runif(40, -50, 50))) {
    expect_equal(second_moment_db(con, "t", clip = clip), second_moment(X, clip), tolerance = 1e-12,
                 label = format(clip))
  }
})

test_that("rows whose squares overflow or underflow give the clipped statistics of second_moment()", {
  X <- db_data(2000, 4)
  X[1, ] <- c(1e200, -2e200, 3, 0)       # squares overflow: clipped like any row
  X[2, ] <- c(1.2e308, -1.2e308, 0, 1)  # its norm is 1.7e308
  X[3, ] <- c(1e-200, 2e-200, 0, 0)      # squares underflow: kept
  X[4, ] <- c(1e-200, 5, 1, -1e-200)
  X[5, ] <- c(3e-320, 0, 0, 0)           # subnormal
  X[6, ] <- 0
  X[7, ] <- c(1e200, 1e-200, 1e-200, 1)
  X[8:20, 2] <- 1e-200                   # a column mostly tiny
  con <- db_memory(list(t = X))
  on.exit(DBI::dbDisconnect(con))
  for (clip in c(1e-3, 3, 1e40)) {
    for (na in c("error", "zero")) {
      got <- second_moment_db(con, "t", clip = clip, na = na)
      want <- second_moment(X, clip)
      expect_equal(got, want, tolerance = 1e-12, label = paste(clip, na))
      expect_identical(got$n_clipped, want$n_clipped)
    }
  }
  # the big rows are clipped to norm B exactly as in memory
  big <- second_moment_db(con, query = "SELECT * FROM t LIMIT 2", clip = 5)
  expect_equal(big$gram, second_moment(X[1:2, ], 5)$gram, tolerance = 1e-14, ignore_attr = TRUE)
  expect_equal(sum(diag(big$gram)), 2 * 25, tolerance = 1e-14)
  # tiny values without clipping: the column sums keep them, as in memory
  tiny <- X[-c(1, 2, 7), ]
  DBI::dbWriteTable(con, "tiny", as.data.frame(tiny))
  got <- second_moment_db(con, "tiny", clip = Inf)
  expect_equal(got, second_moment(tiny, Inf), tolerance = 1e-12)
  expect_identical(got$sum[["x2"]] != 0, TRUE)
})

test_that("error messages about the data name columns, never counts of rows", {
  X <- db_data(500, 3)
  con <- db_memory(list(t = X))
  on.exit(DBI::dbDisconnect(con))
  DBI::dbExecute(con, "CREATE TABLE nulls (a REAL, b REAL)")
  DBI::dbExecute(con, "INSERT INTO nulls VALUES (1, 2), (NULL, 3), (NULL, 4), (NULL, NULL), (5, 6), (7, 8), (9, 1)")
  DBI::dbExecute(con, "CREATE TABLE mixed (a REAL, b REAL)")
  DBI::dbExecute(con, "INSERT INTO mixed VALUES (1, 2), (2, 'abc'), (3, 'def'), (4, 5)")
  DBI::dbExecute(con, "CREATE TABLE infs (a REAL, b REAL)")
  DBI::dbExecute(con, "INSERT INTO infs VALUES (1, 2), (9e999, 1), (-9e999, 1)")
  msg <- function(expr) conditionMessage(expect_error(expr, class = "dpcov_error"))
  m <- msg(second_moment_db(con, "nulls", clip = 2))
  expect_match(m, "NULL values in `columns` a, b;")
  expect_false(grepl("[1-9]", m))  # neither 3 (in a) nor 1 (in b) nor 7 (n)
  m <- msg(second_moment_db(con, "mixed", clip = 2))
  expect_match(m, "`b` holds text or blob values")
  expect_false(grepl("[1-9]", m))
  m <- msg(second_moment_db(con, "infs", clip = 2))
  expect_false(grepl("[1-9]", m))
  # db_reader(): a 64-bit integer among reals (SQLite stores 3e9 in a NUMERIC
  # column as an integer) is read as a number wherever it sits; RSQLite typed
  # each block by its first value and warned, which was refused as text
  for (row in c(1, 3, 5, 8)) {
    DBI::dbExecute(con, "DROP TABLE IF EXISTS i64")
    DBI::dbExecute(con, "CREATE TABLE i64 (a NUMERIC, b REAL)")
    DBI::dbExecute(con, "INSERT INTO i64 VALUES (1.5, 2), (2.5, 3), (3.5, 4), (4.5, 5), (5.5, 6), (6.5, 7), (7.5, 8), (8.5, 9)")
    DBI::dbExecute(con, sprintf("UPDATE i64 SET a = 3000000000 WHERE rowid = %d", row))
    M <- cbind(a = c(1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5), b = 2:9)
    M[row, "a"] <- 3e9
    got <- withCallingHandlers(second_moment(db_reader(con, "i64", chunk_rows = 4), 5),
                               warning = function(w) stop("a warning reached the user: ", conditionMessage(w)))
    expect_equal(got, second_moment(M, 5), tolerance = 1e-14, info = row)
  }
  # db_reader(): a text value fails the same way wherever it sits (SQLite read
  # it as 0, with a warning, where a number came first in its block)
  for (row in c(1, 2, 5, 7)) {
    DBI::dbExecute(con, "DROP TABLE IF EXISTS txt")
    DBI::dbExecute(con, "CREATE TABLE txt (a REAL, b REAL)")
    DBI::dbExecute(con, "INSERT INTO txt VALUES (1, 2), (2, 3), (3, 4), (4, 5), (5, 6), (6, 7), (7, 8), (8, 9)")
    DBI::dbExecute(con, sprintf("UPDATE txt SET b = 'secret' WHERE rowid = %d", row))
    e <- tryCatch(withCallingHandlers(dp_cov(db_reader(con, "txt", chunk_rows = 4), 1, 1e-6, clip = 3, clip_mean = 3),
                                      warning = function(w) stop("a warning reached the user: ", conditionMessage(w))),
                  error = identity)
    expect_s3_class(e, "dpcov_error")
    expect_match(conditionMessage(e), "holds? text or blob values", info = row)
    expect_false(grepl("secret|[0-9]", sub("1e-06", "", conditionMessage(e), fixed = TRUE)), info = row)
  }
  # a reader that changes between dp_cov()'s passes: refused without its n
  k <- 0
  reader <- function(reset = FALSE) {
    if (isTRUE(reset)) return(NULL)  # every pass resets first: nothing to do here
    k <<- k + 1
    if (k == 1) return(X)
    if (k == 2) return(NULL)
    if (k == 3) return(X[-(1:2), ])  # two rows fewer on the second pass
    NULL
  }
  m <- msg(dp_cov(reader, 1, 1e-6, clip = 5, clip_mean = 5))
  expect_match(m, "different number of rows")
  expect_false(grepl("500|498", m))
})

test_that("the readers the bounds paths wrap start each pass at the first row too, and a failing reset is classed", {
  set.seed(12)
  X <- matrix(rnorm(2000), 1000, 2, dimnames = list(NULL, c("a", "b")))
  f <- tempfile(fileext = ".csv")
  on.exit(unlink(f))
  utils::write.csv(X, f, row.names = FALSE)
  r <- csv_reader(f, chunk_rows = 100)
  b <- list(a = c(-5, 5), b = c(-5, 5))
  # a peek at one block made the bounds paths read 900 rows (their wrapper had no reset)
  invisible(r())
  expect_identical(second_moment(r, bounds = b)$n, 1000)
  invisible(r())
  expect_identical(dp_cov(r, 1, 1e-6, bounds = b, neighbor = "replace-one")$n, 1000)
  invisible(r())
  expect_identical(dp_cov(r, 1, 1e-6, neighbor = "replace-one")$n, 1000)  # the private clip's centred pass
  # a reader whose reset fails: a classed error naming `x`
  bad <- function(reset = FALSE) if (isTRUE(reset)) stop("cannot rewind") else NULL
  e <- tryCatch(second_moment(bad, 2), error = identity)
  expect_s3_class(e, "dpcov_error")
  expect_identical(e$arg, "x")
})

# A reader's first block, the reader then reset (its result set or file closed).
first_block <- function(r) {
  on.exit(r(reset = TRUE))
  r()
}

test_that("a column is refused by its declared type, never by its rows; one name per column (audit)", {
  con <- db_memory(list())
  on.exit(DBI::dbDisconnect(con))
  err <- function(expr, arg, pattern) {
    e <- expect_error(expr, class = "dpcov_error")
    expect_identical(e$arg, arg)
    expect_match(conditionMessage(e), pattern)
  }
  DBI::dbExecute(con, "CREATE TABLE people (code TEXT, income REAL, photo BLOB, score)")
  x0 <- matrix(numeric(0), 0, 2, dimnames = list(NULL, c("income", "twice")))
  for (rows in c(FALSE, TRUE)) {
    if (rows) DBI::dbExecute(con, "INSERT INTO people VALUES ('12', 10, NULL, 1), ('7', 20, NULL, 2)")
    for (f in list(function(...) second_moment_db(..., clip = 5), function(...) db_reader(...))) {
      # a TEXT (or BLOB) column was accepted on an empty table, refused with a row
      err(f(con, "people", c("code", "income")), "columns", "`columns`: `code` holds text")
      err(f(con, query = "SELECT code, income FROM people WHERE income > 100"), "columns", "`columns`: `code` holds text")
      err(f(con, "people", c("income", "photo")), "columns", "`columns`: `photo` is not numeric")
      # a name given twice (SQLite renames the second x:1)
      err(f(con, query = "SELECT income AS x, income AS x FROM people"), "query", "more than one column named x")
    }
    # a computed column has no declared type: accepted, its values checked
    q <- "SELECT income, income * 2 AS twice FROM people WHERE income > 15"
    want <- if (rows) cbind(income = 20, twice = 40) else x0
    expect_equal(second_moment_db(con, query = q, clip = 50), second_moment(want, 50), tolerance = 1e-14)
    expect_identical(first_block(db_reader(con, query = q)), want)
    expect_identical(first_block(db_reader(con, "people", "score")),
                     if (rows) cbind(score = c(1, 2)) else matrix(numeric(0), 0, 1, dimnames = list(NULL, "score")))
  }
})

test_that("csv_reader(): quoted files, only `na_strings` missing, NaN refused, an empty file with known columns (audit)", {
  X <- cbind(a = c(1.5, -2, 3e10), b = c(4, 0.25, -6))
  f <- tempfile(fileext = ".csv")
  on.exit(unlink(f))
  # quoted throughout (Python's QUOTE_ALL, data.table::fwrite(quote = TRUE), Excel)
  writeLines(c('"a","b"', '"1.5","4"', '"-2","0.25"', '"3e10","-6"'), f)
  expect_identical(first_block(csv_reader(f)), X)
  expect_identical(first_block(csv_reader(f, "b", chunk_rows = 2)), X[1:2, "b", drop = FALSE])
  writeLines(c('"a","b"', '"1.5","4"', '"jane.doe@example.org","0.25"'), f)
  e <- expect_error(second_moment(csv_reader(f), 1), class = "dpcov_error")
  expect_match(conditionMessage(e), "a field of a selected column is not a number")
  expect_false(grepl("jane|[0-9]", conditionMessage(e)))
  # only `na_strings` are missing: with none, "NA" and an empty field are not numbers
  writeLines(c("a,b", "1,NA", ",2", "-999,3"), f)
  for (na in c("error", "zero")) {
    e <- expect_error(second_moment(csv_reader(f, na = na, na_strings = character(0)), 1), class = "dpcov_error")
    expect_match(conditionMessage(e), "is not a number")
  }
  expect_identical(first_block(csv_reader(f, na = "zero")), cbind(a = c(1, 0, -999), b = c(0, 2, 3)))
  expect_identical(first_block(csv_reader(f, na = "zero", na_strings = c("NA", "", "-999"))), cbind(a = c(1, 0, 0), b = c(0, 2, 3)))
  # NaN is not missing: refused whatever `na` says, as in memory, naming the column only
  writeLines(c("a,b", "1,2", "NaN,3", "NA,4"), f)
  for (na in c("error", "zero")) {
    e <- expect_error(second_moment(csv_reader(f, na = na), 1), class = "dpcov_error")
    expect_identical(e$arg, "x")
    expect_match(conditionMessage(e), "`columns`: `a` contains NaN values, refused as second_moment\\(\\) refuses them in memory")
  }
  expect_error(second_moment(cbind(a = c(1, NaN), b = c(2, 3)), 1), "NaN", class = "dpcov_error")
  # an empty file whose columns are known (no header, positions) has no rows
  writeLines(character(0), f)
  r <- csv_reader(f, columns = c(2, 1), header = FALSE)
  X0 <- matrix(numeric(0), 0, 2, dimnames = list(NULL, c("V2", "V1")))
  expect_identical(r(), X0)
  expect_null(r())
  set.seed(3)
  a <- suppressWarnings(analyze_gauss(r, 1, 1e-6, clip = 2))
  set.seed(3)
  expect_identical(a$estimate, suppressWarnings(analyze_gauss(X0, 1, 1e-6, clip = 2))$estimate)
  for (args in list(list(), list(header = FALSE), list(columns = "a"), list(columns = 1, header = TRUE))) {
    e <- expect_error(do.call(csv_reader, c(list(f), args)), "is empty", class = "dpcov_error")
    expect_identical(e$arg, "file")
  }
  # a far position allocates nothing beyond the chosen columns; one past the
  # integer range is refused, classed
  r <- csv_reader(f, columns = c(1e9, 3), header = FALSE)
  expect_identical(first_block(r), matrix(numeric(0), 0, 2, dimnames = list(NULL, c("V1000000000", "V3"))))
  expect_error(csv_reader(f, columns = 3e9, header = FALSE), class = "dpcov_error")
})

test_that("csv_reader() reads later blocks with custom na_strings and quoted fields as in memory", {
  set.seed(91)
  n <- 57
  X <- matrix(round(rnorm(n * 3), 3), n, 3, dimnames = list(NULL, c("a", "b", "c")))
  txt <- apply(X, 1, function(r) paste(format(r, digits = 6), collapse = ","))
  txt[25:30] <- apply(X[25:30, ], 1, function(r) paste0("\"", format(r, digits = 6), "\"", collapse = ","))
  miss <- c(33, 41)
  txt[miss] <- sub("^[^,]*", "-", txt[miss])  # column a missing, written "-"
  f <- tempfile(fileext = ".csv")
  writeLines(c("a,b,c", txt), f)
  ref <- X
  ref[miss, "a"] <- 0
  for (na_strings in list("-", c("NA", "", "-"))) {
    s <- second_moment(csv_reader(f, chunk_rows = 10, na = "zero", na_strings = na_strings), clip = Inf)
    expect_equal(unname(s$gram), unname(crossprod(ref)), tolerance = 1e-12)
    expect_identical(s$n, n)
    # a second pass (reset) reads the same
    s2 <- second_moment(csv_reader(f, chunk_rows = 7, na = "zero", na_strings = na_strings), clip = Inf)
    expect_equal(s2$gram, s$gram, tolerance = 1e-12)
  }
  # "-" not declared missing: refused, and the message quotes no field
  e <- expect_error(second_moment(csv_reader(f, chunk_rows = 10, na = "zero"), clip = Inf), class = "dpcov_error")
  expect_false(grepl("[0-9]", conditionMessage(e)))
  unlink(f)
})

test_that("csv_reader(): one record per line; blank lines are records; stray quotes and changed headers are refused", {
  f <- tempfile(fileext = ".csv")
  # a quote inside an unquoted text field (an inch mark) swallowed every line
  # up to the next quote: 20 of 1000 rows were read, silently
  set.seed(1)
  x <- data.frame(name = paste0("p", 1:1000), height = round(rnorm(1000, 1.7, 0.1), 2))
  x$name[c(10, 990)] <- c("5\"3 tall", "6\"1 tall")
  utils::write.csv(x, f, row.names = FALSE, quote = FALSE)
  s <- second_moment(csv_reader(f, columns = "height"), clip = 3)
  expect_identical(s$n, 1000)
  expect_equal(s$sum[[1]], sum(x$height))
  # where the block needs quotes (a quoted number), a quote that runs across
  # lines is refused rather than merging records
  txt <- readLines(f)
  txt[5] <- sub(",([0-9.]+)$", ",\"\\1\"", txt[5])
  writeLines(txt, f)
  e <- expect_error(second_moment(csv_reader(f, columns = "height"), clip = 3), class = "dpcov_data_error")
  expect_no_match(conditionMessage(e), "tall|[0-9]")
  x$name[c(10, 990)] <- c("5 3 tall", "6 1 tall")
  utils::write.csv(x, f, row.names = FALSE, quote = FALSE)
  expect_identical(second_moment(csv_reader(f, columns = "height"), clip = 3)$n, 1000)
  # a blank line is a record: a missing value in one column (the na rule),
  # too few fields in several; never skipped
  writeLines(c("a", "0.5", "0.2", "", "0.1"), f)
  expect_error(second_moment(csv_reader(f), clip = 1), class = "dpcov_data_error")
  s <- second_moment(csv_reader(f, na = "zero"), clip = 1)
  expect_identical(s$n, 4)
  expect_equal(s$sum[[1]], 0.8)
  writeLines(c("a", "0.5", "0.2", "\"\"", "0.1"), f)
  expect_identical(second_moment(csv_reader(f, na = "zero"), clip = 1)$n, 4)
  writeLines(c("a,b", "1,2", "", "3,4"), f)
  expect_error(second_moment(csv_reader(f), clip = 10), class = "dpcov_data_error")
  # a line with twice the fields is not two records (scan() reads it so)
  writeLines(c("a,b", "1,2", "3,4,5,6", "7,8"), f)
  expect_error(second_moment(csv_reader(f), clip = 100), class = "dpcov_data_error")
  writeLines(c("t,a", "\"x,1.5,y\",1.6", "z,2"), f)  # a quoted text field holding separators
  expect_equal(second_moment(csv_reader(f, columns = "a"), clip = 100)$sum[[1]], 3.6)
  # a quoted field with a line break: a record spanning lines is refused
  writeLines(c("t,a", "\"one", "two\",1", "x,2"), f)
  expect_error(second_moment(csv_reader(f, columns = "a"), clip = 10), class = "dpcov_data_error")
  # the header is read again at each pass: a file rewritten with its columns
  # in another order is refused, not read under the wrong names
  set.seed(2)
  y <- data.frame(a = rnorm(100, 10), b = rnorm(100, -10, 3))
  utils::write.csv(y, f, row.names = FALSE)
  r <- csv_reader(f, columns = c("a", "b"))
  expect_equal(unname(second_moment(r, clip = 100)$sum), unname(colSums(y)))
  utils::write.csv(y[c("b", "a")], f, row.names = FALSE)
  e <- expect_error(second_moment(r, clip = 100), class = "dpcov_error")
  expect_match(conditionMessage(e), "header line", fixed = TRUE)
  unlink(f)
})

test_that("dp_threshold() refuses a one-column package reader before its charge", {
  skip_if_not_installed("RSQLite")
  con <- DBI::dbConnect(RSQLite::SQLite(), ":memory:")
  on.exit(DBI::dbDisconnect(con))
  DBI::dbWriteTable(con, "one", data.frame(a = rnorm(50)))
  b <- dp_budget(5, 1e-4, neighbor = "replace-one")
  expect_error(dp_threshold(db_reader(con, "one"), 1, 1e-6, clip = 2, budget = b), class = "dpcov_error")
  expect_identical(budget_spent(b)$charges, 0L)
})

test_that("the reader's byte helpers in C++ equal plain R: parts, joins, line ends", {
  set.seed(3)
  for (k in 1:200) {
    x <- as.raw(sample(c(10, 13, 44, 48:57), sample(0:40, 1), replace = TRUE, prob = c(2, 2, 2, rep(1, 10))))
    from <- sample(0:length(x), 1)
    len <- sample(0:(length(x) - from), 1)
    expect_identical(dpcov:::raw_part_cpp(x, from, len), x[seq_len(len) + from])
    # CRLF to LF, then a lone CR to LF (the R version the reader had)
    ref <- charToRaw(gsub("\r", "\n", gsub("\r\n", "\n", rawToChar(c(x, as.raw(32))), fixed = TRUE), fixed = TRUE))
    expect_identical(dpcov:::normalise_line_ends_cpp(x), ref[-length(ref)])
    parts <- list(x, rev(x), x[seq_len(from)])
    all <- unlist(parts)
    cut <- sample(0:length(all), 1)
    expect_identical(dpcov:::raw_join_cpp(parts, cut), all[seq_len(cut)])
  }
  expect_error(dpcov:::raw_part_cpp(as.raw(1:3), 2, 2), "internal error")
  expect_error(dpcov:::raw_join_cpp(list(as.raw(1:3)), 4), "internal error")
})

test_that("csv_reader()'s byte blocks: line ends LF, CRLF and CR, a BOM, reads cut anywhere, give read.csv()'s rows", {
  set.seed(7)
  X <- matrix(round(rnorm(40 * 3), 4), 40, 3, dimnames = list(NULL, c("a", "b", "c")))
  body <- apply(X, 1, paste, collapse = ",")
  f <- tempfile(fileext = ".csv")
  for (eol in c("\n", "\r\n", "\r")) for (bom in c(FALSE, TRUE)) {
    bytes <- charToRaw(paste0(paste(c("a,b,c", body), collapse = eol), eol))
    if (bom) bytes <- c(as.raw(c(0xef, 0xbb, 0xbf)), bytes)
    writeBin(bytes, f)
    # reads of 1 to 13 bytes cut line ends (a CRLF too) and the BOM anywhere
    for (size in c(1, 2, 3, 5, 13, 2^20)) {
      s <- with_binding("dpcov", "csv_read_min", size, with_binding("dpcov", "csv_read_max", size,
                        second_moment(csv_reader(f, chunk_rows = 7), clip = Inf)))
      expect_identical(s$n, 40, label = paste(deparse(eol), bom, size))
      expect_equal(unname(s$gram), unname(crossprod(X)), tolerance = 1e-12)
    }
  }
  # an empty file, and one without a final line end
  writeBin(raw(0), f)
  expect_identical(second_moment(csv_reader(f, header = FALSE, columns = 1:2), clip = 1)$n, 0)
  writeBin(charToRaw("a,b\n1,2\n3,4"), f)
  expect_equal(unname(second_moment(csv_reader(f), clip = 100)$sum), c(4, 6))
  # a NUL byte is not text: refused, as a data error
  writeBin(c(charToRaw("a,b\n1,2\n"), as.raw(0), charToRaw("3,4\n")), f)
  expect_error(second_moment(csv_reader(f), clip = 100), class = "dpcov_data_error")
  unlink(f)
})

test_that("csv_reader(): a line with an unclosed quote cannot swallow the rest of its block; inner blanks are not joined", {
  f <- tempfile(fileext = ".csv")
  hon <- sprintf("%d,%d,name%d", 1:10, 1:10, 1:10)
  # one line holding 4 records and an open quote: with quotes honoured it
  # replaced the 4 lines after it, and the totals (10 lines, 10 records) agreed
  adv <- paste0(strrep("100,100,z,", 4), "100,100,\"")
  writeLines(c("x,y,note", hon[1:5], adv, hon[7:10]), f)
  for (k in c(3, 7, 10, 100)) {
    expect_error(second_moment(csv_reader(f, c("x", "y"), chunk_rows = k), clip = 1000),
                 class = "dpcov_data_error")
  }
  # the same attack in a file quoted throughout
  hq <- sprintf("\"%d\",\"%d\",\"name%d\"", 1:10, 1:10, 1:10)
  aq <- paste0(strrep("\"3\",\"3\",\"z\",", 4), "\"3\",\"3\",\"")
  writeLines(c("x,y,note", hq[1:5], aq, hq[7:10]), f)
  expect_error(second_moment(csv_reader(f, c("x", "y")), clip = 1000), class = "dpcov_data_error")
  # an unclosed quote on the last line of a block
  writeLines(c("a,b", "1,2", "3,\"4"), f)
  for (k in 1:3) expect_error(second_moment(csv_reader(f, chunk_rows = k), clip = 100), class = "dpcov_data_error")
  # quotes that close on their line are fine, doubled quotes included
  writeLines(c("a,t,b", "1,\"x,y\"\"z\",2", "3,\"w\",4"), f)
  expect_equal(unname(second_moment(csv_reader(f, c("a", "b")), clip = 100)$sum), c(4, 6))
  # "1 2" is not the number 12 (scan() joins the digits), with any separator
  for (sep in c(",", ";", "\t")) {
    writeLines(c(paste("a", "b", sep = sep), paste("1 2", "2", sep = sep), paste("3", "4", sep = sep)), f)
    expect_error(second_moment(csv_reader(f, sep = sep), clip = 100), class = "dpcov_data_error")
  }
  writeLines(c("a,t", "1,apt 5 6", "3,x"), f)  # blanks inside a text field: read as before
  expect_equal(second_moment(csv_reader(f, "a"), clip = 100)$sum[[1]], 4)
  # an empty gzip file and a file holding only a BOM have no rows (they are not "not text")
  g <- tempfile(fileext = ".gz")
  close(gzfile(g, "wb"))
  expect_identical(second_moment(csv_reader(g, 1:2, header = FALSE), clip = 1)$n, 0)
  writeBin(as.raw(c(0xef, 0xbb, 0xbf)), f)
  expect_identical(second_moment(csv_reader(f, 1, header = FALSE), clip = 1)$n, 0)
  # an empty header line is refused when the reader is made (public), before any charge
  writeLines(c("", "a,b", "1,2"), f)
  expect_error(csv_reader(f), class = "dpcov_error")
  unlink(c(f, g))
})

test_that("csv_reader(header = FALSE): the first record's field count decides nothing before a charge", {
  f <- tempfile(fileext = ".csv")
  # a blank first record (a missing value): made, then read under the na rule
  writeLines(c("", "6"), f)
  r <- csv_reader(f, 1, header = FALSE, na = "zero")
  expect_equal(second_moment(r, clip = 10)$sum[[1]], 6)
  expect_identical(second_moment(r, clip = 10)$n, 2)
  # a short first record with positions past it: made; refused when read, as a data error
  writeLines(c("1", "2,3"), f)
  r <- csv_reader(f, 2, header = FALSE)
  b <- dp_budget(5, 1e-4)
  expect_error(dp_cov(r, 1, 1e-6, clip = 5, clip_mean = 5, budget = b), class = "dpcov_data_error")
  unlink(f)
})

test_that("csv_reader(): a pass read to the end of the file in one block closes the file at once; the next call ends the pass", {
  f <- tempfile(fileext = ".csv")
  on.exit(unlink(f))
  X <- cbind(a = c(1, 2, 3), b = c(4, 5, 6))
  utils::write.csv(X, f, row.names = FALSE)
  open_files <- function() sum(showConnections(all = TRUE)[, "description"] == f)
  r <- csv_reader(f)
  expect_identical(r(), X)
  expect_identical(open_files(), 0L)   # (it stayed open until the garbage collector closed it, with a warning)
  expect_null(r())
  expect_identical(r(), X)             # a new pass
  expect_null(r())
  # a file of several blocks stays open between them, and is closed with the last
  r <- csv_reader(f, chunk_rows = 2)
  expect_identical(r(), X[1:2, ])
  expect_identical(open_files(), 1L)
  expect_identical(r(), X[3, , drop = FALSE])
  expect_identical(open_files(), 0L)
  expect_null(r())
  r(reset = TRUE)
  expect_identical(r(), X[1:2, ])
  r(reset = TRUE)
  expect_identical(open_files(), 0L)
})

test_that("dp_cov()'s params$passes is the number of passes it made over a reader", {
  set.seed(12)
  x <- matrix(stats::runif(3000, 0, 10), 1000, 3, dimnames = list(NULL, c("a", "b", "c")))
  passes <- 0
  reader <- function() {
    i <- 0
    function(reset = FALSE) {
      if (reset) {
        i <<- 0
        passes <<- passes + 1
        return(invisible(NULL))
      }
      if (i >= 2) return(NULL)
      i <<- i + 1
      x[((i - 1) * 500 + 1):(i * 500), , drop = FALSE]
    }
  }
  for (args in list(list(), list(clip = 20), list(clip_mean = 20), list(clip = 20, clip_mean = 20),
                    list(lower = 0, upper = 10))) {
    passes <- 0
    r <- suppressWarnings(do.call(dp_cov, c(list(reader(), 1, 1e-6, neighbor = "replace-one"), args)))
    expect_identical(as.numeric(r$params$passes), as.numeric(passes), info = paste(names(args), collapse = ","))
  }
  expect_identical(as.numeric(passes), 1)
})

test_that("csv_reader() keeps no rows in its closure, loses its file in a classed error and refuses separators that split numbers (audit)", {
  f <- tempfile(fileext = ".csv")
  on.exit(unlink(f), add = TRUE)
  utils::write.csv(data.frame(id = 1:300, salary = 123457.25 + 0:299), f, row.names = FALSE)
  holds <- function(r) length(grepRaw("123457.25", serialize(r, NULL), fixed = TRUE)) > 0
  r <- csv_reader(f, columns = "salary", chunk_rows = 7)
  expect_false(holds(r))
  expect_s3_class(suppressWarnings(dp_cov(r, 1, 1e-6, clip = 2e5, clip_mean = 2e5)), "dp_cov")
  expect_false(holds(r))
  # a pass left part-way (two blocks read): its carry is dropped with the reset
  r(); r()
  r(reset = TRUE)
  expect_false(holds(r))
  # without a header the first line is a record
  g <- tempfile(fileext = ".csv")
  on.exit(unlink(g), add = TRUE)
  writeLines(c("1,123457.25", "2,98765.5", "3,55555.75"), g)
  expect_false(holds(csv_reader(g, columns = 2, header = FALSE)))
  # (control: the scan finds the value where it is)
  expect_true(holds(list(readLines(g))))
  # the file removed after the reader was made: the package's words, naming `file`
  unlink(g)
  r2 <- csv_reader(f)
  unlink(f)
  e <- expect_error(r2(), "can no longer be opened", class = "dpcov_reader_block")
  expect_identical(e$arg, "file")
  b <- dp_budget(5, 1e-3)
  # a release checks the reader's file with its schema, before its charge
  e <- expect_error(dp_cov(r2, 1, 1e-6, clip = 5, clip_mean = 5, budget = b), "no longer exists",
                    class = "dpcov_error")
  expect_identical(budget_spent(b)$charges, 0L)
  # separators that are part of numbers or markers are refused
  h <- tempfile(fileext = ".csv")
  on.exit(unlink(h), add = TRUE)
  writeLines(c("Sepal.Length", "5.1", "4.9"), h)
  for (s in c(".", "-", "+", "e", "E", "1", "N", "\"", "\n")) {
    e <- expect_error(csv_reader(h, sep = s), class = "dpcov_error", info = s)
    expect_identical(e$arg, "sep", info = s)
  }
  expect_equal(second_moment(csv_reader(h, sep = ";"), clip = Inf)$sum[[1]], 10)
})

test_that("bounds that do not fit a reader function's blocks are refused in the package's words (audit)", {
  set.seed(42)
  M <- matrix(rnorm(3000), 1000, 3, dimnames = list(NULL, c("a", "b", "c")))
  i <- 0
  pr <- function() {
    if (i >= 1000) {
      i <<- 0
      return(NULL)
    }
    k <- (i + 1):min(i + 300, 1000)
    i <<- i + 300
    M[k, , drop = FALSE]
  }
  e <- expect_error(dp_cov(pr, 1, 1e-6, lower = c(-5, -5), upper = c(5, 5)), class = "dpcov_error")
  expect_match(conditionMessage(e), "reader's first block")
  expect_false(grepl("withheld", conditionMessage(e)))
})

test_that("second_moment_db()'s statements of one pass must count the same rows (audit)", {
  skip_if_not_installed("RSQLite")
  set.seed(7)
  X <- as.data.frame(matrix(rnorm(1000 * 8), 1000, 8))
  con <- DBI::dbConnect(RSQLite::SQLite(), ":memory:")
  on.exit(DBI::dbDisconnect(con))
  DBI::dbWriteTable(con, "t", X)
  # a query whose rows differ at every scan: 7 statements of at most 10 terms
  # (the chance that all seven count alike is below 1e-9)
  e <- expect_error(second_moment_db(con, query = "SELECT * FROM t WHERE abs(random()) % 2 = 0", clip = 5,
                                     max_terms = 10), "different numbers of rows", class = "dpcov_data_error")
  expect_identical(e$arg, "query")
  expect_false(grepl("[0-9]{3}", conditionMessage(e)))  # no count is quoted
  # (control: a deterministic query in the same seven statements is the in-memory statistics)
  s <- second_moment_db(con, query = "SELECT * FROM t WHERE V1 > 0", clip = 5, max_terms = 10)
  m <- second_moment(as.matrix(X[X$V1 > 0, ]), clip = 5)
  expect_identical(s$n, m$n)
  expect_equal(unname(s$gram), unname(m$gram), tolerance = 1e-12)
})

test_that("csv_reader() reads no TRUE/FALSE field as a number: a logical column is refused, written as 1/0 it is read (audit)", {
  f <- tempfile(fileext = ".csv")
  on.exit(unlink(f))
  utils::write.csv(data.frame(a = c(1.5, 2, 3), flag = c(TRUE, FALSE, TRUE)), f, row.names = FALSE)
  expect_error(second_moment(csv_reader(f), clip = Inf), "could not be read as numbers", class = "dpcov_error")
  # a headerless file of logicals read with header = TRUE: refused, its first record never a name
  g <- tempfile(fileext = ".csv")
  on.exit(unlink(g), add = TRUE)
  writeLines(c("TRUE,FALSE", "FALSE,TRUE"), g)
  expect_error(suppressWarnings(dp_cov(csv_reader(g), 1, 1e-6, clip = 2, clip_mean = 2)), class = "dpcov_error")
  # (control: the same column written as 1/0 is read)
  utils::write.csv(data.frame(a = c(1.5, 2, 3), flag = c(1L, 0L, 1L)), f, row.names = FALSE)
  expect_equal(unname(second_moment(csv_reader(f), clip = Inf)$sum), c(6.5, 2))
})

test_that("a reader's width is checked against the allocation limit at its first block; odd table and sep objects are refused with classed errors", {
  wide <- 46341  # wide^2 > 2^31 - 1 cells: refused before the p x p matrices are allocated
  i <- 0
  rd <- function(reset = FALSE) {
    if (reset) { i <<- 0; return(NULL) }
    i <<- i + 1
    if (i > 1) NULL else matrix(1, 1, wide)
  }
  e <- expect_error(second_moment(rd), class = "dpcov_error")
  expect_identical(e$arg, "x")
  expect_match(conditionMessage(e), "more than the", fixed = TRUE)
  e <- expect_error(second_moment(matrix(1, 1, wide)), class = "dpcov_error")
  expect_identical(e$arg, "x")
  # a release charged before the reader's first block: the refusal keeps the charge (the block was read)
  b <- dp_budget(5, 1e-3)
  e <- expect_error(dp_cov(rd, 1, 1e-6, clip = 1, clip_mean = 1, budget = b), class = "dpcov_error")
  expect_false(inherits(e, "Rcpp::exception"))
  # control: a width within the limit
  expect_s3_class(second_moment(matrix(1, 2, 10)), "dp_suffstat")
  skip_if_not_installed("RSQLite")
  con <- DBI::dbConnect(RSQLite::SQLite(), ":memory:")
  on.exit(DBI::dbDisconnect(con), add = TRUE)
  DBI::dbWriteTable(con, "d", data.frame(a = c(1, 2), b = c(3, 4)))
  for (fake in list(structure(list(table = "d"), class = "Id"), structure(list("d"), class = "SQL"))) {
    e <- expect_error(second_moment_db(con, fake), class = "dpcov_error")
    expect_identical(e$arg, "table")
  }
  expect_equal(unname(second_moment_db(con, DBI::Id(table = "d"))$gram),
               unname(second_moment(cbind(a = c(1, 2), b = c(3, 4)))$gram))
  f <- tempfile(fileext = ".csv")
  writeBin(charToRaw("a\xc2\xa7b\n1\xc2\xa72\n"), f)
  e <- expect_error(csv_reader(f, sep = "\u00a7"), class = "dpcov_error")
  expect_identical(e$arg, "sep")
  unlink(f)
})

test_that("csv_reader(): a quoted field holding the separator is never split by the quotes-off parse", {
  f <- tempfile(fileext = ".csv")
  on.exit(unlink(f))
  # row 1 has two fields when quotes are honoured: refused, whichever columns are selected
  writeLines(c("a,b,c", "\"1,2\",3", "5,6,7"), f)
  for (cols in list("c", c("b", "c"), NULL)) {
    expect_error(second_moment(csv_reader(f, columns = cols)), class = "dpcov_data_error")
  }
  # control: quoted numbers in well-formed rows are read as numbers
  writeLines(c("a,b,c", "\"1\",\"2\",3", "5,\"6\",7"), f)
  expect_equal(unname(second_moment(csv_reader(f, columns = "c"))$sum), 10)
  expect_equal(unname(second_moment(csv_reader(f))$sum), c(6, 8, 10))
})

test_that("a package reader whose file is gone or whose connection is closed is refused before the charge", {
  x <- matrix(rnorm(200), 50, 4, dimnames = list(NULL, c("a", "b", "c", "d")))
  f <- tempfile(fileext = ".csv")
  utils::write.csv(x, f, row.names = FALSE)
  rd <- csv_reader(f)
  unlink(f)
  b <- dp_budget(10, 1e-3)
  for (call in list(quote(dp_cov(rd, 1, 1e-6, clip = 3, clip_mean = 3, budget = b)),
                    quote(analyze_gauss(rd, 1, 1e-6, clip = 3, budget = b)),
                    quote(wishart_noise(rd, 0.5, 1e-6, clip = 3, budget = b)),
                    quote(dp_clip_bound(rd, 0.5, budget = b)))) {
    e <- expect_error(eval(call), class = "dpcov_error")
    expect_false(inherits(e, "dpcov_data_error"))
    expect_identical(e$arg, "x")
    expect_match(conditionMessage(e), "no longer exists", fixed = TRUE)
  }
  expect_identical(budget_spent(b)$charges, 0L)
  skip_if_not_installed("RSQLite")
  con <- DBI::dbConnect(RSQLite::SQLite(), ":memory:")
  DBI::dbWriteTable(con, "d", as.data.frame(x))
  dr <- db_reader(con, "d")
  # control: an open connection is read and charged
  expect_s3_class(analyze_gauss(dr, 1, 1e-6, clip = 3, budget = b), "dp_release")
  expect_identical(budget_spent(b)$charges, 1L)
  DBI::dbDisconnect(con)
  e <- expect_error(analyze_gauss(dr, 1, 1e-6, clip = 3, budget = b), class = "dpcov_error")
  expect_match(conditionMessage(e), "connection is closed", fixed = TRUE)
  expect_identical(budget_spent(b)$charges, 1L)
})

test_that("SQLite: names that differ only in case are one name, refused as repeated in a query's result", {
  skip_if_not_installed("RSQLite")
  con <- DBI::dbConnect(RSQLite::SQLite(), ":memory:")
  on.exit(DBI::dbDisconnect(con))
  DBI::dbWriteTable(con, "d", data.frame(a = c(1, 2, 3), b = c(3, 4, 6)))
  e <- expect_error(second_moment_db(con, query = "SELECT a AS X, b AS x FROM d"), class = "dpcov_error")
  expect_identical(e$arg, "query")
  expect_match(conditionMessage(e), "more than one column named", fixed = TRUE)
  # control: distinct names are read
  s <- second_moment_db(con, query = "SELECT a AS X, b AS y FROM d")
  expect_equal(unname(s$gram), unname(crossprod(cbind(c(1, 2, 3), c(3, 4, 6)))))
})
