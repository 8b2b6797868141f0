# The database path on a real PostgreSQL server (extended tier): a throwaway
# local server (helper-postgres.R), a table of 10^6 rows generated in SQL,
# and the same properties as on SQLite: the statistics of second_moment() in
# memory, the same release from every source, NULLs, column types, quoted and
# schema-qualified names, injection attempts, dropped connections.

pg_err <- function(expr, arg, pattern = NULL) {
  e <- expect_error(expr, class = "dpcov_error")
  expect_identical(e$arg, arg)
  if (!is.null(pattern)) expect_match(conditionMessage(e), pattern)
  invisible(e)
}

# The rows of a table in R, in the order of `id`.
pg_read <- function(con, table, columns) {
  d <- DBI::dbGetQuery(con, sprintf("SELECT %s FROM %s ORDER BY id",
                                    paste(DBI::dbQuoteIdentifier(con, columns), collapse = ", "),
                                    DBI::dbQuoteIdentifier(con, table)))
  as.matrix(d)
}

test_that("PostgreSQL: 10^6 rows, in-database and streamed statistics equal second_moment() in memory", {
  skip_if_no_postgres()
  con <- pg_connect()
  on.exit(DBI::dbDisconnect(con))
  # deterministic rows made by the server (no transfer): means 0 to 10, one
  # row in 20 five times larger (clipped), an integer and a bigint column
  DBI::dbExecute(con, "DROP TABLE IF EXISTS big")
  DBI::dbExecute(con, paste(
    "CREATE TABLE big AS SELECT i AS id,",
    "(CASE WHEN i % 20 = 0 THEN 5 ELSE 1 END) * sin(i * 0.37) * 3 AS x1,",
    "(CASE WHEN i % 20 = 0 THEN 5 ELSE 1 END) * cos(i * 1.3) + 10 AS x2,",
    "((i::bigint * 7919) % 1000) / 100.0 - 5 AS x3,",
    "(i % 13)::integer AS x4, ((i % 7) - 3)::bigint AS x5",
    "FROM generate_series(1, 1000000) AS s(i)"))
  expect_identical(DBI::dbGetQuery(con, "SELECT COUNT(*) AS n FROM big")$n, 1e6)
  cols <- paste0("x", 1:5)
  X <- pg_read(con, "big", cols)
  storage.mode(X) <- "double"
  clip <- 12
  mem <- second_moment(X, clip)
  expect_gt(mem$n_clipped, 1000)
  expect_lt(mem$n_clipped, 1e6 - 1000)
  got <- list(db = second_moment_db(con, "big", cols, clip = clip),
              batches = second_moment_db(con, "big", cols, clip = clip, max_terms = 10),
              reader = second_moment(db_reader(con, "big", cols, chunk_rows = 2^17), clip))
  for (s in names(got)) {
    g <- got[[s]]
    expect_identical(g$n, 1e6, label = s)
    expect_identical(g$n_clipped, mem$n_clipped, label = s)
    expect_identical(g$colnames, cols, label = s)
    expect_lt(max(abs(g$gram - mem$gram) / abs(mem$gram)), 1e-10, label = s)  # entry by entry
    expect_lt(max(abs(g$sum - mem$sum) / abs(mem$sum)), 1e-10, label = s)
  }
  expect_equal(second_moment_db(con, "big", cols, clip = Inf), second_moment(X, Inf), tolerance = 1e-10)
  keep <- X[, "x2"] > 10
  expect_equal(second_moment_db(con, query = "SELECT x1, x3 FROM big WHERE x2 > 10", clip = 3),
               second_moment(X[keep, c("x1", "x3")], 3), tolerance = 1e-10)
  DBI::dbExecute(con, "DROP TABLE big")
})

