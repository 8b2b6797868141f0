# Data that does not fit in memory: the sufficient statistics computed inside a
# database through DBI (one aggregate query), and ready chunk readers over a
# DBI result set and over a delimited text file. DBI is in Suggests, not
# Imports: only these functions need it, and a user without a database should
# not have to install it.

#' Clipped second-moment statistics computed inside a database
#'
#' Builds one SQL aggregate query that computes, inside the database engine,
#' the number of rows n, every entry on and above the diagonal of the clipped
#' Gram matrix \eqn{\sum_i c_i^2 x_i x_i^T} and the clipped column sums
#' \eqn{\sum_i c_i x_i} (\eqn{c_i = \min(1, B/\|x_i\|)}, each row's factor
#' computed in SQL from its squared norm), runs it through DBI, and returns
#' the same [second_moment()] object as the data read into R would give. Only
#' p(p + 3)/2 + a few numbers leave the database; the rows never do. Like
#' [second_moment()], the result is **not** private: pass it to a mechanism
#' ([dp_cov()], [analyze_gauss()], [wishart_noise()], ...).
#'
#' **SQL used.** Only what common engines share: `CAST(... AS <double_type>)`,
#' `CASE WHEN`, `COALESCE`, `COUNT`, `SUM`, `+`, `*`, `/`, `>` and derived
#' tables. The Gram needs no square root (\eqn{c_i^2 = B^2/\|x_i\|^2} when
#' \eqn{\|x_i\| > B}); the column sums need `SQRT` (SQL:2003), which SQLite
#' has only when built with its math functions: the function first asks the
#' engine whether `SQRT` compiles and, on an RSQLite connection without it,
#' loads RSQLite's math extension (`RSQLite::initExtension(conn, "math")`);
#' on any other engine without `SQRT` it stops with a `dpcov_error`. `LEAST`
#' (or SQLite's two-argument `MIN`) is not used. Identifiers are quoted by
#' [DBI::dbQuoteIdentifier()]; B and B^2 are written as literals with 17
#' significant digits (B is public). The columns are cast to `double_type`
#' first, so integer columns cannot overflow: `"DOUBLE PRECISION"` (SQL
#' standard: PostgreSQL, SQLite, DuckDB, MySQL 8) or `"DOUBLE"` (Spark SQL,
#' Hive).
#'
#' **Engine limits.** There are p(p + 1)/2 + 2p + 3 aggregates (one more per
#' column on SQLite, see below); at most `max_terms` go in one query, so p up
#' to 54 takes one scan of the table and larger p several. The default, 1600,
#' is below PostgreSQL's 1664 result columns and SQLite's default
#' `SQLITE_MAX_COLUMN` of 2000. The squared norm is a balanced sum, so its
#' expression depth is log2(p) (SQLite refuses depth > 1000).
#'
#' **Missing values.** SQL `NULL` in a chosen column: with `na = "error"`
#' (the default, as the in-memory path refuses `NA`) a `dpcov_error` naming
#' the columns and their NULL counts; with `na = "zero"` a NULL is read as 0,
#' a map of each row by itself, so the neighbour notion and the guarantee are
#' unchanged. Rows are never dropped (that would change n); to drop them, say
#' so in `query` (`WHERE ... IS NOT NULL`), knowing that n is then the count
#' of the rows kept. SQLite stores `NaN` as NULL.
#'
#' **Types.** Each chosen column must be numeric (integer, double, logical)
#' in the first row returned, or the call stops. SQLite types values, not
#' columns, so on SQLite the query also counts text and blob values of each
#' chosen column (`typeof()`), and any is an error: `CAST` would read them as
#' 0. An infinite value, or a row whose squared norm overflows, is an error.
#'
#' **Accuracy.** The sums are the engine's `SUM` of doubles. Measured with
#' RSQLite 2.2.20 (SQLite 3.40, plain summation) on 10^6 rows, p = 4, with
#' means from 0 to 100, 91 percent of the rows clipped: the largest relative
#' error of any entry against R's long-double sums was 1.7e-13 (Gram: 5.6e-14),
#' so no compensated formulation is used. The error of plain summation grows
#' with n (in the worst case as n times 1.1e-16, typically as its square
#' root); engines with compensated `SUM` (SQLite >= 3.43) do better.
#'
#' @param conn A DBI connection ([DBI::dbConnect()]).
#' @param table The table: a name, or a [DBI::Id()] for a schema-qualified
#'   one. Give `table` or `query`.
#' @param columns Names of the numeric columns to use, in order; `NULL` for
#'   all the columns of the table or query.
#' @param clip Row-norm bound B; `Inf` for no clipping.
#' @param query A `SELECT` statement whose result is the data (a subset, a
#'   join, a computed column), used as a derived table.
#' @param na How a `NULL` is read: `"error"` (default) or `"zero"`.
#' @param max_terms Most aggregates in one query (see *Engine limits*).
#' @param double_type The SQL type the columns are cast to.
#' @return A [second_moment()] object (class `c("dp_suffstat",
#'   "dp_nonprivate")`), not private.
#' @seealso [db_reader()] and [csv_reader()] to stream the rows instead;
#'   `vignette("database", package = "dpcov")`.
#' @examplesIf requireNamespace("RSQLite", quietly = TRUE)
#' con <- DBI::dbConnect(RSQLite::SQLite(), ":memory:")
#' set.seed(1)
#' DBI::dbWriteTable(con, "survey", data.frame(a = rnorm(500), b = rnorm(500, 1)))
#' s <- second_moment_db(con, "survey", clip = 3)
#' all.equal(s, second_moment(DBI::dbReadTable(con, "survey"), clip = 3))
#' dp_cov(s, epsilon = 1, delta = 1e-6)
#' DBI::dbDisconnect(con)
#' @export
second_moment_db <- function(conn, table = NULL, columns = NULL, clip = Inf, query = NULL,
                             na = "error", max_terms = 1600, double_type = "DOUBLE PRECISION") {
  db_check_conn(conn)
  clip <- check_clip(clip)
  na <- check_choice(na, c("error", "zero"), "na")
  max_terms <- check_count(max_terms, "max_terms", min = 10, max = 1e5)
  if (!is_string(double_type) || !grepl("^[A-Za-z][A-Za-z0-9 ]*$", double_type)) {
    abort("`double_type` must be one SQL type name, such as \"DOUBLE PRECISION\" or \"DOUBLE\".",
          .arg = "double_type")
  }
  src <- db_source(conn, table, query)
  columns <- db_columns(conn, src, columns)
  p <- length(columns)
  check_cells(p * (p + 1) / 2, "the Gram matrix", "columns")
  sqlite <- inherits(conn, "SQLiteConnection")
  if (is.finite(clip)) db_need_sqrt(conn, src, double_type, sqlite)

  # layer 1: the chosen columns as doubles (NULL read as 0 with na = "zero"),
  # and on SQLite a flag per column for a text or blob value
  id <- as.character(DBI::dbQuoteIdentifier(conn, columns))
  z <- paste0("dpcov_z", seq_len(p))
  cast <- sprintf("CAST(%s AS %s)", id, double_type)
  if (na == "zero") cast <- sprintf("COALESCE(%s, CAST(0 AS %s))", cast, double_type)
  tf <- if (sqlite) paste0("dpcov_t", seq_len(p))
  l1 <- paste(c(sprintf("%s AS %s", cast, z),
                if (sqlite) sprintf("CASE WHEN typeof(%s) IN ('text', 'blob') THEN 1 ELSE 0 END AS %s", id, tf)),
              collapse = ", ")
  from <- sprintf("(SELECT %s FROM %s) dpcov_l1", l1, src$sql)
  # layer 2: the squared norm, a balanced sum (depth log2 p)
  from <- sprintf("(SELECT %s, %s AS dpcov_sq FROM %s) dpcov_l2",
                  paste(c(z, tf), collapse = ", "), balanced_sum(sprintf("%s * %s", z, z)), from)
  # layer 3: each row's factors, c^2 for the Gram (no square root) and c.
  # Engines that merge a subquery into the aggregate above it substitute its
  # expressions into every one of the p(p + 1)/2 sums, recomputing the norm
  # each time (measured on SQLite: 79 s instead of 0.9 s for 2e4 x 50); a
  # LIMIT (SQLite) or OFFSET 0 (PostgreSQL) in the subquery keeps it a
  # per-row step. Other engines get no fence (DuckDB, Spark eliminate common
  # subexpressions).
  fence <- db_fence(conn)
  if (is.finite(clip)) {
    B <- sql_double(clip, double_type)
    B2 <- sql_double(clip^2, double_type)
    from <- sprintf(paste0("(SELECT %s, dpcov_sq, CASE WHEN dpcov_sq > %s THEN %s / dpcov_sq ELSE 1 END AS dpcov_w, ",
                           "CASE WHEN dpcov_sq > %s THEN %s / SQRT(dpcov_sq) ELSE 1 END AS dpcov_c FROM %s%s) dpcov_l3"),
                    paste(c(z, tf), collapse = ", "), B2, B2, B2, B, from, fence)
    w <- "dpcov_w * "
    cf <- "dpcov_c * "
    clipped <- sprintf("SUM(CASE WHEN dpcov_sq > %s THEN 1 ELSE 0 END)", B2)
  } else {
    from <- sprintf("(SELECT * FROM %s%s) dpcov_l3", from, fence)
    w <- cf <- ""
    clipped <- "SUM(0)"
  }
  ij <- which(upper.tri(diag(p), diag = TRUE), arr.ind = TRUE)
  # a squared norm above the largest double is +Inf (or NaN): refused below
  head <- c("COUNT(*)", clipped,
            sprintf("SUM(CASE WHEN dpcov_sq > %s THEN 1 ELSE 0 END)", sql_double(.Machine$double.xmax, double_type)),
            if (na == "error") sprintf("COUNT(%s)", z),
            if (sqlite) sprintf("SUM(%s)", tf))
  terms <- c(head, sprintf("SUM(%s%s)", cf, z), sprintf("SUM(%s%s * %s)", w, z[ij[, 1]], z[ij[, 2]]))
  batches <- split(terms, ceiling(seq_along(terms) / max_terms))
  vals <- unlist(lapply(batches, function(t) {
    db_query_row(conn, sprintf("SELECT %s FROM %s", paste(t, collapse = ", "), from), src$arg)
  }), use.names = FALSE)

  at <- 0
  take <- function(k) {
    v <- vals[at + seq_len(k)]
    at <<- at + k
    v
  }
  n <- take(1)
  n_clipped <- take(1)
  n_bad <- take(1)
  nonnull <- if (na == "error") take(p)
  texts <- if (sqlite) take(p)
  if (is.na(n) || n < 1) {
    abort("the %s has no rows: there is nothing to compute statistics of.",
          if (src$arg == "table") "table `table`" else "result of `query`", .arg = src$arg)
  }
  if (sqlite && any(texts > 0)) {
    bad <- texts > 0
    abort("`columns` %s hold text or blob values (%s of them): every chosen column must be numeric.",
          paste(columns[bad], collapse = ", "), paste(format(texts[bad]), collapse = ", "), .arg = "columns")
  }
  if (na == "error" && any(nonnull < n)) {
    bad <- nonnull < n
    abort(paste0("`columns` %s contain NULL values (%s rows); use na = \"zero\" to read NULL as 0, ",
                 "or drop the rows in `query` (which changes n)."),
          paste(columns[bad], collapse = ", "), paste(format(n - nonnull[bad]), collapse = ", "), .arg = "na")
  }
  if (!is.na(n_bad) && n_bad > 0) {
    abort("%s row(s) have infinite values or a squared norm that overflows; rescale the data in `query`.",
          format(n_bad), .arg = src$arg)
  }
  sums <- take(p)
  g <- take(nrow(ij))
  gram <- matrix(0, p, p)
  gram[ij] <- g
  gram[ij[, 2:1, drop = FALSE]] <- g
  if (anyNA(gram) || anyNA(sums)) abort("the database returned missing sums; the statistics cannot be trusted.", .arg = src$arg)
  new_suffstat(gram, n, clip, columns, n_clipped, sums)
}

