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
#' **Trusted SQL, one row per person.** `query`, and a `table` given as
#' [DBI::SQL()], are sent to the database verbatim: they must come from the
#' analyst, never from the data or an untrusted user (a plain `table` name and
#' `columns` are quoted by [DBI::dbQuoteIdentifier()]). The guarantee of a
#' release from these statistics is about the rows of the table or query
#' result: neighbouring data sets differ in one *result row*. It protects a
#' person only if each person is one row; a join that repeats a person's
#' record (one row per visit, per purchase) multiplies what one person can
#' change, and nothing here can detect it. Aggregate to one row per person in
#' `query` first.
#'
#' **SQL used.** Only what common engines share: `CAST(... AS <double_type>)`,
#' `CASE WHEN`, `COALESCE`, `ABS`, `COUNT`, `SUM`, `+`, `*`, `/`, `>`, `SQRT`
#' (SQL:2003), the n-ary maximum (`GREATEST`; SQLite's `MAX`) and derived
#' tables. Where engines differ (that maximum, the clause that keeps a per-row
#' subquery from being merged into the aggregate, SQLite's typing of values)
#' the SQL comes from one small table in the code, by the connection's class:
#' SQLite, PostgreSQL, and standard SQL for any other engine. SQLite has
#' `SQRT` only when built with its math functions: the function first asks the
#' engine whether `SQRT` compiles and, on an RSQLite connection without it,
#' loads RSQLite's math extension (`RSQLite::initExtension(conn, "math")`); on
#' any other engine without `SQRT` it stops with a `dpcov_error` (`clip = Inf`
#' needs no `SQRT`). Identifiers are quoted by [DBI::dbQuoteIdentifier()]; B
#' is written as a literal with 17 significant digits (B is public). The
#' columns are cast to `double_type` first, so integer columns cannot
#' overflow; it must name an 8-byte floating-point type: `"DOUBLE PRECISION"`
#' (SQL standard: PostgreSQL, SQLite, DuckDB, MySQL 8), `"DOUBLE"` (Spark SQL,
#' Hive), `"FLOAT8"` or `"FLOAT64"` (BigQuery).
#'
#' **Checked answers.** Before the data are read, the same query runs on a
#' few literal rows whose statistics are known (rows kept and clipped, a row
#' of norm 1e200 and one of norm 1e-200): unless the engine's answer equals
#' [second_moment()]'s on them, the call stops with a `dpcov_error` naming
#' `double_type`, as its statistics could not be trusted.
#'
#' **Norms without overflow.** Each row is clipped as [second_moment()]
#' clips it in memory, overflow-safely: its norm is computed after dividing
#' the row by its largest absolute value (never squaring an entry that could
#' overflow or underflow; PostgreSQL raises an error on either), so a finite
#' row of any size gives the same clipped statistics as in memory. Entries
#' below 1e-150 of a row's largest are read as 0 in its norm, and entries
#' below 1e-150 of a clipped row as 0 in the Gram's products (a difference
#' below 1e-100 per row, as B <= 1e50). With `clip = Inf` (no guarantee)
#' rows are not bounded, and those entries are still read as 0 in the
#' products, where a huge entry can make them matter (1e-151 times 1e150):
#' the Gram then differs from [second_moment()]'s, which computes in memory.
#'
#' **Engine limits.** There are p(p + 1)/2 + 2p + 3 aggregates (one more per
#' column on SQLite, see below); at most `max_terms` go in one query, so p up
#' to 54 (53 on SQLite) takes one scan of the table and larger p several (each its own
#' statement, each counting its rows: on a table written meanwhile, or a
#' `query` that is not deterministic, the scans may see different rows, and
#' different counts are refused; rows changed without changing the count
#' cannot be seen, so run it on a snapshot).
#' The default, 1600,
#' is below PostgreSQL's 1664 result columns and SQLite's default
#' `SQLITE_MAX_COLUMN` of 2000; a larger `max_terms` exceeds them, and the
#' engine refuses the query (its message names `table` or `query`). The
#' inner layers carry each row's p values with its clipped copy and, on
#' SQLite, a text flag per column (about 2p + 3 columns on PostgreSQL, 3p + 3
#' on SQLite), so the same caps bound p itself: about 830 columns on
#' PostgreSQL and 660 on SQLite with its default build (measured; [db_reader()]
#' selects p columns on PostgreSQL and 2p on SQLite: about 1660 and 1000). Wider data need an engine built with a larger limit, or a
#' [csv_reader()] over an export. The squared norm is a balanced sum, so its
#' expression depth is log2(p) (SQLite refuses depth > 1000).
#'
#' **Missing values.** SQL `NULL` in a chosen column: with `na = "error"`
#' (the default, as the in-memory path refuses `NA`) a `dpcov_error` naming
#' the columns that hold them (not how many: that depends on the data); with
#' `na = "zero"` a NULL is read as 0, a map of each row by itself, so the
#' neighbour notion and the guarantee are unchanged. Rows are never dropped
#' (that would change n); to drop them, say so in `query` (`WHERE ... IS NOT
#' NULL`), knowing that n is then the count of the rows kept: a count of the
#' data, so release such statistics under add/remove neighbours (the
#' default), where n stays private; under `"replace-one"` or `"zero-out"` n
#' is released exactly and replacing one row of the table can change it, so
#' those guarantees would not hold for the table's rows (the same for any
#' `WHERE` on the data's values). SQLite stores `NaN` as NULL.
#'
#' **Types.** Whether a column is accepted depends on the schema (public),
#' never on the rows: each chosen column must have a numeric type (integer,
#' floating-point, `NUMERIC`/`DECIMAL`, boolean) as the driver types the
#' columns of the result with no rows. RPostgres and RPostgreSQL type them by
#' the server's types; RSQLite by the declared types, so on SQLite a column
#' declared `TEXT` (or `CHAR`, `CLOB`, `BLOB`) is refused even in an empty
#' table, and a computed column, which has no declared type, is accepted. A
#' boolean is read as 1 or 0, here and by [db_reader()]. SQLite types values,
#' not columns, so on SQLite the query also counts text and blob values of
#' each chosen column (`typeof()`), and any is an error: `CAST` would read
#' them as 0. An infinite or NaN value is an error, as in memory. A result
#' with no columns, or with two columns of one name, is refused naming
#' `table` or `query`. On PostgreSQL a `NUMERIC` too small for a double
#' (below 2^-1075 in magnitude, such as 1e-400) is read as 0, as R reads it
#' (the engine's cast fails on it); one too large for a double (1e400)
#' cannot be cast: the call stops with a `dpcov_error` whose message
#' withholds the value, as for any value the engine cannot convert.
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
#'   one (both quoted); a [DBI::SQL()] is used verbatim, as trusted SQL. Give
#'   `table` or `query`.
#' @param columns Names of the numeric columns to use, in order; `NULL` for
#'   all the columns of the table or query.
#' @param clip Row-norm bound B; `Inf` for no clipping.
#' @param query A `SELECT` statement whose result is the data (a subset, a
#'   join, a computed column), used as a derived table. Trusted SQL, sent
#'   verbatim; one result row must be one person (see *Trusted SQL*).
#' @param na How a `NULL` is read: `"error"` (default) or `"zero"`.
#' @param max_terms Most aggregates in one query (see *Engine limits*).
#' @param double_type The SQL name of the engine's 8-byte floating-point
#'   type, which the columns are cast to: one of `"DOUBLE PRECISION"`,
#'   `"DOUBLE"`, `"FLOAT8"`, `"FLOAT64"`.
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
#' @template param-dots-none
#' @export
second_moment_db <- function(conn, table = NULL, columns = NULL, clip = Inf, query = NULL,
                             na = "error", max_terms = 1600, double_type = "DOUBLE PRECISION", ...) {
  refuse_unknown_args("second_moment_db", ...)
  db_check_conn(conn)
  clip <- check_clip(clip)
  na <- check_choice(na, c("error", "zero"), "na")
  max_terms <- check_count(max_terms, "max_terms", min = 10, max = 1e5)
  double_type <- check_double_type(double_type)
  src <- db_source(conn, table, query)
  cols <- db_columns(conn, src, columns)
  columns <- cols$names
  p <- length(columns)
  check_cells(p * (p + 1) / 2, "the Gram matrix", "columns")
  eng <- db_engine(conn)
  if (is.finite(clip)) db_need_sqrt(conn, src, double_type, eng)
  # the engine's answer on known rows first: a type or an engine whose
  # comparisons or arithmetic do not behave as doubles would otherwise give
  # wrong statistics (e.g. no row clipped) that a release would trust
  db_check_engine(conn, clip, na, max_terms, double_type, eng)
  ids <- DBI::dbQuoteIdentifier(conn, columns)
  # the same query on no rows first: a type or schema error (a boolean column
  # with no cast to a double) fails there with the server's message; on the
  # rows, where a failure can only come from a value, the message is withheld
  zero_src <- list(sql = sprintf("(SELECT * FROM %s WHERE 1 = 0) dpcov_zero", src$sql), arg = src$arg)
  db_moments(conn, zero_src, ids, clip, na, max_terms, double_type, eng, values = FALSE, logical = cols$logical)
  m <- db_moments(conn, src, ids, clip, na, max_terms, double_type, eng, logical = cols$logical)
  if (is.na(m$n)) abort("the database gave no row count for the %s.", src$arg, .arg = src$arg)
  if (m$n == 0) {
    # no rows are data too, as for second_moment() in memory (under
    # add/remove n is private): SQL's SUM over no rows is NULL, here 0
    m$n_clipped <- m$n_bad <- 0
    m$texts[] <- 0
    m$sum[] <- 0
    m$gram[] <- 0
  }
  # the messages name columns, never counts of rows (which depend on the data)
  if (any(m$texts > 0)) abort_text_columns(columns[m$texts > 0])
  # a non-finite value before a NULL, as the readers refuse NaN before the
  # `na` rule: whichever `na` is, the same refusal
  if (is.na(m$n_bad) || m$n_bad > 0) {
    abort("the %s holds infinite or NaN values, refused as second_moment() refuses them in memory; remove them in `query`.",
          if (src$arg == "table") "table" else "result of `query`", .arg = src$arg, .class = "dpcov_data_error")
  }
  if (na == "error" && any(m$nonnull < m$n)) {
    abort(paste0("NULL values in `columns` %s; use na = \"zero\" to read NULL as 0, ",
                 "or drop the rows in `query` (n is then a count of the data: release it under ",
                 "add/remove neighbours, where n stays private)."),
          paste(columns[m$nonnull < m$n], collapse = ", "), .arg = "na", .class = "dpcov_data_error")
  }
  if (anyNA(m$gram) || anyNA(m$sum)) {
    # (sums that reach Inf - Inf: a refusal of the values, as in memory)
    abort("the database returned missing sums (the values' squares or sums overflow); the statistics cannot be trusted.",
          .arg = src$arg, .class = "dpcov_data_error")
  }
  new_suffstat(m$gram, m$n, clip, columns, m$n_clipped, m$sum)
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
#' block, whatever n, in R; a driver may hold more: RPostgreSQL receives a
#' query's whole result before the first [DBI::dbFetch()] (measured: 2.1 GB
#' for 10^6 rows x 50 columns, `bench/RESULTS.md`), RPostgres and RSQLite
#' fetch as they go.
#'
#' The readers are **re-readable**: a call after `NULL` starts again from the
#' first row (re-issuing the query, re-opening the file), which [dp_cov()]
#' needs as it reads its data once per step (up to four times; see its `x`). Every pass of the package's functions
#' starts at the first row (it calls the reader with `reset = TRUE`, which
#' closes the result set or the file and returns `NULL`), so a pass abandoned
#' midway (a look at a block, an interrupt, an error) does not shorten the
#' next one; called by hand, the reader continues where it stopped. With a database, the rows must come back
#' in the same order and number on each pass (true of a table that is not
#' being written to).
#'
#' **Trusted SQL, one row per person.** As for [second_moment_db()]: `query`
#' and a `table` given as [DBI::SQL()] are sent verbatim and must be trusted,
#' and a guarantee is about result rows, so one row must be one person.
#'
#' **Missing values.** A SQL `NULL` or a field in `na_strings` (by default
#' `"NA"` and the empty field; with `na_strings = character(0)` no field is
#' missing, and `"NA"` is then not a number): with `na = "error"` (default) a
#' `dpcov_error` naming the columns; with `na = "zero"` it is read as 0, a
#' map of each row by itself that leaves the guarantee unchanged. Rows are
#' never dropped. `NaN` is not a missing value: it is refused whatever `na`
#' says, as in memory (as is an infinite value). A field that is not a
#' number is an error that names neither its line nor its content (both are
#' data); so is a text or blob value in a chosen column of an SQLite table,
#' wherever it sits. Fields may be quoted with `"`, numbers included (files
#' quoted throughout, as Python's `QUOTE_ALL` or Excel write them). In a
#' file every line is one record: a blank line is a record (a missing value
#' in a one-column file, too few fields otherwise), and a block whose lines
#' do not parse as as many records (a quoted field with a line break, a
#' quote inside an unquoted field such as an inch mark) is refused, since a
#' quote that runs across lines would merge any number of records into one.
#' The header is read again at every pass and must not have changed. A
#' release that such a refusal (or any failure of the reader) stops keeps its
#' budget charge (class `dpcov_data_error`). Such a refusal depends on the
#' values and is not covered by the release's guarantee, which holds for data
#' in its domain (finite numbers in every cell read): it says the data hold a
#' value outside it, and no charge makes that private; the kept charge only
#' stops a query or `na_strings` written to fail on chosen values from
#' testing them at no cost to the ledger. `na = "zero"` maps missing values
#' into the domain record by record, so that no release fails on them.
#'
#' **Types.** The chosen columns are checked on the schema, never on the
#' rows, as by [second_moment_db()] (see its *Types*). Every chosen value is
#' cast to a double in SQL by [second_moment_db()]'s own cast (to
#' `double_type`; a boolean as 1 or 0), so the two read the same numbers,
#' bitwise, and no driver converts a value itself: drivers read a 32-bit
#' integer holding -2^31 as `NA` (R's integer `NA`), a 64-bit integer as
#' `bit64::integer64` (warning of lost precision above 2^53, which depends on
#' the values), and a 4-byte float by its shortest decimal; and on SQLite,
#' which types values rather than columns, a 64-bit integer among reals or a
#' text value among numbers is read the same wherever it sits.
#'
#' In a file a field must be a number: `TRUE` and `FALSE` (as
#' [utils::write.csv()] writes a logical column) are not, and a column of
#' them is refused when read, after the charge (whether a column holds
#' them is data: a field that meant "trace" or "female" is not read as a
#' number either); write such columns as 1 and 0.
#'
#' A file with no line at all has no rows: with `header = FALSE` and
#' `columns` given as positions (its columns are then known), the reader
#' gives one block of those columns and no rows, as for an empty table;
#' otherwise it is refused.
#'
#' @inheritParams second_moment_db
#' @param chunk_rows Rows per block.
#' @param file Path of a delimited text file (a header line with `header =
#'   TRUE`), possibly compressed (gzip, bzip2, xz: read as [file()] reads
#'   them). A compressed file cut short is read up to the cut without an
#'   error, as R's connections read it; check such files first (`gzip -t`).
#'   The header's names name the columns: a name repeated among those read
#'   is refused.
#' @param columns Which columns, in order: names (a header is needed for a
#'   file) or, for a file, positions; `NULL` for all.
#' @param sep The field separator.
#' @param header Whether the first line holds the column names. A first
#'   line with a field that reads as a number (quoted or not) is refused: it
#'   may be a record, whose values would become the release's column names.
#' @param na_strings Fields read as missing. Numbers (a sentinel such as
#'   `"-999"`) only with `na = "zero"`: with `na = "error"` the refusal would
#'   test whether that value occurs in the data.
#' @return A chunk reader of class `c("dp_reader", "function")`: call it with
#'   no arguments for the next block, or with `reset = TRUE` to start again.
#'   After the last block it returns `NULL` (and starts again on the next
#'   call); a source with no rows gives one block with its columns and no
#'   rows first, so that a release under add/remove (n private) is the noise
#'   of n = 0, as for no rows in memory.
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
#' @template param-dots-none
#' @export
db_reader <- function(conn, table = NULL, columns = NULL, query = NULL, chunk_rows = 1e5, na = "error",
                      double_type = "DOUBLE PRECISION", ...) {
  refuse_unknown_args("db_reader", ...)
  db_check_conn(conn)
  chunk_rows <- check_count(chunk_rows, "chunk_rows", max = 1e8)
  na <- check_choice(na, c("error", "zero"), "na")
  double_type <- check_double_type(double_type)
  src <- db_source(conn, table, query)
  cols <- db_columns(conn, src, columns)
  columns <- cols$names
  ids <- DBI::dbQuoteIdentifier(conn, columns)
  eng <- db_engine(conn)
  # every value cast to a double in SQL by second_moment_db()'s own cast, so
  # that the two paths read the same numbers bitwise and no driver converts
  # a value itself: drivers read a 32-bit -2^31 as NA (R's integer NA), a
  # 64-bit integer as bit64's integer64 (warning, by value, of lost
  # precision above 2^53), a 4-byte float by its shortest decimal; and
  # RSQLite typed a fetched block by its first value (a 64-bit integer among
  # reals, a text value among numbers, read per block). Where values are
  # typed (SQLite) a flag per column for a text or blob value
  typed <- eng$value_types
  k <- length(columns)
  reader_sql <- function(from) {
    sprintf("SELECT %s FROM %s", paste(c(sprintf("%s AS dpcov_c%d", sql_as_double(ids, cols$logical, double_type, eng),
                                                 seq_len(k)),
                                         if (typed) sprintf("%s AS dpcov_t%d", sql_text_flag(ids), seq_len(k))),
                                       collapse = ", "), from)
  }
  # the same query on no rows first: a type or schema error (a cast the
  # engine lacks) fails there with the server's message; on the rows, where a
  # failure can only come from a value, the message is withheld
  db_get(conn, reader_sql(sprintf("(SELECT * FROM %s WHERE 1 = 0) dpcov_zero", src$sql)), src$arg)
  sql <- reader_sql(src$sql)
  res <- NULL
  sent <- FALSE  # a block (perhaps with no rows) returned in this pass
  close_res <- function() {
    if (!is.null(res)) try(DBI::dbClearResult(res), silent = TRUE)
    res <<- NULL
    sent <<- FALSE
  }
  reader <- function(reset = FALSE) {
    if (isTRUE(reset)) {
      close_res()
      return(invisible(NULL))
    }
    tryCatch({
      db_check_conn(conn)  # each block: a connection dropped mid-pass is not a short table
      if (is.null(res)) res <<- db_call(DBI::dbSendQuery(conn, sql), src$arg, values = TRUE)
      block <- db_call(DBI::dbFetch(res, n = chunk_rows), src$arg, values = TRUE)
      if (typed) {
        text <- vapply(block[k + seq_len(k)], function(v) any(v > 0, na.rm = TRUE), logical(1))
        if (any(text)) abort_text_columns(columns[text])
        block <- block[seq_len(k)]
      }
      names(block) <- columns
      if (!nrow(block)) {
        if (!sent) {
          sent <<- TRUE
          return(empty_block(columns))
        }
        close_res()
        return(NULL)
      }
      sent <<- TRUE
      frame_block(block, columns, na, "columns")
    }, error = function(e) {
      close_res()
      stop(e)
    })
  }
  structure(reader, class = c("dp_reader", "function"),
            source = sprintf("%s columns of %s", length(columns),
                             if (src$arg == "table") "a database table" else "a database query"),
            columns = columns,
            ready = function() if (!db_is_valid(conn)) "its connection is closed")
}

#' @rdname db_reader
#' @export
csv_reader <- function(file, columns = NULL, chunk_rows = 1e5, sep = ",", header = TRUE, na = "error",
                       na_strings = c("NA", ""), ...) {
  refuse_unknown_args("csv_reader", ...)
  if (missing(file)) abort_missing("file")
  if (!is_string(file)) abort("`file` must be one path, a string.", .arg = "file")
  if (!file.exists(file) || dir.exists(file)) abort("`file` \"%s\" does not exist or is not a file.", file, .arg = "file")
  chunk_rows <- check_count(chunk_rows, "chunk_rows", max = 1e8)
  # one byte: scan() splits on a byte, not on a multi-byte character
  if (!is_string(sep) || nchar(sep, "bytes") != 1L) {
    abort("`sep` must be a single one-byte character, such as \",\" or \"\\t\".", .arg = "sep")
  }
  # a character that can be part of a number or a marker (5.1 split at "."
  # read as 5 and 1; NA, Inf), the quote or a line end cannot separate fields
  if (grepl("[[:alnum:].+\"\r\n-]", sep)) {
    abort("`sep` = \"%s\" can be part of a number or of a marker (NA, Inf), or is the quote or a line end; use a separator such as \",\", \";\", \"\\t\" or \"|\".",
          encodeString(sep), .arg = "sep")
  }
  check_flag(header, "header")
  na <- check_choice(na, c("error", "zero"), "na")
  if (!is.character(na_strings) || anyNA(na_strings)) abort("`na_strings` must be a character vector.", .arg = "na_strings")
  # with na = "error", a number declared missing would make the refusal a
  # free test of whether that value occurs in the data (the refusal comes
  # before any noise); with na = "zero" it is a map of each record by itself
  num_na <- na_strings[!is.na(suppressWarnings(as.double(trimws(na_strings))))]
  if (na == "error" && length(num_na)) {
    abort("`na_strings` holds numbers (%s) while `na` = \"error\": the refusal of a missing value would test whether that value occurs in the data; use na = \"zero\" (a sentinel such as -999 read as 0) or text markers (\"NA\", \"\", \".\").",
          paste0("\"", num_na, "\"", collapse = ", "), .arg = "na_strings")
  }
  quote <- "\""
  # read as every block is (line_block()): the same bytes make the same header
  st0 <- new.env(parent = emptyenv())
  # (R's own read error, a damaged compressed file's, quotes no value but is
  # unclassed; its warning says the same)
  first <- tryCatch(suppressWarnings({
    line_block_open(st0, file)
    block_text(line_block(st0, 1L))
  }), finally = if (!is.null(st0$con)) close(st0$con),
                    dpcov_nul_byte = function(e) abort("`file` \"%s\" is not text (a NUL byte in its first line).", file,
                                                       .arg = "file"),
                    error = function(e) {
                      if (inherits(e, "dpcov_error")) stop(e)
                      abort("`file` \"%s\" could not be read (a damaged or truncated compressed file?).", file, .arg = "file")
                    })
  # a header is public: an empty one is refused here, before any release
  if (header && length(first) && !nzchar(trimws(first))) {
    abort("`file` \"%s\": its first line, the header, is empty.", file, .arg = "file")
  }
  # an empty file is a source with no rows when its columns are known (no
  # header, positions given): one block of them and no rows, as for an empty
  # table; otherwise neither the names nor the number of columns is known
  positions <- is.numeric(columns) && !is.object(columns) && length(columns) && !anyNA(columns) &&
    all(is.finite(columns)) &&
    all(columns == round(columns)) && all(columns >= 1) && all(columns <= .Machine$integer.max)
  if (!length(first) && (header || !positions)) {
    abort("`file` \"%s\" is empty%s.", file,
          if (header) " (no header line)" else ": with no line, give `columns` as positions", .arg = "file")
  }
  fields <- if (length(first)) {
    scan(text = first, what = "", sep = sep, quote = quote, quiet = TRUE, strip.white = TRUE,
         na.strings = character(0))
  }
  # an empty file: only the chosen positions exist (V<position>, as read.csv names them)
  empty <- !length(first)
  # a first line with a number in it may be a record, not a header: its
  # values would become the release's column names (and be quoted in
  # messages). One text field does not make it a header (an id column), nor
  # do quotes (a headerless file written with every field quoted)
  if (header && length(fields) && any(!is.na(suppressWarnings(as.double(fields))))) {
    abort(paste0("`header`: a field of the first line of `file` is a number, so the line may be a record, not a ",
                 "header (its values would become column names); for a file without a header give header = FALSE ",
                 "and `columns` as positions; name columns with text in the header (y2019, not 2019)."),
          .arg = "header")
  }
  # (as with rows: the refusal must not depend on whether the file has any)
  if (empty && anyDuplicated(columns)) abort("`columns` names a column twice.", .arg = "columns")
  nf <- if (empty) length(columns) else length(fields)
  # without a header the first line is a record: its field count must not
  # decide a refusal here, before any charge (a blank or short first record
  # would be learnt for free); positions past it are the user's statement of
  # the schema, and a record that does not fit is refused when it is read
  if (!header && positions && !empty) nf <- max(nf, columns)
  names_all <- if (header) fields else paste0("V", if (empty) as.integer(columns) else seq_len(nf))
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
  } else if (positions && (empty || all(columns <= nf))) {
    idx <- if (empty) seq_len(nf) else as.integer(columns)
  } else {
    abort("`columns` must be NULL, column names or positions in 1..%d.", nf, .arg = "columns")
  }
  if (anyDuplicated(idx)) abort("`columns` names a column twice.", .arg = "columns")
  # the header's names name the release's columns (public, read here): a
  # repeated one would be picked first by name, or name two columns
  if (header) {
    if (is.character(columns)) {
      twice <- intersect(columns, names_all[duplicated(names_all)])
      if (length(twice)) {
        abort("`columns`: %s names more than one column of the header of `file`; give positions.",
              col_list(twice), .arg = "columns")
      }
    }
    read_names <- fill_empty_colnames(names_all[idx])
    twice <- unique(read_names[duplicated(read_names)])
    if (length(twice)) {
      abort("`file` \"%s\": its header names %s more than once among the columns read, and the release names its columns by them; rename them in the file, or read one of them (`columns` as positions).",
            file, col_list(twice), .arg = "file")
    }
  }
  # scan() reads a numeric field unquoted only, and reads "NA" and an empty
  # field as NA whatever `na.strings` says: a block that fails as numbers
  # (quoted fields: Python's QUOTE_ALL, fwrite(quote = TRUE), Excel), or
  # whose NA may be such a field while `na_strings` lacks it, is read again
  # as text (quotes honoured) and converted here, where only `na_strings` are
  # missing. Numbers first: text is five times slower (a string per field)
  what_num <- what_chr <- rep(list(NULL), nf)
  what_num[idx] <- list(double())
  what_chr[idx] <- list(character())
  na_exact <- all(c("NA", "") %in% na_strings)
  # an empty header field is named V<j> in messages as in the release
  nm <- fill_empty_colnames(names_all[idx])
  # the file is read as bytes (line_block()): st holds the connection and
  # the bytes read past the last block
  st <- new.env(parent = emptyenv())
  st$con <- NULL
  sent <- FALSE  # a block (perhaps with no rows) returned in this pass
  close_con <- function() {
    if (!is.null(st$con)) try(close(st$con), silent = TRUE)
    st$con <- NULL
    # the bytes read past the last block are rows: the reader keeps none
    # between passes (a saved or exported reader would carry them)
    st$carry <- raw(0)
    st$carry_pos <- integer(0)
    st$pending <- raw(0)
    st$drained <- FALSE
    sent <<- FALSE
  }
  # A file read to its end is closed with the block that ends it (a pass read
  # in one block, its reader then dropped, held the file open until the
  # garbage collector closed it with a warning); the next call ends the pass.
  close_if_read <- function() {
    if (isTRUE(st$eof) && !length(st$carry)) {
      try(close(st$con), silent = TRUE)
      st$con <- NULL
      st$drained <- TRUE
    }
  }
  # the header is read again at each pass and must be the one the columns
  # were chosen by: a file rewritten with its columns in another order would
  # otherwise be read under the wrong names
  open_con <- function() {
    # a file removed or made unreadable since the reader was made: R's
    # error (and gzfile()'s warning) name only the path
    tryCatch(suppressWarnings(line_block_open(st, file)), error = function(e) {
      close_con()
      abort("`file` \"%s\" can no longer be opened (removed, moved or made unreadable since the reader was made).",
            file, .arg = "file", .class = "dpcov_reader_block")
    })
    if (header) {
      h <- tryCatch(line_block(st, 1L), error = function(e) NULL)
      if (is.null(h) || !identical(block_text(h), first)) {
        close_con()
        abort("`file` changed since the reader was made: its header line is not the one its columns were chosen by.",
              .arg = "file")
      }
    }
  }
  # One record per physical line. scan() on the connection let a quote
  # inside an unquoted field (an inch mark, 5"3) open a string that ran
  # across line ends, so one record could swallow or merge any number of
  # others; it also skipped blank lines, and it reads a line with twice the
  # fields as two records: one record's effect on the statistics was
  # unbounded. So each block is read as lines and parsed from them, and
  # refused unless they parse as as many records. Quotes off first (an inch
  # mark is then text like any other); quotes honoured where the block needs
  # them (quoted numbers, a separator inside a quoted field); as text last
  # (a missing value written as a quoted or custom marker). A blank line is
  # a record. scan()'s warnings (an unterminated quote) depend on the
  # values: muffled.
  # (from the block's raw connection, read again from its start each time)
  # scan() is told the block's number of lines as its number of records, so
  # it allocates them once instead of growing its vectors (twice the memory
  # of the numbers at the peak); bytes left after that many records (a line
  # holding more than one) make the block no parse (NULL)
  parse <- function(rc, what, na.strings, n_lines, q = quote) {
    seek(rc, 0)
    v <- suppressWarnings(scan(rc, what = what, sep = sep, quote = q, quiet = TRUE, na.strings = na.strings,
                               multi.line = FALSE, strip.white = TRUE, blank.lines.skip = FALSE, nmax = n_lines))
    if (length(readBin(rc, "raw", 1L))) NULL else v
  }
  # With quotes honoured, an opened quote runs to the next one, across line
  # ends: a line with an unclosed quote would swallow the rest of its block
  # while supplying as many records itself (equal totals). Every line must
  # close its quotes (an even number of quote characters; a doubled quote
  # inside a quoted field counts two), so no quoted field leaves its line.
  quotes_closed <- function(bytes, blk) {
    q <- grepRaw(charToRaw(quote), bytes, all = TRUE, fixed = TRUE)
    !length(q) || all(tabulate(findInterval(q, blk$ends) + 1L, blk$lines) %% 2L == 0L)
  }
  # scan() reads a number with blanks inside it by joining its digits ("1 2"
  # as 12); such a block goes to the text path, where it is not a number
  blanks <- setdiff(c(" ", "\t"), sep)
  blank_bytes <- lapply(blanks, charToRaw)
  inner_blank <- paste0("[0-9.][", paste(blanks, collapse = ""), "]+[-+0-9.]")
  numbers_ok <- function(v, n_lines) {
    !is.null(v) && length(v[[idx[1]]]) == n_lines &&
      (na_exact || !any(vapply(v[idx], function(x) any(is.na(x) & !is.nan(x)), logical(1))))
  }
  # The reader's closure is this frame: what it read to learn the schema
  # goes (the first block's carry; without a header, the first record and
  # its fields are data), the header's text stays (it is checked each pass)
  rm(st0)
  if (!header) first <- fields <- NULL
  reader <- function(reset = FALSE) {
    if (isTRUE(reset)) {
      close_con()
      return(invisible(NULL))
    }
    if (isTRUE(st$drained)) {
      close_con()
      return(NULL)
    }
    if (is.null(st$con)) open_con()
    unreadable <- function(...) {
      close_con()
      # scan()'s message quotes the offending field and the line count
      # locates it: both are data, so neither is passed on
      abort(paste0("`file` could not be read as numbers: a field of a selected column is not a number, ",
                   "a row has the wrong number of fields (an empty line, one at the end included, is a row ",
                   "with none), or a quoted field runs past the end of its line ",
                   "(where, and what it holds, are not reported: they are data)."), .arg = "file")
    }
    blk <- tryCatch(line_block(st, chunk_rows), error = unreadable)  # (a NUL byte: not text)
    lines <- if (is.null(blk)) raw(0) else blk$bytes
    n_lines <- if (is.null(blk)) 0L else blk$lines
    v <- NULL
    if (n_lines) {
      # (the regular expression only where a blank occurs at all: four times
      # the cost of the parse otherwise)
      as_text <- length(blank_bytes) && any(vapply(blank_bytes, function(b) length(grepRaw(b, lines, fixed = TRUE)) > 0,
                                                   logical(1))) &&
        length(grepRaw(inner_blank, lines))
      # the connection holds its own copy of the bytes: the block's are
      # dropped, so a block is in memory twice at most (bytes, then numbers)
      quoted <- nzchar(quote) && length(grepRaw(charToRaw(quote), lines, fixed = TRUE)) > 0L
      rc <- rawConnection(lines)
      on.exit(close(rc), add = TRUE)
      n_bytes <- length(lines)
      lines <- blk$bytes <- NULL
      # (the bytes again, for the quote check: from the connection's copy)
      rc_bytes <- function() {
        seek(rc, 0)
        readBin(rc, "raw", n_bytes)
      }
      closed <- !quoted || quotes_closed(rc_bytes(), blk)
      # quotes closed on every line are read as quotes: the quotes-off parse
      # could split a quoted field at its separator and shift the fields
      # after it, which it accepted when only unselected columns held quotes;
      # stray ones (an inch mark in a text column) can only be read off
      if (!as_text && !(quoted && closed)) v <- tryCatch(parse(rc, what_num, na_strings, n_lines, ""), error = function(e) NULL)
      if (!numbers_ok(v, n_lines) && !closed) unreadable()
      if (!as_text && !numbers_ok(v, n_lines)) v <- tryCatch(parse(rc, what_num, na_strings, n_lines), error = function(e) NULL)
      if (!numbers_ok(v, n_lines)) {
        v <- tryCatch(parse(rc, what_chr, character(0), n_lines), error = unreadable)
        if (length(v[[idx[1]]]) != n_lines) unreadable()
        for (j in idx) {
          f <- v[[j]]
          x <- suppressWarnings(as.double(f))  # "NAs introduced by coercion": the number is the data's
          miss <- f %in% na_strings
          if (any(is.na(x) & !is.nan(x) & !miss)) unreadable()  # neither a number nor missing
          x[miss] <- NA
          v[[j]] <- x
        }
      }
    }
    rows <- if (length(v)) length(v[[idx[1]]]) else 0L
    if (!rows) {
      if (!sent) {
        sent <<- TRUE
        close_if_read()
        return(empty_block(nm))
      }
      close_con()
      return(NULL)
    }
    sent <<- TRUE
    close_if_read()
    # (the numbers shaped in place: matrix() would copy them once more)
    m <- unlist(v[idx], use.names = FALSE)
    v <- NULL
    dim(m) <- c(rows, length(idx))
    dimnames(m) <- list(NULL, nm)
    tryCatch(frame_block(m, nm, na, "columns"), error = function(e) {
      close_con()
      stop(e)
    })
  }
  structure(reader, class = c("dp_reader", "function"),
            source = sprintf("%d columns of a delimited text file", length(idx)), columns = nm,
            ready = function() if (!file.exists(file) || dir.exists(file)) "its file no longer exists")
}

