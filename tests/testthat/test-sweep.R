# Every export and registered S3 method answers hostile input with a classed
# dpcov_error naming the argument (or, where the value is in fact valid, a
# sane result); never a plain error, a silent wrong answer, a crash or a
# hang. The calls run in a child R session (see helper-sweep.R). The fast
# tier runs every baseline and one hostile value per argument
# (sweep_sample()); the extended tier runs the whole table.

test_that("every export answers hostile input with a classed error or a sane result", {
  skip_if_not_installed("callr")
  calls <- sweep_calls()
  expect_gt(length(calls), 500)
  if (!extended_tests()) calls <- sweep_sample(calls)
  res <- sweep_run(calls)
  tally <- sweep_tally(res)
  fails <- sweep_failures(res)
  expect_true(all(tally$baseline_ok),
              info = paste("baselines failing:", paste(tally$export[!tally$baseline_ok], collapse = ", ")))
  expect_equal(sum(res$outcome == "crash"), 0, info = paste(fails, collapse = "\n"))
  expect_equal(sum(res$outcome == "hang"), 0, info = paste(fails, collapse = "\n"))
  expect(length(fails) == 0,
         sprintf("%d offending call(s):\n%s", length(fails), paste(fails, collapse = "\n")))
  # every export and every registered S3 method is in the table
  covered <- unique(sub(" \\(.*\\)$", "", tally$export))
  s3 <- getNamespaceInfo("dpcov", "S3methods")
  # tidy() and glance() are generics re-exported from `generics`: their dp_lm methods are swept
  # residuals(), fitted(), deviance(), df.residual(), logLik(), anova() and plot() of a dp_lm refuse every
  # call (a fit keeps no data): tested in test-dp-lm.R;
  # as.matrix() of the list-based objects but column bounds refuses every call, and so does update() of
  # the results that store no call: tested in test-methods.R; as.data.frame() of a fit or a PCA refuses
  # every call: tested in test-input-audit.R; so of the other list-based objects but a tuning curve:
  # test-methods.R
  refusers <- c(paste0("update.", update_refusers),"residuals.dp_lm", "fitted.dp_lm", "deviance.dp_lm", "df.residual.dp_lm", "logLik.dp_lm", "anova.dp_lm",
                "plot.dp_lm",
                paste0("as.matrix.", c("dp_pca", "dp_lm", "dp_suffstat", "qda_plugin", "threshold_cv", "dp_bound", "ldp_reports")),
                paste0("as.data.frame.", c("dp_pca", "dp_lm", "dp_suffstat", "qda_plugin", "dp_bound", "ldp_reports")),
                # lm()'s methods that need the data: test-lm-audit.R
                paste0(c("model.frame", "hatvalues", "cooks.distance", "influence", "rstandard", "rstudent", "extractAIC",
                         "dummy.coef", "alias", "effects", "simulate", "case.names", "dfbeta", "dfbetas", "proj"),
                       ".dp_lm"),
                # subsetting of a study, and arithmetic on and assignment into a labelled
                # covariance, are base R's `[`, Ops, Math, `[<-`, `[[<-`, `dim<-` and
                # `dimnames<-` (their errors R's own, classed), relabelled after:
                # test-methods.R, test-compress.R and test-qda.R
                "[.dp_study", paste0(rep(c("Ops.", "Math.", "[<-.", "[[<-.", "dim<-.", "dimnames<-."), each = 2),
                                     c("pooled_cov", "compressed_cov")))
  missing <- setdiff(c(setdiff(getNamespaceExports("dpcov"), c("tidy", "glance")), paste(s3[, 1], s3[, 2], sep = ".")),
                     c(covered, refusers))
  if (is.null(sweep_combo_dir())) missing <- setdiff(missing, sweep_data_dependent)
  expect_equal(missing, character(0))
})