#' A ready chunk reader over a database query or a delimited text file
#'
#' `db_reader()` streams the chosen columns of a table or query through a DBI
#' result set ([DBI::dbSendQuery()], [DBI::dbFetch()] of `chunk_rows` rows at
#' a time); `csv_reader()` streams them from a delimited text file (read with
#' [scan()] on an open connection; gzip, bzip2 and xz files are read as
#' they are). Either returns a chunk reader: a function that returns the next
#' block of rows as a numeric matrix on each call and `NULL` when done, which
#' every mechanism accepting a reader takes as `x` ([second_moment()],
#' [dp_cov()], [analyze_gauss()], [dp_clip_bound()], ...). Memory is one
#' block, whatever n.
#'
#' The readers are **re-readable**: a call after `NULL` starts again from the
#' first row (re-issuing the query, re-opening the file), which [dp_cov()]
#' needs as it reads its data twice. An error while reading resets the
#' reader; a pass abandoned for another reason continues where it stopped
#' unless the reader is called with `reset = TRUE`, which closes the result
#' set or the file and returns `NULL`. With a database, the rows must come back
#' in the same order and number on each pass (true of a table that is not
#' being written to).
#'
#' **Missing values.** A SQL `NULL` or a field in `na_strings` (by default
#' `"NA"` and the empty field): with `na = "error"` (default) a `dpcov_error`
#' naming the columns; with `na = "zero"` it is read as 0, a map of each row by
#' itself that leaves the guarantee unchanged. Rows are never dropped.
#' A field that is not a number is an error naming its line.
#'
#' @inheritParams second_moment_db
#' @param chunk_rows Rows per block.
#' @param file Path of a delimited text file (a header line with `header =
#'   TRUE`).
#' @param columns Which columns, in order: names (a header is needed for a
#'   file) or, for a file, positions; `NULL` for all.
#' @param sep The field separator.
#' @param header Whether the first line holds the column names.
#' @param na_strings Fields read as missing.
#' @return A chunk reader of class `c("dp_reader", "function")`: call it with
#'   no arguments for the next block, or with `reset = TRUE` to start again.
#' @examplesIf requireNamespace("RSQLite", quietly = TRUE)
#' set.seed(1)
#' x <- data.frame(a = rnorm(500), b = rnorm(500), c = rnorm(500))
#' con <- DBI::dbConnect(RSQLite::SQLite(), ":memory:")
#' DBI::dbWriteTable(con, "t", x)
#' r <- db_reader(con, "t", chunk_rows = 300)
#' all.equal(second_moment(r, clip = 2), second_moment(x, clip = 2))
#' f <- tempfile(fileext = ".csv")
#' utils::write.csv(x, f, row.names = FALSE)
#' dp_cov(csv_reader(f, c("a", "c")), epsilon = 1, delta = 1e-6, clip = 3, clip_mean = 3)
#' DBI::dbDisconnect(con)
#' @export
db_reader <- function(conn, table = NULL, columns = NULL, query = NULL, chunk_rows = 1e5, na = "error") {
  db_check_conn(conn)
  chunk_rows <- check_count(chunk_rows, "chunk_rows", max = 1e8)
  na <- check_choice(na, c("error", "zero"), "na")
  src <- db_source(conn, table, query)
  columns <- db_columns(conn, src, columns)
  sql <- sprintf("SELECT %s FROM %s", paste(DBI::dbQuoteIdentifier(conn, columns), collapse = ", "), src$sql)
  res <- NULL
  close_res <- function() {
    if (!is.null(res)) try(DBI::dbClearResult(res), silent = TRUE)
    res <<- NULL
  }
  reader <- function(reset = FALSE) {
    if (isTRUE(reset)) {
      close_res()
      return(invisible(NULL))
    }
    tryCatch({
      db_check_conn(conn)  # each block: a connection dropped mid-pass is not a short table
      if (is.null(res)) res <<- db_call(DBI::dbSendQuery(conn, sql), src$arg)
      block <- db_call(DBI::dbFetch(res, n = chunk_rows), src$arg)
      if (!nrow(block)) {
        close_res()
        return(NULL)
      }
      frame_block(block, columns, na, "columns")
    }, error = function(e) {
      close_res()
      stop(e)
    })
  }
  structure(reader, class = c("dp_reader", "function"),
            source = sprintf("%s columns of %s", length(columns),
                             if (src$arg == "table") "a database table" else "a database query"))
}