# csv_reader()'s lines, read as bytes: readLines() made a string of every
# line before scan() parsed them again, 1.5 times the time of the old
# scan() on the connection; bytes are counted and cut at line ends instead.
# Each read asks for about what the block still needs at the bytes per line
# seen so far (a tenth more), at least csv_read_min bytes; the reads are
# joined once. Fixed reads of 4 MB, each appended to the block, copied the
# growing block at every read and a carry of up to 4 MB at every block: at
# 1e5 rows of 50 columns a release's peak memory was 1.7 times the old
# reader's (bench/RESULTS.md).
csv_read_min <- 2^16
csv_read_max <- 2^26

line_block_open <- function(st, file) {
  # gzfile() reads plain files too, and gzip, bzip2 and xz ones (as file() in
  # text mode does)
  st$con <- gzfile(file, "rb")
  st$carry <- raw(0)   # bytes read past the last block, line ends normalised
  st$carry_pos <- integer(0)  # and the positions of their line ends
  st$cr <- FALSE       # a CR ended the last read: its LF may start the next
  st$eof <- FALSE
  st$seen_bytes <- 0   # bytes and line ends read so far, for the next read's size
  st$seen_lines <- 0
  # a UTF-8 byte-order mark is dropped, as readLines() drops it; other first
  # bytes wait for the first read
  head <- readBin(st$con, "raw", 3L)
  st$pending <- if (identical(head, as.raw(c(0xef, 0xbb, 0xbf)))) raw(0) else head
  invisible(st)
}

