# One kind of study object: the four runners share class dp_study, with
# print, summary, plot and as.data.frame; saved studies of earlier versions
# convert with as_dp_study().

tiny_studies <- function() {
  set.seed(1)
  sh <- sheffet_study("single", n = 2^c(7, 8), epsilon = 0.5, reps = 2, p = 2)
  th <- run_study(data.frame(cov = "model2", dist = "gaussian", p = 4, n = c(30, 60), epsilon = 0.5, delta = 0.01),
                  reps = 2, tune = "theory")
  x <- rbind(matrix(rnorm(40 * 3), 40), matrix(rnorm(20 * 3, 1), 20))
  feats <- list(x = x, group = factor(rep(c("lean", "obese"), c(40, 20))))
  qd <- qda_study(feats, qda_estimators(private = FALSE), p = c(2, 3), reps = 2, n_test = c(lean = 6, obese = 3))
  f <- rnorm(300)
  cx <- cbind(f, f, 0) + matrix(rnorm(900), 300, 3)
  cs <- suppressWarnings(compression_pca_study(cx, m = c(50, 100), dim = 1, reps = 2))
  list(sheffet_study = sh, threshold_study = th, qda_study = qd, compression_study = cs)
}
studies <- tiny_studies()

test_that("every runner returns a dp_study that prints, summarises, plots and converts", {
  pdf(NULL)
  on.exit(dev.off())
  for (kind in names(studies)) {
    st <- studies[[kind]]
    expect_s3_class(st, c(kind, "dp_study", "dp_nonprivate"))
    out <- wide_output(print(st))
    expect_match(out[1], "NOT a private release", info = kind)
    sm <- summary(st)
    expect_true(is.data.frame(sm) && nrow(sm) > 0, info = kind)
    df <- as.data.frame(st)
    expect_identical(class(df), "data.frame", info = kind)
    expect_false(inherits(df, "dp_study"))
    expect_no_error(plot(st))
  }
})

test_that("as.data.frame is the long format: one row per setting x method x replication", {
  sh <- as.data.frame(studies$sheffet_study)
  expect_equal(nrow(sh), nrow(unique(sh[c("rep", "n", "epsilon", "estimator")])))
  th <- as.data.frame(studies$threshold_study)
  expect_equal(nrow(th), nrow(unique(th[c("n", "rep", "method", "truth")])))
  qd <- as.data.frame(studies$qda_study)
  expect_identical(qd, studies$qda_study$errors)
  cs <- as.data.frame(studies$compression_study)
  expect_equal(nrow(cs), 4L)
  # the summaries agree with the long format
  s <- summary(studies$compression_study)
  expect_equal(s$distance, as.vector(tapply(cs$distance, cs$m, mean)))
  expect_equal(plain_table(summary(studies$threshold_study)), study_summary(th, c("spectral", "frobenius", "l1")))
  expect_identical(plain_table(summary(studies$qda_study)), studies$qda_study$summary)
  # every study table is labelled non-private (compression's delta_D and bounds are exact statistics)
  for (s in studies) expect_s3_class(summary(s), "dp_nonprivate")
  expect_match(wide_output(print(summary(studies$compression_study)))[1], "NOT a private release")
})

test_that("old fields keep working", {
  sh <- studies$sheffet_study
  expect_true(is.list(attr(sh, "settings")))
  expect_true(all(c("experiment", "estimator", "error") %in% names(sh)))
  expect_true(is.data.frame(studies$qda_study$summary))
  expect_true(is.data.frame(study_summary(studies$threshold_study)))
  expect_false(inherits(study_summary(studies$threshold_study), "dp_study"))
})