#' @rdname db_reader
#' @export
csv_reader <- function(file, columns = NULL, chunk_rows = 1e5, sep = ",", header = TRUE, na = "error",
                       na_strings = c("NA", "")) {
  if (missing(file)) abort_missing("file")
  if (!is_string(file)) abort("`file` must be one path, a string.", .arg = "file")
  if (!file.exists(file) || dir.exists(file)) abort("`file` \"%s\" does not exist or is not a file.", file, .arg = "file")
  chunk_rows <- check_count(chunk_rows, "chunk_rows", max = 1e8)
  if (!is_string(sep) || nchar(sep) != 1L) abort("`sep` must be a single character, such as \",\" or \"\\t\".", .arg = "sep")
  check_flag(header, "header")
  na <- check_choice(na, c("error", "zero"), "na")
  if (!is.character(na_strings) || anyNA(na_strings)) abort("`na_strings` must be a character vector.", .arg = "na_strings")
  quote <- "\""
  con <- file(file, "rt")
  first <- readLines(con, n = 1L, warn = FALSE)
  close(con)
  if (!length(first)) abort("`file` \"%s\" is empty.", file, .arg = "file")
  fields <- scan(text = first, what = "", sep = sep, quote = quote, quiet = TRUE, strip.white = TRUE,
                 na.strings = character(0))
  nf <- length(fields)
  names_all <- if (header) fields else paste0("V", seq_len(nf))
  if (is.null(columns)) {
    idx <- seq_len(nf)
  } else if (is.character(columns) && !is.object(columns) && length(columns) && !anyNA(columns)) {
    if (!header) abort("`columns` given by name needs a header line: use `header` = TRUE or give positions.", .arg = "columns")
    miss <- setdiff(columns, names_all)
    if (length(miss)) {
      abort("`columns` %s not found in the header of `file`; it has: %s.", paste(miss, collapse = ", "),
            paste(names_all, collapse = ", "), .arg = "columns")
    }
    idx <- match(columns, names_all)
  } else if (is.numeric(columns) && !is.object(columns) && length(columns) && !anyNA(columns) &&
             all(columns == round(columns)) && all(columns >= 1 & columns <= nf)) {
    idx <- as.integer(columns)
  } else {
    abort("`columns` must be NULL, column names or positions in 1..%d.", nf, .arg = "columns")
  }
  if (anyDuplicated(idx)) abort("`columns` names a column twice.", .arg = "columns")
  what <- rep(list(NULL), nf)
  what[idx] <- list(double())
  nm <- names_all[idx]
  con <- NULL
  line <- 0
  close_con <- function() {
    if (!is.null(con)) try(close(con), silent = TRUE)
    con <<- NULL
    line <<- 0
  }
  reader <- function(reset = FALSE) {
    if (isTRUE(reset)) {
      close_con()
      return(invisible(NULL))
    }
    if (is.null(con)) {
      con <<- file(file, "rt")
      if (header) {
        readLines(con, n = 1L, warn = FALSE)
        line <<- 1
      }
    }
    v <- tryCatch(scan(con, what = what, nmax = chunk_rows, sep = sep, quote = quote, quiet = TRUE,
                       na.strings = na_strings, multi.line = FALSE, strip.white = TRUE),
                  error = function(e) {
                    close_con()
                    abort("`file` could not be read as numbers after line %s: %s", format(line),
                          conditionMessage(e), .arg = "file")
                  })
    rows <- length(v[[idx[1]]])
    if (!rows) {
      close_con()
      return(NULL)
    }
    line <<- line + rows
    m <- matrix(unlist(v[idx], use.names = FALSE), rows, length(idx), dimnames = list(NULL, nm))
    tryCatch(frame_block(m, nm, na, "columns"), error = function(e) {
      close_con()
      stop(e)
    })
  }
  structure(reader, class = c("dp_reader", "function"),
            source = sprintf("%d columns of a delimited text file", length(idx)))
}

