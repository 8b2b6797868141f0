# second_moment_db() on PostgreSQL against fetching the rows into R: time and
# peak memory, n = 10^6 rows, p = 10 and 50.
# Run from the package root with dpcov, DBI, RPostgreSQL and callr installed
# and PostgreSQL's initdb / pg_ctl on the machine (Debian: postgresql):
#   Rscript bench/postgres.R
# (DPCOV_BENCH_N sets n, DPCOV_BENCH_P the p's, DPCOV_BENCH_REPS the
# repetitions.) A throwaway server is started as in the tests
# (tests/testthat/helper-postgres.R) and stopped at the end.
#
# Three ways to the same statistics, each in a fresh child process (callr),
# interleaved, median time; VmHWM of the child (the R side only: the server's
# own memory is not counted):
#   in database  second_moment_db(con, "t", clip = B): one aggregate query
#   fetch        dbGetQuery("SELECT * FROM t") into a data frame, as.matrix(),
#                second_moment()
#   db_reader    second_moment(db_reader(con, "t", chunk_rows = 1e4))
suppressPackageStartupMessages({library(dpcov); library(DBI)})
n <- as.numeric(Sys.getenv("DPCOV_BENCH_N", "1e6"))
ps <- as.numeric(strsplit(Sys.getenv("DPCOV_BENCH_P", "10,50"), ",")[[1]])
# repetitions per p (p = 50 in the database takes minutes)
reps <- rep_len(as.integer(strsplit(Sys.getenv("DPCOV_BENCH_REPS", "3,1"), ",")[[1]]), length(ps))
clip <- 5
sys.source("tests/testthat/helper-postgres.R", envir = environment())
srv <- pg_server_start()
con <- dbConnect(RPostgreSQL::PostgreSQL(), host = srv$host, port = srv$port, user = srv$user, dbname = srv$dbname)
cat(sprintf("%s\n", dbGetQuery(con, "SELECT version() AS v")$v))

one <- function(how, p, srv, clip) {
  callr::r(function(how, p, srv, clip) {
    suppressPackageStartupMessages({library(dpcov); library(DBI)})
    hwm <- function() as.numeric(sub("[^0-9]*([0-9]+).*", "\\1",
                                     grep("^VmHWM", readLines("/proc/self/status"), value = TRUE))) / 1024
    con <- dbConnect(RPostgreSQL::PostgreSQL(), host = srv$host, port = srv$port, user = srv$user,
                     dbname = srv$dbname)
    table <- sprintf("t%d", p)
    before <- hwm()
    t <- system.time(s <- switch(how,
      "in database" = second_moment_db(con, table, clip = clip),
      "fetch" = second_moment(as.matrix(dbGetQuery(con, sprintf("SELECT * FROM %s", table))), clip),
      "db_reader" = second_moment(db_reader(con, table, chunk_rows = 1e4), clip)))[["elapsed"]]
    dbDisconnect(con)
    list(seconds = t, before = before, peak = hwm(), gram = s$gram, n = s$n)
  }, list(how, p, srv[c("host", "port", "user", "dbname")], clip), libpath = .libPaths())
}

hows <- c("in database", "fetch", "db_reader")
# DPCOV_BENCH_HOW50 = "in database" runs only that path at p = 50 (the others
# take minutes of fetching)
hows50 <- strsplit(Sys.getenv("DPCOV_BENCH_HOW50", paste(hows, collapse = ",")), ",")[[1]]
rows <- list()
run_all <- function() for (p in ps) {
  # rows made by the server: row norms about sqrt(p), one row in 10 ten times
  # larger (clipped at B = 5 with most of the others)
  cols <- sprintf("(CASE WHEN i %% 10 = 0 THEN 10 ELSE 1 END) * sin(i * %.4f + %d) AS x%d",
                  0.1 + seq_len(p) / 7, seq_len(p), seq_len(p))
  t_load <- system.time({
    dbExecute(con, sprintf("DROP TABLE IF EXISTS t%d", p))
    dbExecute(con, sprintf("CREATE TABLE t%d AS SELECT %s FROM generate_series(1, %d) AS s(i)", p,
                           paste(cols, collapse = ", "), as.integer(n)))
    dbExecute(con, sprintf("VACUUM ANALYZE t%d", p))
  })[["elapsed"]]
  mb <- dbGetQuery(con, sprintf("SELECT pg_total_relation_size('t%d') AS b", p))$b / 2^20
  hw <- if (p == 50) hows50 else hows
  res <- setNames(vector("list", length(hw)), hw)
  for (r in seq_len(reps[match(p, ps)])) for (h in hw) res[[h]][[r]] <- one(h, p, srv, clip)
  ref <- if ("fetch" %in% hw) res[["fetch"]][[1]]$gram else res[[1]][[1]]$gram
  for (h in hw) {
    v <- res[[h]]
    rows[[length(rows) + 1]] <<- data.frame(
      p = p, n = n, table_MB = round(mb), load_s = round(t_load, 1), how = h,
      seconds = round(stats::median(vapply(v, `[[`, 0, "seconds")), 2),
      before_MB = round(stats::median(vapply(v, `[[`, 0, "before"))),
      peak_MB = round(max(vapply(v, `[[`, 0, "peak"))),
      rel_err = signif(max(abs(v[[1]]$gram - ref)) / max(abs(ref)), 2))
  }
  dbExecute(con, sprintf("DROP TABLE t%d", p))
}
tryCatch(run_all(), finally = {
  dbDisconnect(con)
  srv$stop()
})
out <- do.call(rbind, rows)
db_s <- out$seconds[out$how == "in database"]
out$ratio_to_db <- round(out$seconds / db_s[match(out$p, out$p[out$how == "in database"])], 2)
print(out, row.names = FALSE)