# The size of the next read for `lines` more lines, and for a block of
# `size` bytes without a line end yet (a long line: twice as much again).
line_read_size <- function(st, lines, size) {
  want <- if (st$seen_lines > 0) 1.1 * lines * st$seen_bytes / st$seen_lines else max(size, csv_read_min)
  as.integer(min(max(want, csv_read_min), csv_read_max))
}

# The next block of at most `n` lines as bytes, each line ended by LF (CRLF
# and CR line ends read as LF, as readLines() reads them), its number of
# lines and the positions of their ends; NULL at the end of the file. A NUL
# byte is an error (not text).
line_block <- function(st, n) {
  nl <- as.raw(10L)
  parts <- list(st$carry)
  size <- length(st$carry)
  pos <- st$carry_pos  # line ends so far (each read adds its own)
  while (length(pos) < n && !st$eof) {
    more <- c(st$pending, readBin(st$con, "raw", line_read_size(st, n - length(pos), size)))
    st$pending <- raw(0)
    if (!length(more)) {
      st$eof <- TRUE
      if (st$cr) {  # a CR that ended the file
        parts[[length(parts) + 1L]] <- nl
        size <- size + 1L
        pos <- c(pos, size)
      }
      st$cr <- FALSE
    } else {
      if (st$cr) more <- c(as.raw(13L), more)
      # a CR at the end of what was read may be half of a CRLF: held back
      st$cr <- more[length(more)] == as.raw(13L)
      if (st$cr) more <- raw_part_cpp(more, 0, length(more) - 1)
      # CRLF and a lone CR to LF (src/lines.cpp: dropping the CRs in R, b[-r],
      # built a logical index of the whole block)
      more <- normalise_line_ends_cpp(more)
      ends <- line_ends(more)
      st$seen_bytes <- st$seen_bytes + length(more)
      st$seen_lines <- st$seen_lines + length(ends)
      pos <- c(pos, ends + size)
      parts[[length(parts) + 1L]] <- more
      size <- size + length(more)
    }
  }
  parts <- parts[lengths(parts) > 0L]  # (a read of a lone CR, held back, left nothing)
  if (length(pos) >= n) {
    cut <- pos[n]
    lines <- n
    st$carry_pos <- pos[-seq_len(n)] - cut
  } else {
    # the end of the file: the rest, its last line perhaps without a line end
    st$carry_pos <- integer(0)
    if (!size) {
      st$carry <- raw(0)
      return(NULL)
    }
    last <- parts[[length(parts)]]
    if (last[length(last)] != nl) {
      parts[[length(parts) + 1L]] <- nl
      size <- size + 1L
      pos <- c(pos, size)
    }
    cut <- size
    lines <- length(pos)
  }
  # the block's bytes joined once (raw_join_cpp()), and the carry: the rest
  # of the part the cut falls in and the parts after it (parts of raw
  # vectors in C++: x[i:j] builds an index of four bytes per byte)
  lens <- lengths(parts)
  k <- which(cumsum(lens) >= cut)[1L]
  off <- cut - sum(lens[seq_len(k - 1L)])
  rest <- lens[k] - off
  st$carry <- c(if (rest > 0) raw_part_cpp(parts[[k]], off, rest), unlist(parts[-seq_len(k)], use.names = FALSE)) %||%
    raw(0)
  bytes <- if (k == 1L && rest == 0) parts[[1L]] else raw_join_cpp(parts[seq_len(k)], cut)
  parts <- NULL
  # a NUL byte: not text (scan() would skip it with a warning)
  if (length(grepRaw(as.raw(0L), bytes, fixed = TRUE))) {
    stop(structure(class = c("dpcov_nul_byte", "error", "condition"), list(message = "a NUL byte", call = NULL)))
  }
  list(bytes = bytes, lines = as.integer(lines), ends = pos[seq_len(lines)])
}

