# Speed of two post-processing paths rewritten in the twenty-third session:
# dp_pca()'s component checks (the turn variance of every eigenvector pair)
# and ldp_aggregate()'s search for repeated reports. Times the installed
# dpcov; give a library path as the first argument to time another build
# (e.g. the one before the rewrite) in the same way:
#   Rscript bench/pca-ldp-speed.R [lib]
args <- commandArgs(TRUE)
lib <- if (length(args)) args[1] else NULL
suppressMessages(library(dpcov, lib.loc = lib))
cat("dpcov", format(packageVersion("dpcov", lib.loc = lib)), "from", if (is.null(lib)) "the default library" else lib, "\n")
# the best of k runs of the function f (warnings of noisy releases muffled:
# only the time is read)
best_of <- function(k, f) {
  min(vapply(seq_len(k), function(i) system.time(suppressWarnings(f()))[["elapsed"]], numeric(1)))
}
set.seed(1)
rows <- list()
for (p in c(100, 200, 400)) {
  x <- matrix(rnorm(20000 * p), 20000, p)
  r <- suppressWarnings(analyze_gauss(x, 1, 1e-6, clip = 3 * sqrt(p), neighbor = "replace-one"))
  t <- best_of(if (p == 400) 1 else 3, function() dp_pca(r))
  rows[[length(rows) + 1]] <- data.frame(task = "dp_pca(analyze_gauss release)", size = sprintf("p = %d", p), seconds = t)
}
for (k in c(250, 1000, 2000)) {
  reps <- lapply(seq_len(k), function(i) ldp_perturb(rnorm(5) / 3, 1, 1e-5, 1))
  t <- best_of(3, function() ldp_aggregate(reps))
  rows[[length(rows) + 1]] <- data.frame(task = "ldp_aggregate(one-report batches)", size = sprintf("%d batches", k), seconds = t)
}
print(do.call(rbind, rows), row.names = FALSE)