test_that("PostgreSQL: the same release under one seed from a matrix, statistics, the database and a reader", {
  skip_if_no_postgres()
  con <- pg_connect()
  on.exit(DBI::dbDisconnect(con))
  set.seed(5)
  X <- matrix(stats::rnorm(3000 * 4, mean = rep(c(0, 3, -1, 10), each = 3000)), 3000, 4,
              dimnames = list(NULL, paste0("x", 1:4)))
  X[1:150, ] <- X[1:150, ] * 5
  DBI::dbWriteTable(con, "rel", data.frame(id = seq_len(nrow(X)), X), overwrite = TRUE, row.names = FALSE)
  q <- "SELECT x1, x2, x3, x4 FROM rel ORDER BY id"
  B <- 8
  sources <- list(matrix = function() X, suffstat = function() second_moment(X, B),
                  db = function() second_moment_db(con, query = q, clip = B),
                  db_reader = function() db_reader(con, query = q, chunk_rows = 700))
  mechanisms <- list(
    analyze_gauss = function(x) analyze_gauss(x, 1, 1e-6, clip = B),
    wishart_noise = function(x) wishart_noise(x, 0.5, 1e-6, clip = B),
    jl_ridge = function(x) jl_ridge(x, 0.5, 1e-6, clip = B),
    dp_threshold = function(x) dp_threshold(x, 1, 1e-6, clip = B))
  for (m in names(mechanisms)) {
    rel <- lapply(sources, function(s) {
      set.seed(42)
      mechanisms[[m]](s())
    })
    for (s in c("db", "db_reader")) {
      expect_equal(rel[[s]]$estimate, rel$matrix$estimate, tolerance = 1e-10, label = paste(m, s))
      expect_identical(rel[[s]]$params$sigma, rel$matrix$params$sigma)
    }
  }
  # dp_cov: one pass from statistics computed anywhere, two from the reader
  one <- lapply(sources[c("suffstat", "db")], function(s) {
    set.seed(7)
    dp_cov(s(), 1, 1e-6)
  })
  expect_equal(one$db$estimate, one$suffstat$estimate, tolerance = 1e-10)
  two <- lapply(sources[c("matrix", "db_reader")], function(s) {
    set.seed(7)
    dp_cov(s(), 1, 1e-6, clip = B, clip_mean = B)
  })
  expect_equal(two$db_reader$estimate, two$matrix$estimate, tolerance = 1e-10)
  DBI::dbExecute(con, "DROP TABLE rel")
})

test_that("PostgreSQL: NULL, NaN and Infinity, and integer, bigint, numeric, real and boolean columns", {
  skip_if_no_postgres()
  con <- pg_connect()
  on.exit(DBI::dbDisconnect(con))
  DBI::dbExecute(con, "DROP TABLE IF EXISTS typed")
  DBI::dbExecute(con, paste("CREATE TABLE typed (id integer, i integer, b bigint, n numeric(30, 10), s smallint,",
                            "r real, d double precision, f boolean)"))
  DBI::dbExecute(con, paste("INSERT INTO typed VALUES",
                            "(1, 2147483647, 9007199254740993, 12345678901234567890.25, 7, 0.5, -1.5, true),",
                            "(2, -2147483648, -3000000000, -0.0000000001, -3, 2.25, 1e-200, false),",
                            "(3, 0, 1, 3.5, 0, -8, 1e200, true)"))
  # the values as R reads them: integers exact, the bigint and numeric
  # rounded to the nearest double once, as the database's CAST does
  X <- cbind(i = c(2147483647, -2147483648, 0), b = c(9007199254740992, -3e9, 1),
             n = c(12345678901234567890.25, -1e-10, 3.5), s = c(7, -3, 0), r = c(0.5, 2.25, -8),
             d = c(-1.5, 1e-200, 1e200))
  for (clip in c(Inf, 1e4)) {
    cols <- if (is.finite(clip)) colnames(X) else setdiff(colnames(X), "d")  # 1e200^2 overflows without clipping
    expect_equal(second_moment_db(con, "typed", cols, clip = clip), second_moment(X[, cols], clip),
                 tolerance = 1e-14, label = format(clip))
    # the reader casts every column in SQL as second_moment_db() does: the
    # integer -2^31 (R's integer NA) and the bigint above 2^53 are numbers
    expect_equal(second_moment(db_reader(con, "typed", columns = cols), clip),
                 second_moment(X[, cols], clip), tolerance = 1e-14)
  }
  # booleans: 1 or 0 on both paths (PostgreSQL has no cast of its own)
  F <- cbind(i = X[, "i"], f = c(1, 0, 1))
  expect_equal(second_moment_db(con, "typed", c("i", "f")), second_moment(F), tolerance = 1e-14)
  expect_equal(second_moment_db(con, query = "SELECT i, f::integer AS f FROM typed"), second_moment(F),
               tolerance = 1e-14)
  expect_equal(second_moment(db_reader(con, query = "SELECT i, f FROM typed ORDER BY id")), second_moment(F),
               tolerance = 1e-14)
  # NULL: an error naming the columns without counts, or read as 0
  DBI::dbExecute(con, "DROP TABLE IF EXISTS nulls")
  DBI::dbExecute(con, "CREATE TABLE nulls (id integer, a double precision, b double precision, c integer)")
  DBI::dbExecute(con, "INSERT INTO nulls VALUES (1, 1, 2, NULL), (2, NULL, 3, NULL), (3, 4, NULL, 5), (4, 0.5, 0.25, 6)")
  e <- pg_err(second_moment_db(con, "nulls", c("a", "b", "c"), clip = 2), "na", "NULL values in `columns` a, b, c;")
  expect_false(grepl("[1-9]", conditionMessage(e)))
  pg_err(second_moment(db_reader(con, "nulls", c("a", "b")), 2), "x", "missing values")
  Z <- cbind(a = c(1, 0, 4, 0.5), b = c(2, 3, 0, 0.25), c = c(0, 0, 5, 6))
  expect_equal(second_moment_db(con, "nulls", c("a", "b", "c"), clip = 2.5, na = "zero"), second_moment(Z, 2.5),
               tolerance = 1e-14)
  expect_equal(second_moment(db_reader(con, query = "SELECT a, b, c FROM nulls ORDER BY id", na = "zero"), 2.5),
               second_moment(Z, 2.5), tolerance = 1e-14)
  # PostgreSQL keeps NaN and Infinity (SQLite turns NaN into NULL): refused,
  # as second_moment() refuses them in memory
  DBI::dbExecute(con, "DROP TABLE IF EXISTS nonfinite")
  DBI::dbExecute(con, "CREATE TABLE nonfinite (a double precision, b double precision)")
  DBI::dbExecute(con, "INSERT INTO nonfinite VALUES (1, 2), ('NaN', 1)")
  for (clip in c(2, Inf)) pg_err(second_moment_db(con, "nonfinite", clip = clip), "table", "infinite or NaN")
  DBI::dbExecute(con, "UPDATE nonfinite SET a = '-Infinity' WHERE b = 1")
  for (clip in c(2, Inf)) pg_err(second_moment_db(con, "nonfinite", clip = clip), "table", "infinite or NaN")
  expect_error(second_moment(cbind(c(1, -Inf), c(2, 1)), 2), class = "dpcov_error")
  DBI::dbExecute(con, "DROP TABLE typed; DROP TABLE nulls; DROP TABLE nonfinite")
})

