# Releases from data that is not in R: a CSV file and an SQLite table.
# Run from the package root with dpcov, DBI, RSQLite and callr installed:
#   Rscript bench/database.R
# (DPCOV_BENCH_NS="1e6,4e6" sets the row counts of the memory table;
# DPCOV_BENCH_AGG=0 skips part 2.)
#
# 1. Peak memory (VmHWM of a child process) of a release streamed from a CSV
#    file (csv_reader) and from SQLite (db_reader) at p = 50: flat in n.
# 2. In-database aggregation (second_moment_db) against reading the table
#    into R and calling second_moment(), interleaved repetitions.
suppressPackageStartupMessages({library(dpcov); library(DBI)})
ns <- as.numeric(strsplit(Sys.getenv("DPCOV_BENCH_NS", "1e6,4e6"), ",")[[1]])
p <- 50
chunk <- 1e5
dir <- tempfile("dpcov-bench-db-")
dir.create(dir)
t_start <- proc.time()[["elapsed"]]

# data written in chunks (never all in memory): rows of norm about sqrt(p)
write_data <- function(n, p, csv, db, table) {
  con <- dbConnect(RSQLite::SQLite(), db)
  on.exit(dbDisconnect(con))
  set.seed(n)
  for (k in seq_len(ceiling(n / chunk))) {
    m <- matrix(round(rnorm(chunk * p), 5), chunk, p, dimnames = list(NULL, paste0("x", seq_len(p))))
    utils::write.table(m, csv, sep = ",", row.names = FALSE, col.names = k == 1, append = k > 1)
    dbWriteTable(con, table, as.data.frame(m), append = k > 1)
  }
}

# A release in a fresh child process; its VmHWM before and after.
peak_release <- function(source, path, table) {
  callr::r(function(source, path, table) {
    suppressPackageStartupMessages({library(dpcov); library(DBI)})
    hwm <- function() as.numeric(sub("[^0-9]*([0-9]+).*", "\\1",
                                     grep("^VmHWM", readLines("/proc/self/status"), value = TRUE))) / 1024
    con <- if (source == "sqlite") dbConnect(RSQLite::SQLite(), path)
    reader <- if (source == "sqlite") db_reader(con, table, chunk_rows = 1e4) else csv_reader(path, chunk_rows = 1e4)
    before <- hwm()
    t <- system.time(r <- analyze_gauss(reader, epsilon = 1, delta = 1e-6, clip = 10))[["elapsed"]]
    c(before_MB = before, peak_MB = hwm(), seconds = t, n_ok = 1)
  }, list(source, path, table), libpath = .libPaths())
}

cat("## Peak memory of a streamed release (analyze_gauss from a reader, p = 50, chunks of 1e4 rows)\n\n")
mem <- do.call(rbind, lapply(ns, function(n) {
  csv <- file.path(dir, sprintf("d%g.csv", n))
  db <- file.path(dir, sprintf("d%g.sqlite", n))
  t0 <- proc.time()[["elapsed"]]
  write_data(n, p, csv, db, "t")
  t_write <- proc.time()[["elapsed"]] - t0
  rows <- lapply(c("csv", "sqlite"), function(s) {
    v <- peak_release(s, if (s == "csv") csv else db, "t")
    data.frame(source = s, n = n, file_MB = round(file.size(if (s == "csv") csv else db) / 2^20),
               before_MB = round(v[["before_MB"]]), peak_MB = round(v[["peak_MB"]]),
               release_s = round(v[["seconds"]], 1), write_s = round(t_write))
  })
  unlink(csv)
  if (n != max(ns)) unlink(db)
  do.call(rbind, rows)
}))
print(mem, row.names = FALSE)
for (s in c("csv", "sqlite")) {
  m <- mem[mem$source == s, ]
  cat(sprintf("%s: peak at n = %g / peak at n = %g = %.3f\n", s, max(m$n), min(m$n),
              m$peak_MB[m$n == max(m$n)] / m$peak_MB[m$n == min(m$n)]))
}

cat("\n## In-database aggregation against reading the table into R + second_moment()\n\n")
time_once <- function(f) system.time(f())[["elapsed"]]
agg_shapes <- data.frame(n = c(1e6, 2e5), p = c(10, 50))
if (Sys.getenv("DPCOV_BENCH_AGG") == "0") agg_shapes <- agg_shapes[0, ]
agg <- do.call(rbind, lapply(seq_len(nrow(agg_shapes)), function(i) {
  n <- agg_shapes$n[i]; q <- agg_shapes$p[i]
  db <- file.path(dir, sprintf("agg%g_%g.sqlite", n, q))
  con <- dbConnect(RSQLite::SQLite(), db)
  set.seed(i)
  X <- matrix(rnorm(n * q), n, q, dimnames = list(NULL, paste0("x", seq_len(q))))
  dbWriteTable(con, "t", as.data.frame(X))
  rm(X)
  in_db <- function() second_moment_db(con, "t", clip = sqrt(q))
  in_r <- function() second_moment(dbReadTable(con, "t"), clip = sqrt(q))
  stopifnot(max(abs(in_db()$gram - in_r()$gram)) < 1e-10 * max(abs(in_r()$gram)))
  t_db <- t_r <- numeric(0)
  for (rep in 1:3) {  # interleaved
    t_db <- c(t_db, time_once(in_db))
    t_r <- c(t_r, time_once(in_r))
  }
  dbDisconnect(con)
  unlink(db)
  data.frame(n = n, p = q, aggregates = q * (q + 1) / 2 + 2 * q + 4, in_database_s = round(min(t_db), 2),
             read_plus_second_moment_s = round(min(t_r), 2), ratio = round(min(t_db) / min(t_r), 2))
}))
print(agg, row.names = FALSE)
unlink(dir, recursive = TRUE)
cat(sprintf("\nTotal run time: %.0f s\n", proc.time()[["elapsed"]] - t_start))
cat("Machine:", R.version.string, "| RSQLite", as.character(utils::packageVersion("RSQLite")),
    "| SQLite", RSQLite::rsqliteVersion()[2], "|", parallel::detectCores(), "cores\n")