#' @export
print.dp_reader <- function(x, ...) {
  src <- attr(x, "source")
  cat(sprintf("<dp_reader> chunk reader over %s\n", if (is_string(src)) src else "a data source"))
  cat("Pass it as `x` to second_moment(), dp_cov() or any mechanism that accepts a reader.\n")
  invisible(x)
}

# ---- internals --------------------------------------------------------------

# DBI is needed only here; its absence is a classed error, not a failure to load.
dbi_installed <- function() requireNamespace("DBI", quietly = TRUE)

db_require <- function() {
  if (!dbi_installed()) {
    abort("package \"DBI\" is needed to read from a database: install.packages(\"DBI\").", .arg = "conn",
          .class = "dpcov_dependency_error")
  }
}

db_check_conn <- function(conn, arg = "conn") {
  db_require()
  if (missing(conn)) abort_missing(arg)
  if (!isS4(conn) || !inherits(conn, "DBIConnection")) {
    abort("`%s` must be a DBI connection (from DBI::dbConnect()), not %s.", arg, class(conn)[1], .arg = arg)
  }
  if (!isTRUE(tryCatch(DBI::dbIsValid(conn), error = function(e) FALSE))) {
    abort("`%s` is not a valid connection: it was closed or dropped; reconnect with DBI::dbConnect().", arg,
          .arg = arg)
  }
  invisible(conn)
}