test_that("PostgreSQL: a value the database cannot convert fails without its digits in the message", {
  # a NUMERIC outside the double range makes the CAST fail, and the server's
  # message quotes the value to the last digit: withheld for queries that
  # evaluate the rows; schema errors keep the server's message
  skip_if_no_postgres()
  con <- pg_connect()
  on.exit(DBI::dbDisconnect(con))
  DBI::dbExecute(con, "DROP TABLE IF EXISTS outside")
  DBI::dbExecute(con, "CREATE TABLE outside (a numeric, b double precision)")
  DBI::dbExecute(con, "INSERT INTO outside VALUES (1, 2), (3, 4), ('98765e400'::numeric, 5)")
  for (f in list(function() second_moment_db(con, "outside", clip = 3),
                 function() second_moment(db_reader(con, "outside"), 3))) {
    b <- dp_budget(5, 1e-4)
    e <- tryCatch(analyze_gauss(f(), 1, 1e-6, budget = b), error = identity)
    expect_s3_class(e, "dpcov_error")
    expect_false(grepl("98765", conditionMessage(e)))
    expect_match(conditionMessage(e), "convert.*message is withheld")
  }
  e <- tryCatch(second_moment_db(con, "no_such_table", clip = 3), error = identity)
  expect_match(conditionMessage(e), "no_such_table")  # the server's own words, about the schema
  # a query ending in a -- comment
  expect_equal(second_moment_db(con, query = "SELECT b FROM outside -- the second column", clip = 3)$n, 3)
  DBI::dbExecute(con, "DROP TABLE outside")
})

