# A throwaway PostgreSQL server for the extended tier's database tests (and
# bench/postgres.R, which sources this file): initdb in a fresh directory, a
# server listening only on a unix socket in that directory
# (listen_addresses = ''), stopped and removed when the tests end. Nothing
# here runs at load time: the first test that asks for the server starts it.
#
# initdb refuses to run as root, and the tests run as root here and in CI: as
# root the server runs as the `postgres` user that Debian's package creates
# (or `nobody`), through runuser, in a directory under /tmp that this user
# owns (R's own tempdir() is private to root).

pg_state <- new.env(parent = emptyenv())

# The directory of initdb and pg_ctl: pg_config's, Debian's versioned ones
# (newest first), or the PATH's.
pg_bindir <- function() {
  cands <- character(0)
  pgc <- Sys.which("pg_config")
  if (nzchar(pgc)) {
    cands <- suppressWarnings(tryCatch(system2(pgc, "--bindir", stdout = TRUE, stderr = FALSE),
                                       error = function(e) character(0)))
  }
  deb <- Sys.glob("/usr/lib/postgresql/*/bin")
  ver <- suppressWarnings(as.numeric(basename(dirname(deb))))
  cands <- c(cands, deb[order(-ver)])
  init <- Sys.which("initdb")
  if (nzchar(init)) cands <- c(cands, dirname(init))
  for (d in cands) if (file.exists(file.path(d, "initdb")) && file.exists(file.path(d, "pg_ctl"))) return(d)
  NULL
}

# Starts the server; returns list(host, port, user, dbname, stop) or stops
# with the reason it cannot.
pg_server_start <- function() {
  bin <- pg_bindir()
  if (is.null(bin)) stop("initdb and pg_ctl were not found (Debian: apt-get install postgresql)")
  root <- identical(unname(Sys.info()[["effective_user"]]), "root")
  as_user <- NULL
  if (root) {
    if (!nzchar(Sys.which("runuser"))) stop("running as root, and no runuser to start the server as another user")
    users <- c("postgres", "nobody")
    have <- vapply(users, function(u) suppressWarnings(system2("id", c("-u", u), stdout = FALSE, stderr = FALSE)) == 0,
                   logical(1))
    if (!any(have)) stop("running as root, and neither a `postgres` nor a `nobody` user to run the server")
    as_user <- users[have][1]
  }
  dir <- tempfile("dpcov-pg-", tmpdir = if (root) "/tmp" else tempdir())
  if (!dir.create(dir, mode = "0700")) stop("could not create ", dir)
  if (root && system2("chown", c(as_user, shQuote(dir))) != 0) stop("could not give ", dir, " to ", as_user)
  data <- file.path(dir, "data")
  log <- file.path(dir, "server.log")
  out <- file.path(dir, "commands.log")
  run <- function(tool, args) {
    cmd <- shQuote(file.path(bin, tool))
    if (is.null(as_user)) {
      system2(cmd, args, stdout = out, stderr = out)
    } else {
      system2("runuser", c("-u", as_user, "--", cmd, args), stdout = out, stderr = out)
    }
  }
  stop_server <- function() {
    if (file.exists(file.path(data, "postmaster.pid"))) run("pg_ctl", c("-D", shQuote(data), "-m", "immediate", "-w", "stop"))
    unlink(dir, recursive = TRUE, force = TRUE)
    invisible(NULL)
  }
  fail <- function(what) {
    msg <- paste(c(what, utils::tail(c(if (file.exists(out)) readLines(out, warn = FALSE),
                                      if (file.exists(log)) readLines(log, warn = FALSE)), 5)), collapse = " | ")
    stop_server()
    stop(msg)
  }
  if (run("initdb", c("-D", shQuote(data), "-A", "trust", "-U", "dpcov", "-N", "-E", "UTF8", "--locale=C")) != 0) {
    fail("initdb failed")
  }
  # a port of its own (the socket's name); the pid, not the RNG, picks it
  port <- 40000L + Sys.getpid() %% 20000L
  opts <- paste0("-c listen_addresses='' -k ", dir, " -p ", port,
                 " -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=20")
  if (run("pg_ctl", c("-D", shQuote(data), "-l", shQuote(log), "-w", "-t", "60", "-o", shQuote(opts), "start")) != 0) {
    fail("pg_ctl start failed")
  }
  list(host = dir, port = port, user = "dpcov", dbname = "postgres", stop = stop_server)
}

# The server for this test run, started once: the server's details, or a
# string saying why there is none. Stopped when the tests end.
pg_server <- function() {
  if (is.null(pg_state$server)) {
    pg_state$server <- tryCatch(pg_server_start(), error = function(e) conditionMessage(e))
    if (is.list(pg_state$server)) {
      stop_once <- function(...) {
        if (is.list(pg_state$server)) pg_state$server$stop()
        pg_state$server <- "stopped"
      }
      if (requireNamespace("testthat", quietly = TRUE)) {
        try(testthat::defer(stop_once(), envir = testthat::teardown_env()), silent = TRUE)
      }
      reg.finalizer(pg_state, stop_once, onexit = TRUE)  # when the tests end in any other way
    }
  }
  pg_state$server
}

pg_connect <- function(server = pg_server(), driver = "RPostgreSQL") {
  DBI::dbConnect(RPostgreSQL::PostgreSQL(), host = server$host, port = server$port, user = server$user,
                 dbname = server$dbname)
}

# The drivers the tests run with: RPostgreSQL, which tools/install-deps.sh
# installs (RPostgres, which types columns differently, was checked by hand:
# it is not a declared dependency).
pg_drivers <- function() "RPostgreSQL"

# In the extended tier only; skips saying why where the driver or the server
# is missing.
skip_if_no_postgres <- function() {
  skip_if_not_extended()
  testthat::skip_if_not_installed("DBI")
  if (!requireNamespace("RPostgreSQL", quietly = TRUE)) {
    testthat::skip("PostgreSQL tests: the R package RPostgreSQL is not installed (tools/install-deps.sh installs it)")
  }
  s <- pg_server()
  if (!is.list(s)) testthat::skip(paste("PostgreSQL tests: no local server could be started:", s))
  invisible(s)
}