# The data as a derived table: a quoted table name, or the query in
# parentheses with an alias (no AS: Oracle refuses it for tables).
db_source <- function(conn, table, query) {
  if (!is.null(table) && !is.null(query)) abort("give `table` or `query`, not both.", .arg = "query")
  if (!is.null(table)) {
    if (!(is_string(table) && nzchar(table) || inherits(table, "Id") || inherits(table, "SQL"))) {
      abort("`table` must be a table name (a string) or a DBI::Id().", .arg = "table")
    }
    return(list(sql = as.character(DBI::dbQuoteIdentifier(conn, table)), arg = "table"))
  }
  if (is.null(query)) abort("`table` is missing: give a table name, or a SELECT statement in `query`.", .arg = "table")
  if (!is_string(query) || !nzchar(trimws(query))) abort("`query` must be one string, a SELECT statement.", .arg = "query")
  list(sql = sprintf("(%s) dpcov_src", sub(";[[:space:]]*$", "", query)), arg = "query")
}

# The chosen columns, checked against the first row: present, and numeric.
db_columns <- function(conn, src, columns) {
  res <- db_call(DBI::dbSendQuery(conn, sprintf("SELECT * FROM %s", src$sql)), src$arg)
  first <- tryCatch(db_call(DBI::dbFetch(res, n = 1L), src$arg), finally = try(DBI::dbClearResult(res), silent = TRUE))
  have <- names(first)
  if (is.null(columns)) {
    columns <- have
  } else if (!is.character(columns) || is.object(columns) || !length(columns) || anyNA(columns) ||
             anyDuplicated(columns)) {
    abort("`columns` must be NULL or distinct column names.", .arg = "columns")
  }
  miss <- setdiff(columns, have)
  if (length(miss)) {
    abort("`columns` %s not found in the %s; it has: %s.", paste(miss, collapse = ", "),
          if (src$arg == "table") "table" else "result of `query`", paste(have, collapse = ", "), .arg = "columns")
  }
  if (nrow(first)) frame_block(first[columns], columns, "zero", "columns")  # types only
  columns
}