test_that("PostgreSQL: rows whose squares overflow or underflow (an error on this engine) give second_moment()'s statistics", {
  skip_if_no_postgres()
  con <- pg_connect()
  on.exit(DBI::dbDisconnect(con))
  set.seed(3)
  X <- matrix(stats::rnorm(400 * 3), 400, 3, dimnames = list(NULL, c("a", "b", "c")))
  X[1, ] <- c(1e200, -2e200, 3)
  X[2, ] <- c(1.2e308, -1.2e308, 1)
  X[3, ] <- c(1e-200, 2e-200, 0)
  X[4, ] <- c(1e-200, 5, -1e-200)
  X[5, ] <- c(3e-320, 0, 0)
  X[6, ] <- 0
  X[7:30, 2] <- 1e-200
  DBI::dbWriteTable(con, "tiny", data.frame(id = 1:400, X), overwrite = TRUE, row.names = FALSE)
  # dbWriteTable goes through text: read back what the server holds
  Y <- pg_read(con, "tiny", c("a", "b", "c"))
  expect_equal(Y, X, tolerance = 1e-14, ignore_attr = TRUE)
  for (clip in c(1e-3, 3, 1e40)) {
    got <- second_moment_db(con, "tiny", c("a", "b", "c"), clip = clip)
    expect_equal(got, second_moment(Y, clip), tolerance = 1e-12, label = format(clip))
  }
  Z <- Y[-(1:2), ]
  expect_equal(second_moment_db(con, query = "SELECT a, b, c FROM tiny WHERE id > 2", clip = Inf),
               second_moment(Z, Inf), tolerance = 1e-12)
  DBI::dbExecute(con, "DROP TABLE tiny")
})

test_that("PostgreSQL: quoted and schema-qualified names, injection attempts, double types", {
  skip_if_no_postgres()
  con <- pg_connect()
  on.exit(DBI::dbDisconnect(con))
  DBI::dbExecute(con, 'DROP SCHEMA IF EXISTS "My Schema" CASCADE')
  DBI::dbExecute(con, 'CREATE SCHEMA "My Schema"')
  DBI::dbExecute(con, 'CREATE TABLE "My Schema"."odd ""name""; --" ("col one" float8, "Col""2" float8, "SELECT" float8)')
  DBI::dbExecute(con, 'INSERT INTO "My Schema"."odd ""name""; --" VALUES (1, 2, 3), (4, -5, 6), (0.5, 0.25, -7)')
  X <- cbind(`col one` = c(1, 4, 0.5), `Col"2` = c(2, -5, 0.25), SELECT = c(3, 6, -7))
  id <- DBI::Id(schema = "My Schema", table = "odd \"name\"; --")
  expect_equal(second_moment_db(con, id, clip = 4), second_moment(X, 4), tolerance = 1e-14)
  expect_equal(second_moment_db(con, id, c("SELECT", "col one"), clip = 4), second_moment(X[, c(3, 1)], 4),
               tolerance = 1e-14)
  expect_equal(second_moment(db_reader(con, id, c("Col\"2", "SELECT")), 4), second_moment(X[, c(2, 3)], 4),
               tolerance = 1e-14)
  # injection attempts in names are names: not found, nothing executed
  DBI::dbExecute(con, "CREATE TABLE victim (a float8)")
  DBI::dbExecute(con, "INSERT INTO victim VALUES (1), (2)")
  for (f in list(function(...) second_moment_db(..., clip = 2), function(...) second_moment(db_reader(...), 2))) {
    pg_err(f(con, "victim; DROP TABLE victim; --"), "table", "does not exist")
    pg_err(f(con, 'victim"; DROP TABLE victim; --'), "table", "does not exist")
    pg_err(f(con, DBI::Id(schema = "public; DROP TABLE victim", table = "victim")), "table", "does not exist")
    pg_err(f(con, "victim", columns = 'a", (SELECT 1) AS "b'), "columns", "not found")
  }
  pg_err(second_moment_db(con, "victim", clip = 2, double_type = "FLOAT8); DROP TABLE victim; --"), "double_type")
  expect_identical(DBI::dbGetQuery(con, "SELECT COUNT(*) AS n FROM victim")$n, 2)
  # double types: PostgreSQL's names work; DOUBLE is not a type here, and
  # REAL is 4 bytes: past the list, the check on known rows refuses both
  v <- cbind(a = c(1, 2))
  for (ok in c("DOUBLE PRECISION", "FLOAT8")) {
    expect_equal(second_moment_db(con, "victim", clip = 1.5, double_type = ok), second_moment(v, 1.5), tolerance = 1e-14)
  }
  pg_err(second_moment_db(con, "victim", clip = 1.5, double_type = "REAL"), "double_type")
  with_binding("dpcov", "check_double_type", function(double_type, ...) double_type, {
    for (bad in c("DOUBLE", "REAL", "INTEGER", "TEXT")) {
      pg_err(second_moment_db(con, "victim", clip = 1.5, double_type = bad), "double_type", "known rows")
    }
  })
  DBI::dbExecute(con, 'DROP SCHEMA "My Schema" CASCADE; DROP TABLE victim')
})