# A block's bytes as text without its last line end (the header line; NULL
# for no block).
block_text <- function(blk) if (is.null(blk)) NULL else rawToChar(blk$bytes[seq_len(length(blk$bytes) - 1L)])

# The positions of the LF bytes (grepRaw() is four times as fast as which(b == LF)).
line_ends <- function(b) if (length(b)) grepRaw(as.raw(10L), b, all = TRUE, fixed = TRUE) else integer(0)

# The columns a package reader will return (its schema: the header or the
# query's result columns), known before any row is read; NULL for any other
# function. Shape checks run on it before a charge.
reader_columns <- function(x) {
  cols <- if (is.function(x)) attr(x, "columns", exact = TRUE)
  # a package reader's source, public state, is checked with its schema,
  # before a release's charge: a closed connection or a removed file failed
  # on the first read, after it (and the charge stood)
  ready <- if (inherits(x, "dp_reader")) attr(x, "ready", exact = TRUE)
  if (is.function(ready)) {
    gone <- ready()
    if (is_string(gone)) abort("`x` is a reader whose source cannot be read: %s; nothing was read.", gone, .arg = "x")
  }
  # named as check_data_matrix() names its blocks (an empty header field: V<j>)
  if (is.character(cols) && length(cols) && !anyNA(cols)) fill_empty_colnames(cols)
}