# A block from a database or a file as a numeric matrix: numeric, integer,
# logical or 64-bit integer columns; NA by the `na` rule.
frame_block <- function(block, columns, na, arg) {
  if (is.data.frame(block)) {
    ok <- vapply(block, function(v) (is.numeric(v) || is.logical(v)) && (!is.object(v) || inherits(v, "integer64")),
                 logical(1))
    if (!all(ok)) {
      abort("`%s` %s are not numeric (%s): every chosen column must hold numbers.", arg,
            paste(columns[!ok], collapse = ", "),
            paste(vapply(block[!ok], function(v) class(v)[1], ""), collapse = ", "), .arg = arg)
    }
    block <- matrix(unlist(lapply(block, as.double), use.names = FALSE), nrow(block), length(columns),
                    dimnames = list(NULL, columns))
  }
  if (anyNA(block)) {
    if (na == "zero") {
      block[is.na(block)] <- 0
    } else {
      bad <- colSums(is.na(block)) > 0
      abort(paste0("`%s` %s contain missing values (NULL or NA); use na = \"zero\" to read them as 0, ",
                   "or drop those rows at the source (which changes n)."),
            arg, paste(columns[bad], collapse = ", "), .arg = "na")
    }
  }
  block
}

# A DBI call whose failure (a bad table, column or query, a dropped
# connection) becomes a dpcov_error naming the source argument.
db_call <- function(expr, arg) {
  tryCatch(expr, dpcov_error = function(e) stop(e), error = function(e) {
    abort("the database refused the query on `%s`: %s", arg, conditionMessage(e), .arg = arg)
  })
}