test_that("PostgreSQL: a connection dropped by the server or closed by the client gives a classed error", {
  skip_if_no_postgres()
  con <- pg_connect()
  admin <- pg_connect()
  on.exit(DBI::dbDisconnect(admin))
  DBI::dbExecute(admin, "DROP TABLE IF EXISTS drop_t")
  DBI::dbExecute(admin, "CREATE TABLE drop_t AS SELECT i::float8 AS a, (i % 5)::float8 AS b FROM generate_series(1, 1000) s(i)")
  r <- db_reader(con, "drop_t", chunk_rows = 100)
  expect_identical(dim(r()), c(100L, 2L))
  r(reset = TRUE)
  pid <- DBI::dbGetQuery(con, "SELECT pg_backend_pid() AS pid")$pid
  DBI::dbGetQuery(admin, sprintf("SELECT pg_terminate_backend(%d)", as.integer(pid)))
  Sys.sleep(0.2)
  pg_err(second_moment_db(con, "drop_t", clip = 2), "table")
  pg_err(second_moment(r, 2), "x", "^`x` \\(the reader\\): ")
  pg_err(db_reader(con, "drop_t"), "table")
  try(DBI::dbDisconnect(con), silent = TRUE)
  # closed by the client: known before any query
  con2 <- pg_connect()
  DBI::dbDisconnect(con2)
  pg_err(second_moment_db(con2, "drop_t", clip = 2), "conn", "closed or dropped")
  pg_err(db_reader(con2, "drop_t"), "conn", "closed or dropped")
  DBI::dbExecute(admin, "DROP TABLE drop_t")
})

# A reader's first block, the reader then reset (its result set or file closed).
first_block <- function(r) {
  on.exit(r(reset = TRUE))
  r()
}