#' @export
print.dp_reader <- function(x, ...) {
  src <- attr(x, "source")
  cat(sprintf("<dp_reader> chunk reader over %s\n", if (is_string(src)) src else "a data source"))
  cat("Pass it as `x` to second_moment(), dp_cov() or any mechanism that accepts a reader.\n")
  invisible(x)
}

# ---- internals --------------------------------------------------------------

# A block with the columns and no rows: what a reader returns first when its
# source has no rows at all, so that the pass knows the (public) columns and a
# release under add/remove, where n is private, is noise as for n = 0 in memory.
empty_block <- function(nm) matrix(numeric(0), 0L, length(nm), dimnames = list(NULL, nm))

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
  if (!db_is_valid(conn)) {
    abort("`%s` is not a valid connection: it was closed or dropped; reconnect with DBI::dbConnect().", arg,
          .arg = arg)
  }
  invisible(conn)
}

# DBI::dbIsValid(), or the driver's own test where it has no method for it
# (RPostgreSQL); a driver with neither is taken as valid, and a closed
# connection then fails in the query, also as a dpcov_error.
db_is_valid <- function(conn) {
  v <- tryCatch(DBI::dbIsValid(conn), error = function(e) NA)
  if (is.na(v) && inherits(conn, "PostgreSQLConnection") && requireNamespace("RPostgreSQL", quietly = TRUE)) {
    v <- tryCatch(RPostgreSQL::isPostgresqlIdCurrent(conn), error = function(e) FALSE)
  }
  !isFALSE(v)
}