# The one row of an aggregate query, as doubles (a 64-bit integer count
# converted by its own method, not by unlist()).
db_query_row <- function(conn, sql, arg) {
  row <- db_call(DBI::dbGetQuery(conn, sql), arg)
  vapply(row, function(v) as.double(v)[1], numeric(1), USE.NAMES = FALSE)
}

# SQRT is SQL:2003 but optional in SQLite; RSQLite can load it.
db_need_sqrt <- function(conn, src, double_type, sqlite) {
  probe <- sprintf("SELECT SQRT(CAST(2 AS %s)) FROM %s WHERE 1 = 0", double_type, src$sql)
  works <- function() !inherits(try(DBI::dbGetQuery(conn, probe), silent = TRUE), "try-error")
  if (works()) return(invisible(TRUE))
  if (sqlite && requireNamespace("RSQLite", quietly = TRUE)) {
    try(RSQLite::initExtension(conn, "math"), silent = TRUE)
    if (works()) return(invisible(TRUE))
  }
  abort(paste0("the database has no SQRT function, which the clipped column sums need (c_i = B / SQRT(norm^2)); ",
               "enable it (SQLite: RSQLite::initExtension(conn, \"math\")) or stream the rows with db_reader()."),
        .arg = "conn")
}

# A double as an SQL literal with all 17 significant digits, typed.
sql_double <- function(v, double_type) sprintf("CAST(%s AS %s)", sprintf("%.17g", v), double_type)

# a1 + ... + ak as a balanced tree of parentheses (depth log2 k, not k).
balanced_sum <- function(x) {
  if (length(x) == 1L) return(x)
  h <- length(x) %/% 2L
  sprintf("(%s + %s)", balanced_sum(x[seq_len(h)]), balanced_sum(x[-seq_len(h)]))
}

# The clause that stops an engine from merging a per-row subquery into the
# aggregate above it (see second_moment_db()).
db_fence <- function(conn) {
  if (inherits(conn, "SQLiteConnection")) return(" LIMIT -1")
  if (inherits(conn, c("PqConnection", "PostgreSQLConnection"))) return(" OFFSET 0")
  ""
}