test_that("studies saved by earlier versions convert to the current class", {
  old_cs <- studies$compression_study
  class(old_cs) <- c("compression_study", "data.frame")  # as saved before dp_study and dp_nonprivate
  new <- as_dp_study(old_cs)
  expect_s3_class(new, c("compression_study", "dp_study", "dp_nonprivate"))
  expect_equal(summary(new), summary(studies$compression_study))
  old_th <- as.data.frame(studies$threshold_study)  # run_study() results saved as a plain data frame
  expect_s3_class(as_dp_study(old_th), "threshold_study")
  old_q <- studies$qda_study
  class(old_q) <- c("qda_study", "dp_nonprivate")
  expect_s3_class(as_dp_study(old_q), "dp_study")
  # the saved results the vignettes read
  for (f in c("compression-pca.rds", "qda-table7.rds", "sheffet-single.rds")) {
    o <- readRDS(system.file("extdata", f, package = "dpcov"))
    objs <- if (inherits(o, "sheffet_study")) list(o) else Filter(function(v) inherits(v, c("compression_study", "qda_study")), o)
    for (v in objs) {
      s <- as_dp_study(v)
      expect_s3_class(s, "dp_study")
      expect_output(print(s), "NOT a private release")
      expect_true(nrow(as.data.frame(s)) > 0)
    }
  }
  e <- expect_error(as_dp_study(data.frame(a = 1)), class = "dpcov_error")
  expect_identical(e$arg, "x")
})

test_that("plot methods: legend outside by default, choices checked, bad studies refused", {
  pdf(NULL)
  on.exit(dev.off())
  expect_no_error(plot(studies$sheffet_study, figure = 4, legend_pos = "topright"))
  expect_no_error(plot(studies$compression_study, legend_pos = "none"))
  e <- expect_error(plot(studies$compression_study, legend_pos = "inside"), class = "dpcov_error")
  expect_identical(e$arg, "legend_pos")
  e <- expect_error(plot(studies$threshold_study, measure = "max"), class = "dpcov_error")
  expect_identical(e$arg, "measure")
  bad <- studies$threshold_study
  bad$spectral <- "a"
  e <- expect_error(summary(bad), class = "dpcov_error")
  expect_identical(e$arg, "object")
  expect_error(as.data.frame(structure(list(), class = c("qda_study", "dp_study"))), class = "dpcov_error")
  # the figure leaves the graphics state as it was
  op <- par("mar")
  plot(studies$sheffet_study)
  expect_equal(par("mar"), op)
})

test_that("tick labels: one format per axis, powers of two for n", {
  expect_identical(axis_labels(c(0.5, 1, 2, 100)), c("0.5", "1", "2", "100"))
  expect_identical(axis_labels(c(1000, 1e5)), c("1,000", "100,000"))
  expect_false(any(grepl("e+", axis_labels(c(0.01, 0.1, 1, 10, 100)), fixed = TRUE)))
  expect_true(is.expression(axis_labels(2^(10:12), 2)))
})

test_that("the studies saved in inst/extdata carry the study classes, so they print as non-private (audit: saved before the classes)", {
  f <- function(name) readRDS(system.file("extdata", name, package = "dpcov"))
  for (s in list(f("sheffet-single.rds"), f("sheffet-multiple.rds"), f("qda-table7.rds")$table7)) {
    expect_true(inherits(s, "dp_study") && inherits(s, "dp_nonprivate"))
    expect_match(capture.output(print(s))[1], "NOT a private release")
  }
})

test_that("sheffet_study() refuses a delta Algorithm 3 cannot take before it runs (audit)", {
  e <- expect_error(sheffet_study(n = 2^10, epsilon = 0.5, reps = 1, delta = 0.2), "1/6", class = "dpcov_error")
  expect_identical(e$arg, "delta")
})

