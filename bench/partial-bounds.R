# Bounds for some columns only (NA for the others, chosen privately) against
# the default (every column's chosen privately) and public bounds for all, on
# a model with a 0/1 column stored as numbers: survival::colon (recurrence
# records), log(time) ~ age + nodes + obstruct. 20 fits per cell, replace-one,
# delta 1e-6; the error of the slopes against lm() (relative L2) and of the
# obstruct slope alone (absolute), medians.
# Run: Rscript bench/partial-bounds.R   (DPCOV_BENCH_REPS to change 20)
suppressMessages(library(dpcov))
reps <- as.integer(Sys.getenv("DPCOV_BENCH_REPS", "20"))
d <- na.omit(survival::colon[survival::colon$etype == 1, c("time", "age", "nodes", "obstruct")])
d$time <- log(d$time)
fml <- time ~ age + nodes + obstruct
ref <- coef(lm(fml, d))[-1]
na4 <- c(time = NA, age = NA, nodes = NA)
# public ranges from the study's documentation: follow-up under 10 years (log days),
# ages 18-85 (eligibility), at most 33 positive nodes (the data's documented range)
pub_lo <- c(time = 0, age = 18, nodes = 0, obstruct = 0)
pub_hi <- c(time = log(3650), age = 85, nodes = 33, obstruct = 1)
methods <- list(
  default = function(e) dp_lm(fml, d, e, 1e-6, neighbor = "replace-one", B = 20),
  "obstruct given, others NA" = function(e) dp_lm(fml, d, e, 1e-6, neighbor = "replace-one", B = 20,
                                               lower = c(na4, obstruct = 0), upper = c(na4, obstruct = 1)),
  "all public" = function(e) dp_lm(fml, d, e, 1e-6, neighbor = "replace-one", B = 20, lower = pub_lo, upper = pub_hi))
cat(sprintf("n = %d, lm slopes: %s\n\n", nrow(d), paste(signif(ref, 3), collapse = ", ")))
rows <- list()
for (e in c(1, 4, 16)) {
  for (m in names(methods)) {
    errs <- t(vapply(seq_len(reps), function(s) {
      set.seed(1000 * e + s)
      b <- coef(suppressWarnings(methods[[m]](e)))[-1]
      c(slopes = sqrt(sum((b - ref)^2)) / sqrt(sum(ref^2)), obstruct = abs(b[["obstruct"]] - ref[["obstruct"]]))
    }, numeric(2)))
    rows[[length(rows) + 1L]] <- data.frame(epsilon = e, method = m, slopes = median(errs[, "slopes"]),
                                            obstruct = median(errs[, "obstruct"]),
                                            obstruct_off_half = mean(errs[, "obstruct"] > 0.5 * abs(ref[["obstruct"]])))
  }
}
out <- do.call(rbind, rows)
out$slopes <- signif(out$slopes, 3)
out$obstruct <- signif(out$obstruct, 3)
print(out, row.names = FALSE)