test_that("PostgreSQL: the schema, not the rows, decides a column's refusal; both paths read the same numbers (audit)", {
  skip_if_no_postgres()
  no_warning <- function(expr) withCallingHandlers(expr, warning = function(w) {
    stop("a warning reached the user: ", conditionMessage(w))
  })
  for (driver in pg_drivers()) {
    con <- pg_connect(driver = driver)
    DBI::dbExecute(con, "DROP TABLE IF EXISTS people")
    DBI::dbExecute(con, "CREATE TABLE people (code text, income double precision, day date)")
    DBI::dbExecute(con, "INSERT INTO people VALUES ('12', 10, '2020-01-01'), ('7', 20, '2020-01-02')")
    # a text or date column is refused whether or not a row qualifies (only
    # the first row's types were checked: released on no rows)
    for (cond in c("income > 100", "income > 0")) {
      for (col in c("code", "day")) {
        q <- sprintf("SELECT %s, income FROM people WHERE %s", col, cond)
        pg_err(second_moment_db(con, query = q, clip = 5), "columns", paste0("`columns`: `", col, "`"))
        pg_err(db_reader(con, query = q), "columns", paste0("`columns`: `", col, "`"))
      }
    }
    # no columns, and a name given twice: classed, naming `query`, no warning
    for (f in list(function(q) second_moment_db(con, query = q, clip = 5), function(q) db_reader(con, query = q))) {
      no_warning(pg_err(f("SELECT FROM generate_series(1, 3)"), "query", "has no columns"))
      pg_err(f("SELECT income AS x, income AS x FROM people"), "query", "more than one column named x")
    }
    # a NUMERIC too small for a double reads as 0 on both paths (its cast
    # failed in second_moment_db()); subnormal doubles and NUMERICs are kept
    DBI::dbExecute(con, "DROP TABLE IF EXISTS tinyn")
    DBI::dbExecute(con, "CREATE TABLE tinyn (id integer, a numeric, b double precision)")
    DBI::dbExecute(con, paste("INSERT INTO tinyn VALUES (1, '1e-400', 2), (2, '-2e-324', 3e-320),",
                              "(3, '3e-324', 1), (4, 0.1, -1e-310), (5, '1e-300', 5)"))
    A <- cbind(a = c(0, 0, as.numeric("3e-324"), 0.1, 1e-300), b = c(2, 3e-320, 1, -1e-310, 5))
    q <- "SELECT a, b FROM tinyn ORDER BY id"
    expect_identical(first_block(db_reader(con, query = q)), A, label = driver)
    for (clip in c(Inf, 3)) {
      expect_equal(second_moment_db(con, query = q, clip = clip), second_moment(A, clip), tolerance = 1e-14)
      expect_equal(second_moment(db_reader(con, query = q), clip), second_moment(A, clip), tolerance = 1e-14)
    }
    # integer -2^31 (R's integer NA), a bigint above 2^53 (bit64 warned, by
    # value), a real (read by its shortest decimal), a smallint, a boolean:
    # the reader reads what second_moment_db() casts, bitwise, and says nothing
    DBI::dbExecute(con, "DROP TABLE IF EXISTS wide")
    DBI::dbExecute(con, "CREATE TABLE wide (id integer, i integer, b bigint, r real, s smallint, f boolean)")
    DBI::dbExecute(con, "INSERT INTO wide VALUES (1, -2147483648, 9007199254740993, 0.1, -32768, true)")
    W <- cbind(i = -2^31, b = 2^53, r = 0.100000001490116119384765625, s = -32768, f = 1)
    q <- "SELECT i, b, r, s, f FROM wide"
    expect_identical(no_warning(first_block(db_reader(con, query = q))), W, label = driver)
    expect_identical(second_moment_db(con, query = q)$gram, second_moment(W)$gram, label = driver)
    expect_identical(no_warning(second_moment(db_reader(con, query = q)))$gram, second_moment(W)$gram)
    DBI::dbExecute(con, "INSERT INTO wide VALUES (2, 5, -9007199254740995, 2.5, 2, NULL)")
    W0 <- rbind(W, c(5, -2^53 - 4, 2.5, 2, 0))
    expect_identical(no_warning(first_block(db_reader(con, query = paste(q, "ORDER BY id"), na = "zero"))), W0, label = driver)
    pg_err(second_moment_db(con, query = q), "na", "NULL values in `columns` f;")
    # NaN is not a missing value: refused by the readers whatever `na` says,
    # as in memory and by second_moment_db(); a reader's refusal of its values
    # keeps the charge (its SQL may be the analyst's, failing on purpose)
    DBI::dbExecute(con, "DROP TABLE IF EXISTS nan")
    DBI::dbExecute(con, "CREATE TABLE nan (a double precision, b double precision)")
    DBI::dbExecute(con, "INSERT INTO nan VALUES (1, 2), ('NaN', 3), (NULL, 4)")
    for (na in c("error", "zero")) {
      b <- dp_budget(5, 1e-4)
      e <- pg_err(dp_cov(db_reader(con, "nan", na = na), 1, 1e-6, clip = 3, clip_mean = 3, budget = b), "x",
                  "`columns`: `a` contains NaN values, refused as second_moment\\(\\) refuses them in memory")
      expect_false(grepl("missing value \\(NULL or NA\\)", conditionMessage(e)))
      expect_s3_class(e, "dpcov_data_error")
      expect_identical(nrow(as.data.frame(b)), 2L)
      pg_err(second_moment_db(con, "nan", clip = 3, na = na), "table", "infinite or NaN")
    }
    DBI::dbExecute(con, "DROP TABLE people, tinyn, wide, nan")
    DBI::dbDisconnect(con)
  }
})

test_that("PostgreSQL: a NULL in a row whose other values are 0 is found with a finite clip (GREATEST skips NULLs)", {
  skip_if_no_postgres()
  con <- pg_connect()
  on.exit(DBI::dbDisconnect(con))
  DBI::dbExecute(con, "DROP TABLE IF EXISTS nul0")
  DBI::dbExecute(con, "CREATE TABLE nul0 (a double precision, b double precision, c double precision)")
  DBI::dbExecute(con, "INSERT INTO nul0 VALUES (NULL, 0, NULL), (1, 2, 3), (0, NULL, 0), (4, NULL, 1)")
  for (clip in c(Inf, 5, 1e-3)) {
    e <- pg_err(second_moment_db(con, "nul0", clip = clip), "na", "NULL values")
    # every column holding a NULL is named, whatever the row's other values
    expect_match(conditionMessage(e), "`columns` a, b, c;", fixed = TRUE)
    expect_s3_class(e, "dpcov_data_error")
  }
  # read as 0: the statistics of the rows with 0 in place of NULL
  X <- rbind(c(0, 0, 0), c(1, 2, 3), c(0, 0, 0), c(4, 0, 1))
  colnames(X) <- c("a", "b", "c")
  expect_equal(second_moment_db(con, "nul0", clip = 5, na = "zero"), second_moment(X, 5), tolerance = 1e-14)
  DBI::dbExecute(con, "DROP TABLE nul0")
})