# The data as a derived table: a quoted table name, or the query in
# parentheses with an alias (no AS: Oracle refuses it for tables).
db_source <- function(conn, table, query) {
  if (!is.null(table) && !is.null(query)) abort("give `table` or `query`, not both.", .arg = "query")
  if (!is.null(table)) {
    # (DBI's Id and SQL are S4 classes: an S3 list of that class has no slots)
    if (!(is_string(table) && nzchar(table) || isS4(table) && inherits(table, c("Id", "SQL")))) {
      abort("`table` must be a table name (a string) or a DBI::Id().", .arg = "table")
    }
    return(list(sql = as.character(DBI::dbQuoteIdentifier(conn, table)), arg = "table"))
  }
  if (is.null(query)) abort("`table` is missing: give a table name, or a SELECT statement in `query`.", .arg = "table")
  if (!is_string(query) || !nzchar(trimws(query))) abort("`query` must be one string, a SELECT statement.", .arg = "query")
  # A final `;` goes, with any `--` comments after it (those without quotes, so
  # a string literal is never cut); the closing parenthesis on a line of its
  # own keeps a query ending in a -- comment whole.
  query <- sub(";[[:space:]]*(--[^\n\r'\"]*[[:space:]]*)*$", "", query)
  list(sql = sprintf("(%s\n) dpcov_src", query), arg = "query")
}

# The chosen columns, checked on the result's schema only: present, named
# once, and numeric. The types are those the driver gives a zero-row probe
# (RPostgres and RPostgreSQL type the columns by the server's types; RSQLite
# by the declared types, an expression having none), never those of a row:
# whether a column is refused must not depend on whether, or which, rows
# qualify. Returns the names and which columns are booleans.
db_columns <- function(conn, src, columns) {
  # (checked before any query is sent)
  if (!is.null(columns) && (!is.character(columns) || is.object(columns) || !length(columns) || anyNA(columns) ||
                              anyDuplicated(columns))) {
    abort("`columns` must be NULL or distinct column names.", .arg = "columns")
  }
  eng <- db_engine(conn)
  # a bad table, column or query fails here, with the server's message (no
  # value is evaluated); a result with no columns is told apart first
  res <- db_call(DBI::dbSendQuery(conn, sprintf("SELECT * FROM %s WHERE 1 = 0", src$sql)), src$arg)
  probe <- tryCatch(if (!isTRUE(db_result_width(res) == 0)) db_call(DBI::dbFetch(res, n = 0L), src$arg),
                    finally = try(DBI::dbClearResult(res), silent = TRUE))
  what <- if (src$arg == "table") "table" else "result of `query`"
  have <- names(probe)
  if (!is.data.frame(probe) || !length(have)) {
    abort("the %s has no columns: choose the numeric columns to use.", what, .arg = src$arg)
  }
  # SQLite renames a repeated name of a derived table `x:1`; a table's own
  # `x:1` is a column name like any other
  dup <- db_duplicated_names(have, eng, derived = src$arg == "query")
  if (length(dup)) {
    abort("the %s has more than one column named %s: give each column its own name (AS ...).", what,
          paste(dup, collapse = ", "), .arg = src$arg)
  }
  if (is.null(columns)) columns <- have
  columns <- unname(columns)  # (a named vector's names are not the columns')
  miss <- setdiff(columns, have)
  if (length(miss)) {
    abort("`columns` %s not found in the %s; it has: %s.", paste(miss, collapse = ", "), what,
          paste(have, collapse = ", "), .arg = "columns")
  }
  frame_block(probe[columns], columns, "zero", "columns")  # types only: no rows
  # a boolean is read as 1 or 0 (SQLite has none: there a zero-row logical
  # column is one with no declared type, cast as any other)
  logical <- vapply(probe[columns], is.logical, logical(1), USE.NAMES = FALSE) & eng$bool_case
  list(names = columns, logical = logical)
}

# The number of columns of a result set, NA if the driver does not say:
# fetching a result with none fails (RPostgreSQL) or warns (RPostgres).
db_result_width <- function(res) {
  info <- tryCatch(DBI::dbColumnInfo(res), error = function(e) NULL)
  if (is.data.frame(info)) return(nrow(info))
  fields <- tryCatch(DBI::dbGetInfo(res)$fieldDescription[[1]]$name, error = function(e) NULL)  # RPostgreSQL
  if (is.character(fields)) length(fields) else NA
}

# Names the result holds more than once. SQLite renames a derived table's
# repeated name x as "x:1", "x:2", ...; other engines keep it (PostgreSQL
# then calls a reference to it ambiguous).
db_duplicated_names <- function(have, eng, derived = TRUE) {
  dup <- unique(have[duplicated(have)])
  if (eng$value_types && derived) {
    # (SQLite's names are case-insensitive: `X` and `x` are one name, the
    # second renamed `x:1`)
    stem <- sub(":[0-9]+$", "", have)
    dup <- union(dup, unique(stem[stem != have & tolower(stem) %in% tolower(have)]))
  }
  dup
}

# A block from a database or a file as a numeric matrix: numeric, integer,
# logical or 64-bit integer columns; NA by the `na` rule.
frame_block <- function(block, columns, na, arg) {
  if (is.data.frame(block)) {
    ok <- vapply(block, function(v) (is.numeric(v) || is.logical(v)) && (!is.object(v) || inherits(v, "integer64")),
                 logical(1))
    if (!all(ok)) {
      chr <- vapply(block, is.character, logical(1))
      if (any(chr)) abort_text_columns(columns[chr], arg, values = nrow(block) > 0L)
      abort("`%s`: %s %s not numeric (%s): every chosen column must hold numbers.", arg,
            col_list(columns[!ok]), col_words(columns[!ok])$is,
            paste(vapply(block[!ok], function(v) class(v)[1], ""), collapse = ", "), .arg = arg)
    }
    block <- matrix(unlist(lapply(block, as.double), use.names = FALSE), nrow(block), length(columns),
                    dimnames = list(NULL, columns))
  }
  if (anyNA(block)) {
    # NaN is not a missing value: refused as second_moment() refuses it in
    # memory (and as Inf is), whatever `na` says
    nan <- colSums(is.nan(block)) > 0
    if (any(nan)) {
      abort(paste0("`%s`: %s contain%s NaN values, refused as second_moment() refuses them in memory (`na` applies ",
                   "to missing values only: a NULL or a field in `na_strings`); remove them at the source."),
            arg, col_list(columns[nan]), col_words(columns[nan])$verb_s, .arg = arg)
    }
    if (na == "zero") {
      block[is.na(block)] <- 0
    } else {
      bad <- colSums(is.na(block)) > 0
      abort(paste0("`%s`: %s contain%s missing values (NULL or NA); use na = \"zero\" to read them as 0, ",
                   "or drop those rows at the source (n is then a count of the data: release it under ",
                   "add/remove neighbours, where n stays private)."),
            arg, col_list(columns[bad]), col_words(columns[bad])$verb_s, .arg = "na")
    }
  }
  block
}

# SQLite types values, not columns: 1 for a text or blob value of column
# `id` (quoted), else 0, so that a query can count or flag them.
sql_text_flag <- function(id) sprintf("CASE WHEN typeof(%s) IN ('text', 'blob') THEN 1 ELSE 0 END", id)

# The one refusal of text or blob values, naming their columns (never rows),
# from the in-database count, the reader's flags or a fetched block's types.
abort_text_columns <- function(cols, arg = "columns", values = TRUE) {
  # `values`: found in the rows (where the engine types values, or a block's
  # type), a refusal of the data; otherwise of the schema (a result with no rows)
  abort("`%s`: %s hold%s text or blob values: every chosen column must hold numbers.", arg,
        col_list(cols), col_words(cols)$verb_s, .arg = arg, .class = if (values) "dpcov_data_error")
}