test_that("run_study() refuses settings it would not read per row, records how it ran; relative errors plot; zero truth refused", {
  base <- data.frame(cov = "model2", dist = "t", p = 5, n = 50, epsilon = 1, delta = 1e-3)
  for (col in c("df", "rho", "lambda", "scale", "calibration")) {
    s <- cbind(base, stats::setNames(data.frame(3), col))
    e <- expect_error(run_study(s, reps = 1, tune = "theory"), "does not read per row", class = "dpcov_error")
    expect_identical(e$arg, "settings")
  }
  expect_error(run_study(transform(base, sparsity = 0.3), reps = 1, tune = "theory"),
               "applies to cov = \"random_sparse\" only", class = "dpcov_error")
  # a label column is still copied
  set.seed(1)
  st <- run_study(transform(base, table = "T1"), reps = 1, tune = "theory", methods = threshold_methods()[1, ])
  expect_identical(unique(as.data.frame(st)$table), "T1")
  run <- attr(st, "run")
  expect_equal(run[c("reps", "tune", "calibration", "df")], list(reps = 1, tune = "theory", calibration = "classic", df = 5))
  # the sparsity sweep counts its settings
  s <- data.frame(cov = "random_sparse", dist = "gaussian", p = 10, n = 200, epsilon = 1, delta = 1 / 200, sparsity = c(0.1, 0.3))
  st <- run_study(s, reps = 2, tune = "theory", relative = TRUE, methods = threshold_methods()[1:2, ])
  expect_output(print(st), "2 setting\\(s\\) x 2 method\\(s\\)")
  f <- tempfile(fileext = ".pdf")
  grDevices::pdf(f)
  expect_no_error(plot(st, measure = "rel_spectral"))
  grDevices::dev.off()
  unlink(f)
  e <- expect_error(cov_error(diag(2), matrix(0, 2, 2), relative = TRUE), "zero matrix", class = "dpcov_error")
  expect_identical(e$arg, "truth")
  expect_equal(cov_error(diag(2), matrix(0, 2, 2)), c(spectral = 1, frobenius = sqrt(2), l1 = 1))
})

test_that("run_study() refuses arguments no row uses, repeated labels and a public sample of another width; study_summary() keeps every settings column apart; plot() takes the user's limits (audit)", {
  s <- data.frame(scenario = c("A", "B"), cov = "model2", dist = "gaussian", p = 5, n = 200, epsilon = 1, delta = 1e-3)
  st <- run_study(s, reps = 2, tune = "theory", methods = threshold_methods()[1, ])
  sm <- summary(st)
  # two scenarios, two rows (they were pooled as one row of 4 reps)
  expect_identical(nrow(sm), 2L)
  expect_identical(sm$scenario, c("A", "B"))
  expect_identical(sm$reps, c(2L, 2L))
  m <- data.frame(label = c("DP", "DP"), variant = c("modified", "wang_xu"), model = "central",
                  neighbor = c("replace-one", "zero-out"))
  e <- expect_error(run_study(s[1, ], reps = 2, tune = "theory", methods = m), "repeated labels", class = "dpcov_error")
  expect_identical(e$arg, "methods")
  e <- expect_error(run_study(s[1, ], reps = 2, tune = "theory", methods = threshold_methods()[1, ], df = 7),
                    "dist = \"t\"", class = "dpcov_error")
  expect_identical(e$arg, "df")
  e <- expect_error(run_study(s[1, ], reps = 2, tune = "theory", methods = threshold_methods()[1, ], ldp_threshold = "printed"),
                    "modified local", class = "dpcov_error")
  expect_identical(e$arg, "ldp_threshold")
  s2 <- rbind(s[1, ], transform(s[1, ], scenario = "C", p = 6))
  e <- expect_error(run_study(s2, reps = 2, tune = threshold_tune("public", public = matrix(rnorm(500), 100, 5)),
                              methods = threshold_methods()[1, ]), "public sample has 5 columns", class = "dpcov_error")
  expect_identical(e$arg, "tune")
  # factor columns of methods are read as their labels
  mf <- as.data.frame(lapply(threshold_methods()[1, ], factor))
  expect_s3_class(run_study(s[1, ], reps = 1, tune = "theory", methods = mf), "threshold_study")
  # the user's limits and labels replace the plot's
  pdf(NULL)
  on.exit(grDevices::dev.off(), add = TRUE)
  expect_no_error(plot(st, xlim = c(100, 400), ylab = "error"))
})