# A DBI call whose failure (a bad table, column or query, a dropped
# connection) becomes a dpcov_error naming the source argument. For a query
# that evaluates the rows' values (`values`), the server's message is
# withheld: it may quote one (PostgreSQL's "value out of range" does, to the
# last digit). Schema and syntax errors come from a zero-row probe first
# (db_columns()), with the server's message.
db_call <- function(expr, arg, values = FALSE) {
  # one handler: with a second, the dpcov_error handler's stop(e) was caught
  # by the error handler and re-worded, losing its class
  tryCatch(expr, error = function(e) {
    if (inherits(e, "dpcov_error")) stop(e)
    if (values) {
      abort(paste0("the database failed while evaluating the rows of `%s` (a value it cannot compute or convert ",
                   "to a double, or a dropped connection); its message is withheld, as it may quote a value ",
                   "of the data."), arg, .arg = arg)
    }
    abort("the database refused the query on `%s`: %s", arg, conditionMessage(e), .arg = arg)
  })
}

# The one row of an aggregate query, as doubles (a 64-bit integer count
# converted by its own method, not by unlist()).
db_query_row <- function(conn, sql, arg, values = FALSE) {
  row <- db_get(conn, sql, arg, values)
  if (!is.data.frame(row) || nrow(row) != 1L) abort("the database gave no answer to the query on `%s`.", arg, .arg = arg)
  vapply(row, function(v) as.double(v)[1], numeric(1), USE.NAMES = FALSE)
}

# A query's whole result through a result set: RPostgreSQL's dbGetQuery()
# turns an SQL error into a warning and a NULL result, dbSendQuery() raises it.
db_get <- function(conn, sql, arg, values = FALSE) {
  res <- db_call(DBI::dbSendQuery(conn, sql), arg, values)
  on.exit(try(DBI::dbClearResult(res), silent = TRUE))
  db_call(DBI::dbFetch(res, n = -1), arg, values)
}

# Where SQL differs between engines, and nothing else: one entry per engine,
# chosen by the connection's class (db_engine()); any other engine gets
# `other`, standard SQL.
#  fence:       a clause that keeps a per-row subquery from being merged into
#               the query above it. SQLite and PostgreSQL would otherwise
#               substitute each layer's expressions into the next, recomputing
#               a row's norm inside every one of the p(p + 1)/2 sums (measured
#               on SQLite: 79 s instead of 0.9 s for 2e4 x 50). DuckDB and
#               Spark eliminate common subexpressions themselves.
#  greatest:    the n-ary maximum of scalars (SQLite's MAX with two or more
#               arguments is scalar; with one it is the aggregate).
#  value_types: the engine types values, not columns, so a text or blob value
#               can sit in a numeric column; CAST would read it as 0, so
#               typeof() counts them.
#  math_ext:    SQRT may be missing and RSQLite can load it.
#  bool_case:   booleans have no cast to a double (PostgreSQL): read by CASE.
#  underflow:   an arbitrary-precision NUMERIC whose cast to a double raises
#               an error when it rounds to 0 (PostgreSQL: 1e-400), where R
#               and the readers read 0: such values are mapped to 0 first.
db_engines <- list(
  sqlite = list(classes = "SQLiteConnection", fence = " LIMIT -1", greatest = "MAX",
                value_types = TRUE, math_ext = TRUE, bool_case = FALSE, underflow = FALSE),
  postgres = list(classes = c("PqConnection", "PostgreSQLConnection"), fence = " OFFSET 0",
                  greatest = "GREATEST", value_types = FALSE, math_ext = FALSE, bool_case = TRUE, underflow = TRUE),
  other = list(classes = character(0), fence = "", greatest = "GREATEST", value_types = FALSE,
               math_ext = FALSE, bool_case = FALSE, underflow = FALSE))

# The chosen columns `id` (quoted) as the engine's doubles, the one cast of
# both second_moment_db() and db_reader() (which then agree bitwise): a
# boolean as 1 or 0 (NULL kept); on an engine whose NUMERIC cast fails on
# underflow, a value of magnitude below 2^-1075 (it rounds to 0) as 0 first.
# The bound is written just above 2^-1075: against a double column it reads
# as the smallest subnormal (only 0 is below it), against a NUMERIC it is
# compared exactly, and the values above it cast to a nonzero double. No
# ABS(): ABS of the most negative integer overflows.
sql_as_double <- function(id, logical, double_type, eng) {
  x <- id
  if (eng$underflow) {
    lim <- "2.4703282292062328e-324"
    x <- sprintf("CASE WHEN %s < %s AND %s > -%s THEN 0 ELSE %s END", id, lim, id, lim, id)
  }
  if (eng$bool_case) x[logical] <- sprintf("CASE WHEN %s THEN 1 WHEN NOT %s THEN 0 END", id[logical], id[logical])
  sprintf("CAST(%s AS %s)", x, double_type)
}

db_engine <- function(conn) {
  for (e in db_engines) if (inherits(conn, e$classes)) return(e)
  db_engines$other
}

# The 8-byte floating-point types by their SQL names: the standard's, and the
# spellings of Spark SQL / Hive / MySQL, PostgreSQL and BigQuery. Anything else
# (REAL is 4 bytes on PostgreSQL; SQLite would cast to BLOB or TEXT and then
# compare a number below any of them) is refused.
db_double_types <- c("DOUBLE PRECISION", "DOUBLE", "FLOAT8", "FLOAT64")

check_double_type <- function(double_type, arg = "double_type") {
  allowed <- paste0("\"", db_double_types, "\"", collapse = ", ")
  if (!is_string(double_type) || is.object(double_type)) {
    abort("`%s` must be one SQL type name, one of %s.", arg, allowed, .arg = arg)
  }
  v <- toupper(gsub("[[:space:]]+", " ", trimws(double_type)))
  if (!v %in% db_double_types) {
    abort("`%s` must name an 8-byte floating-point SQL type, one of %s.", arg, allowed, .arg = arg)
  }
  v
}

# The statistics of the columns `id` (quoted identifiers) of the derived table
# src$sql, computed by the engine: one aggregate query, in batches of at most
# `max_terms` aggregates. Returns n, n_clipped, n_bad (rows with an infinite
# or NaN value), nonnull (per column, na = "error"), texts (per column, engines
# that type values), sum and gram.
#
# Each row is clipped as the C++ kernel clips it, without ever squaring an
# entry that could overflow or underflow (PostgreSQL raises an error on both,
# which would make a refusal depend on the data): with m the row's largest
# absolute value and r = x / m (|r| <= 1, one entry of r is +-1),
# t = ||r||^2 is in [1, p] and ||x|| = m sqrt(t); the row is clipped when
# m > B / sqrt(t) and becomes (B / sqrt(t)) r, of norm B. Entries of r below
# 1e-150 are read as 0 (their squares are below a double's precision
# against t >= 1), and so are entries below 1e-150 of a clipped row in the
# Gram's products (B <= 1e50, so a product read as 0 is below 1e-100, and a
# product kept is above 1e-300); the column sums are of the rows themselves.
db_moments <- function(conn, src, id, clip, na, max_terms, double_type, eng, values = TRUE,
                       logical = rep(FALSE, length(id))) {
  p <- length(id)
  lit <- function(v) sql_double(v, double_type)
  zero <- lit(0)
  tiny <- lit(1e-150)
  huge <- lit(1e150)
  z <- paste0("dpcov_z", seq_len(p))
  r <- paste0("dpcov_r", seq_len(p))
  u <- paste0("dpcov_u", seq_len(p))
  g <- paste0("dpcov_g", seq_len(p))
  tf <- if (eng$value_types) paste0("dpcov_t", seq_len(p))
  layer <- function(cols, from, alias, fence = eng$fence) {
    sprintf("(SELECT %s FROM %s%s) %s", paste(cols, collapse = ", "), from, fence, alias)
  }
  # 1: the columns as doubles (NULL read as 0 with na = "zero"); where values
  # are typed, a flag per column for a text or blob value
  cast <- sql_as_double(id, logical, double_type, eng)
  if (na == "zero") cast <- sprintf("COALESCE(%s, %s)", cast, zero)
  from <- layer(c(sprintf("%s AS %s", cast, z),
                  if (length(tf)) sprintf("%s AS %s", sql_text_flag(id), tf)),
                src$sql, "dpcov_l1", fence = "")
  # 2: m, the row's largest absolute value
  from <- layer(c(z, tf, sprintf("%s AS dpcov_m", sql_greatest(sprintf("ABS(%s)", z), eng$greatest))),
                from, "dpcov_l2")
  # a row with an infinite or NaN entry (NaN <> NaN on IEEE engines; NaN
  # sorts above every number on PostgreSQL): counted, refused in R
  bad <- sprintf("(dpcov_m > %s OR dpcov_m <> dpcov_m)", lit(.Machine$double.xmax))
  if (is.finite(clip)) {
    B <- lit(inner_clip(clip, p))  # (as the C++ kernel: exact norms <= clip)
    # 3: r = x / m, entries below 1e-150 read as 0; the branches on m keep
    # every intermediate product between 1e-300 and 1e300
    # (a NULL stays NULL, so COUNT() of the clipped entry finds it: PostgreSQL's
    # GREATEST skips NULLs, and a row whose other entries are 0 has m = 0)
    rj <- sprintf(paste0("CASE WHEN %s IS NULL THEN NULL WHEN dpcov_m = 0 OR %s THEN %s ",
                         "WHEN dpcov_m >= 1 THEN CASE WHEN ABS(%s) < dpcov_m * %s THEN %s ELSE %s / dpcov_m END ",
                         "WHEN ABS(%s) * %s < dpcov_m THEN %s ELSE %s / dpcov_m END AS %s"),
                  z, bad, zero, z, tiny, zero, z, z, huge, zero, z, r)
    from <- layer(c(z, tf, "dpcov_m", rj), from, "dpcov_l3")
    # 4: k = B / sqrt(t) for a clipped row, 0 for a zero (or refused) row, -1
    # for a row kept as it is
    t <- balanced_sum(sprintf("%s * %s", r, r))
    k <- sprintf("CASE WHEN %s = 0 THEN %s WHEN dpcov_m > %s / SQRT(%s) THEN %s / SQRT(%s) ELSE %s END AS dpcov_k",
                 t, zero, B, t, B, t, lit(-1))
    # counted as clipped: the rows beyond the bound itself (the margin's rows
    # are scaled, not counted), as the C++ kernel counts them
    over <- sprintf("CASE WHEN %s > 0 AND dpcov_m > %s / SQRT(%s) THEN 1 ELSE 0 END AS dpcov_c", t, lit(clip), t)
    from <- layer(c(z, tf, "dpcov_m", r, k, over), from, "dpcov_l4")
    uj <- sprintf("CASE WHEN dpcov_k < 0 THEN %s ELSE dpcov_k * %s END", z, r)
    clipped <- "SUM(dpcov_c)"
  } else {
    uj <- sprintf("CASE WHEN %s THEN %s ELSE %s END", bad, zero, z)
    clipped <- "SUM(0)"
  }
  # 5: the clipped row u (for the sums) and g, u with entries below 1e-150
  # read as 0 (for the Gram's products)
  from <- layer(c(tf, "dpcov_m", if (is.finite(clip)) c("dpcov_k", "dpcov_c"), sprintf("%s AS %s", uj, u),
                  sprintf("CASE WHEN ABS(%s) < %s THEN %s ELSE %s END AS %s", uj, tiny, zero, uj, g)),
                from, "dpcov_l5")
  ij <- which(upper.tri(diag(p), diag = TRUE), arr.ind = TRUE)
  head <- c("COUNT(*)", clipped, sprintf("SUM(CASE WHEN %s THEN 1 ELSE 0 END)", bad),
            if (na == "error") sprintf("COUNT(%s)", u),
            if (length(tf)) sprintf("SUM(%s)", tf))
  terms <- c(head, sprintf("SUM(%s)", u), sprintf("SUM(%s * %s)", g[ij[, 1]], g[ij[, 2]]))
  # every statement counts its rows (COUNT(*) first): the scans of a wide p,
  # each its own statement, must have seen as many rows, or the count and
  # the sums would be of different rows (a table written meanwhile, a query
  # that is not deterministic)
  body <- terms[-1L]
  batches <- split(body, ceiling(seq_along(body) / (max_terms - 1L)))
  counts <- numeric(length(batches))
  vals <- unlist(lapply(seq_along(batches), function(b) {
    v <- db_query_row(conn, sprintf("SELECT %s FROM %s", paste(c("COUNT(*)", batches[[b]]), collapse = ", "), from),
                      src$arg, values = values)
    counts[b] <<- v[1L]
    v[-1L]
  }), use.names = FALSE)
  if (length(unique(counts)) > 1L) {
    abort(paste0("the %s gave different numbers of rows to the statements of one pass (%d of them, for p = %d ",
                 "columns): the table changed meanwhile, or `query` is not deterministic; run it on a snapshot ",
                 "or a deterministic query."),
          if (src$arg == "table") "table" else "result of `query`", length(batches), p, .arg = src$arg,
          .class = "dpcov_data_error")
  }
  vals <- c(counts[1L], vals)
  at <- 0
  take <- function(k) {
    v <- vals[at + seq_len(k)]
    at <<- at + k
    v
  }
  out <- list(n = take(1), n_clipped = take(1), n_bad = take(1),
              nonnull = if (na == "error") take(p), texts = if (length(tf)) take(p), sum = take(p))
  gram <- matrix(0, p, p)
  gram[ij] <- take(nrow(ij))
  gram[ij[, 2:1, drop = FALSE]] <- gram[ij]
  out$gram <- gram
  out
}

# Known rows through the same query: two kept, two clipped (one of norm
# 1e200, whose squares overflow), one of norm 1e-200 (whose squares
# underflow), one zero; the answer must be what second_moment() gives in R.
# No data is read: the rows are literals.
db_check_engine <- function(conn, clip, na, max_terms, double_type, eng) {
  s <- if (is.finite(clip)) clip else 1
  P <- rbind(c(0.6, 0.8) * 2 * s, c(0.3, 0.4) * s, c(-0.6, 0.8) * 0.5 * s, c(0.6, 0.8) * 1e-200, c(0, 0),
             if (is.finite(clip)) c(0.6, -0.8) * 1e200)
  rows <- apply(P, 1, function(v) sprintf("SELECT %s AS dpcov_a, %s AS dpcov_b", sprintf("%.17g", v[1]),
                                         sprintf("%.17g", v[2])))
  src <- list(sql = sprintf("(%s) dpcov_known", paste(rows, collapse = " UNION ALL ")), arg = "double_type")
  got <- tryCatch(db_moments(conn, src, c("dpcov_a", "dpcov_b"), clip, na, max_terms, double_type, eng),
                  dpcov_error = function(e) {
                    abort("the database refused the check on known rows with `double_type` = \"%s\": %s",
                          double_type, conditionMessage(e), .arg = "double_type")
                  })
  want <- second_moment(P, clip)
  # against the statistics' scale (the rows' norms are at most 2 s): entries
  # that cancel to 0 (the off-diagonal here) keep rounding residue of that
  # scale, which a relative comparison of the entries called wrong (clip 1e9,
  # 1e10, 1e50 and about one clip in seven were refused)
  close <- function(a, b, scale) length(a) == length(b) && all(is.finite(a)) && max(abs(a - b)) <= 1e-9 * scale
  ok <- isTRUE(got$n == nrow(P)) && isTRUE(got$n_clipped == want$n_clipped) && isTRUE(got$n_bad == 0) &&
    close(got$sum, unname(want$sum), nrow(P) * 2 * s) &&
    close(as.vector(got$gram), as.vector(unname(want$gram)), nrow(P) * 4 * s^2)
  if (!ok) {
    abort(paste0("the database's answer on known rows is wrong with `double_type` = \"%s\" (clipping or arithmetic ",
                 "does not behave as on doubles): its statistics cannot be trusted; use the engine's ",
                 "8-byte floating-point type, or stream the rows with db_reader()."),
          double_type, .arg = "double_type")
  }
  invisible(TRUE)
}

# SQRT is SQL:2003 but optional in SQLite; RSQLite can load it.
db_need_sqrt <- function(conn, src, double_type, eng) {
  probe <- sprintf("SELECT SQRT(2.0) FROM %s WHERE 1 = 0", src$sql)
  works <- function() !inherits(tryCatch(db_get(conn, probe, "conn"), error = identity), "error")
  if (works()) return(invisible(TRUE))
  if (eng$math_ext && requireNamespace("RSQLite", quietly = TRUE)) {
    try(RSQLite::initExtension(conn, "math"), silent = TRUE)
    if (works()) return(invisible(TRUE))
  }
  abort(paste0("the database has no SQRT function, which clipping needs (the row norms); ",
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

# The largest of the expressions x by the engine's n-ary maximum `f`, at most
# 100 arguments a call (PostgreSQL's limit on function arguments; SQLite's
# default is 127), nested when there are more.
sql_greatest <- function(x, f) {
  if (length(x) == 1L) return(x)
  if (length(x) <= 100L) return(sprintf("%s(%s)", f, paste(x, collapse = ", ")))
  k <- ceiling(length(x) / 100)
  sql_greatest(vapply(split(x, rep(seq_len(k), length.out = length(x))), sql_greatest, "", f = f), f)
}
