# COMBO loader and preprocessing. Synthetic files in both layouts run
# everywhere; the real data (never shipped) is found through
# $DPCOV_COMBO_DIR or a shared/data directory above the working directory.

combo_dir <- combo_data_dir()
skip_without_combo <- function() {
  skip_if(is.null(combo_dir),
          "COMBO data not found: set DPCOV_COMBO_DIR or put shared/data beside the package")
}

write_count_table <- function(dir, counts, bmi_tab) {
  dir.create(dir, showWarnings = FALSE, recursive = TRUE)
  utils::write.table(counts, file.path(dir, "combo_count_tab.txt"), quote = TRUE)
  utils::write.table(bmi_tab, file.path(dir, "bmi.tsv"), sep = "\t", quote = FALSE, row.names = FALSE)
}
write_genera_csv <- function(dir, counts, phylo, bmi) {
  dir.create(dir, showWarnings = FALSE, recursive = TRUE)
  utils::write.table(t(counts), file.path(dir, "GeneraCounts.csv"), sep = ",",
                     row.names = FALSE, col.names = FALSE)
  utils::write.table(phylo, file.path(dir, "GeneraPhylo.csv"), sep = ", ", quote = FALSE,
                     row.names = FALSE, col.names = FALSE)
  writeLines(format(bmi), file.path(dir, "BMI.csv"))
}

# a small dataset in both layouts: 4 subjects, two genera (+ one all-zero
# genus and a phylum-level column that the loader must drop)
synthetic_combo <- function() {
  root <- tempfile("combo")
  counts98 <- cbind("Bacteria.Firmicutes" = c(9, 8, 7, 6),
                    "Bacteria.Firmicutes.Clostridia.Clostridiales.Lachnospiraceae.Blautia" = c(3, 0, 5, 1),
                    "Bacteria.Bacteroidetes.Bacteroidia.Bacteroidales.Bacteroidaceae.Bacteroides" = c(1, 2, 0, 4),
                    "Bacteria.Firmicutes.Bacilli.Lactobacillales.Lactobacillaceae.Lactobacillus" = 0)
  rownames(counts98) <- c("3001", "3002", "3003", "3004")
  write_count_table(file.path(root, "combo98"), counts98,
                    data.frame(pid = c(3004, 3001, 3002, 3003, 9999), bmi = c(30.5, 22, 26, 24.99, 20)))
  phylo <- data.frame(id = c("OTU_1", "OTU_2", "OTU_3"), d = "Bacteria",
                      ph = c("Firmicutes", "Bacteroidetes", "Firmicutes"),
                      cl = c("Clostridia", "Bacteroidia", "Bacilli"),
                      or = c("Clostridiales", "Bacteroidales", "Lactobacillales"),
                      fa = c("Lachnospiraceae", "Bacteroidaceae", "Lactobacillaceae"),
                      ge = c("Blautia", "Bacteroides", "Lactobacillus"))
  write_genera_csv(file.path(root, "combo96"), counts98[c(1, 2, 4), 2:4], phylo, c(22, 26, 30.5))
  root
}

test_that("combo_read reads the count-table layout", {
  root <- synthetic_combo()
  d <- combo_read(file.path(root, "combo98"))
  expect_s3_class(d, "combo_data")
  expect_identical(d$layout, "count_table")
  expect_identical(dim(d$counts), c(4L, 2L))
  expect_identical(colnames(d$counts), c("Blautia", "Bacteroides"))
  expect_identical(rownames(d$counts), c("3001", "3002", "3003", "3004"))
  expect_identical(unname(d$counts[, "Blautia"]), c(3L, 0L, 5L, 1L))
  expect_equal(unname(d$bmi), c(22, 26, 24.99, 30.5))
  expect_identical(as.character(d$group), c("lean", "obese", "lean", "obese"))
  expect_identical(levels(d$group), c("lean", "obese"))
  expect_identical(d$taxonomy$family, c("Lachnospiraceae", "Bacteroidaceae"))
  # the root directory resolves to combo98/ unless the other layout is asked for
  expect_identical(combo_read(root)$layout, "count_table")
  expect_output(print(d), "4 subjects x 2 genera.*2 lean")
})

test_that("combo_read reads the genera-CSV layout and agrees with the count table", {
  root <- synthetic_combo()
  a <- combo_read(root)
  b <- combo_read(root, layout = "genera_csv")
  expect_identical(b$layout, "genera_csv")
  expect_identical(rownames(b$counts), c("S1", "S2", "S3"))
  expect_identical(unname(b$counts), unname(a$counts[c(1, 2, 4), ]))
  expect_identical(colnames(b$counts), colnames(a$counts))
  expect_identical(unname(b$group), unname(a$group[c(1, 2, 4)]))
  expect_identical(b$taxonomy$genus, c("Blautia", "Bacteroides"))
})

test_that("combo_read gives clear errors for missing or malformed directories", {
  root <- synthetic_combo()
  expect_error(combo_read(file.path(root, "nope")), "does not exist")
  expect_error(combo_read(c("a", "b")), "single directory path")
  empty <- tempfile("empty")
  dir.create(empty)
  expect_error(combo_read(empty), "no COMBO files")
  expect_error(combo_read(root, layout = "weird"), "`layout` must be one of")
  # count table without its BMI file
  d1 <- file.path(root, "only-counts")
  dir.create(d1)
  file.copy(file.path(root, "combo98", "combo_count_tab.txt"), d1)
  expect_error(combo_read(d1), "missing file.*bmi.tsv")
  # a subject without BMI
  d2 <- file.path(root, "bmi-gap")
  write_count_table(d2, matrix(1:4, 2, 2, dimnames = list(c("1", "2"),
    c("B.F.C.O.Fa.G1", "B.F.C.O.Fa.G2"))), data.frame(pid = 1, bmi = 20))
  expect_error(combo_read(d2), "subject\\(s\\) 2 of the count table have no BMI")
  # no genus-level column
  d3 <- file.path(root, "no-genus")
  write_count_table(d3, matrix(1:4, 2, 2, dimnames = list(c("1", "2"), c("B.F", "B.G"))),
                    data.frame(pid = 1:2, bmi = c(20, 30)))
  expect_error(combo_read(d3), "no genus-level columns")
  # negative counts
  d4 <- file.path(root, "negative")
  write_count_table(d4, matrix(c(1, -2, 3, 4), 2, 2, dimnames = list(c("1", "2"),
    c("B.F.C.O.Fa.G1", "B.F.C.O.Fa.G2"))), data.frame(pid = 1:2, bmi = c(20, 30)))
  expect_error(combo_read(d4), "non-negative whole numbers")
  # genera-CSV layout with the wrong number of BMI values
  d5 <- file.path(root, "bmi-short")
  dir.create(d5)
  file.copy(file.path(root, "combo96", c("GeneraCounts.csv", "GeneraPhylo.csv")), d5)
  writeLines(c("20", "30"), file.path(d5, "BMI.csv"))
  expect_error(combo_read(d5), "has 2 values but .* has 3 samples")
  # taxonomy rows do not match the count rows
  d6 <- file.path(root, "phylo-short")
  dir.create(d6)
  file.copy(file.path(root, "combo96", c("GeneraCounts.csv", "BMI.csv")), d6)
  writeLines("OTU_1, Bacteria, Firmicutes, Clostridia, Clostridiales, Lachnospiraceae, Blautia",
             file.path(d6, "GeneraPhylo.csv"))
  expect_error(combo_read(d6), "has 1 rows but .* has 3 genera")
})

test_that("combo_preprocess matches a plain-R reference for every documented choice", {
  root <- synthetic_combo()
  d <- combo_read(root)
  counts <- d$counts
  ref <- function(z, keep, denominator, transform) {
    total <- if (denominator == "all") rowSums(z) else rowSums(z[, keep, drop = FALSE])
    x <- log(z[, keep, drop = FALSE] / total)
    if (transform == "clr") x <- x - rowMeans(x)
    x
  }
  for (den in c("all", "kept")) for (tr in c("log", "clr")) {
    f <- combo_preprocess(d, min_samples = 1, denominator = den, transform = tr)
    expect_equal(f$x, ref(counts + 0.5, c(TRUE, TRUE), den, tr))
  }
  f <- combo_preprocess(d, min_samples = 1, zero = "zeros", pseudocount = 0.25)
  expect_equal(f$x, ref(ifelse(counts == 0, 0.25, counts), c(TRUE, TRUE), "all", "log"))
  expect_equal(rowSums(combo_preprocess(d, min_samples = 1, transform = "clr")$x), rep(0, 4),
               ignore_attr = TRUE)
  # filter: Blautia is present in 2 lean and 1 obese subjects, Bacteroides in 1 lean and 2 obese
  expect_identical(combo_preprocess(d, min_samples = 1, by_group = FALSE)$genera,
                   c("Blautia", "Bacteroides"))
  expect_identical(combo_preprocess(d, min_samples = 2, by_group = FALSE)$genera,
                   c("Blautia", "Bacteroides"))
  expect_error(combo_preprocess(d, min_samples = 2), "only 0 genera pass the filter")
  expect_error(combo_preprocess(d, min_samples = 4, by_group = FALSE), "only 0 genera pass the filter")
  expect_error(combo_preprocess(list()), "combo_read\\(\\) result")
  expect_error(combo_preprocess(d, zero = "half"), "`zero` must be one of")
  expect_error(combo_preprocess(d, pseudocount = 0), "`pseudocount` must be in")
  expect_output(print(combo_preprocess(d, min_samples = 1)), "4 subjects x 2 genera")
})

test_that("combo_select ranks columns by two-sample t-test p-values", {
  set.seed(5)
  x <- matrix(rnorm(40 * 6), 40, 6)
  g <- factor(rep(c("lean", "obese"), c(25, 15)))
  x[g == "obese", 2] <- x[g == "obese", 2] + 2
  x[g == "obese", 5] <- x[g == "obese", 5] + 1
  for (ve in c(FALSE, TRUE)) {
    pv <- apply(x, 2, function(v) t.test(v[g == "lean"], v[g == "obese"], var.equal = ve)$p.value)
    sel <- combo_select(x, g, 4, var_equal = ve)
    expect_identical(as.integer(sel), order(pv)[1:4])
    expect_equal(attr(sel, "p_value"), unname(sort(pv)[1:4]))
  }
  expect_identical(as.integer(combo_select(x, g, 2)), c(2L, 5L))
  expect_error(combo_select(x, g, 7), "exceeds the number of columns")
  expect_error(combo_select(x, factor(rep(c("a", "b", "c"), length.out = 40)), 2), "exactly two levels")
  expect_error(combo_select(x, g[-1], 2), "one label per row")
})

test_that("both layouts of the real data give identical counts for the 96 shared subjects", {
  skip_without_combo()
  a <- combo_read(combo_dir)
  b <- combo_read(combo_dir, layout = "genera_csv")
  expect_identical(dim(a$counts), c(98L, 87L))
  expect_identical(dim(b$counts), c(96L, 87L))
  expect_identical(as.vector(table(a$group)), c(63L, 35L))
  expect_identical(as.vector(table(b$group)), c(61L, 35L))
  shared <- !rownames(a$counts) %in% c("4004", "4020")
  expect_identical(unname(a$counts[shared, ]), unname(b$counts))
  expect_identical(colnames(a$counts), colnames(b$counts))
  expect_identical(unname(a$group[shared]), unname(b$group))
  expect_lt(max(abs(a$bmi[shared] - b$bmi)), 1e-3) # BMI.csv is rounded to 3 decimals
})

test_that("the paper's filter gives its 40 genera on the 98 subjects", {
  skip_without_combo()
  a <- combo_read(combo_dir)
  f <- combo_preprocess(a)
  expect_identical(dim(f$x), c(98L, 40L))
  expect_identical(ncol(combo_preprocess(a, by_group = FALSE)$x), 63L)
  expect_true(all(is.finite(f$x)))
})

test_that("combo_data_dir honours DPCOV_COMBO_DIR and searches upward for shared/data", {
  root <- tempfile("tree")
  dir.create(file.path(root, "shared", "data", "combo98"), recursive = TRUE)
  dir.create(file.path(root, "pkg", "tests", "testthat"), recursive = TRUE)
  withr_env <- Sys.getenv("DPCOV_COMBO_DIR", unset = NA)
  on.exit(if (is.na(withr_env)) Sys.unsetenv("DPCOV_COMBO_DIR") else Sys.setenv(DPCOV_COMBO_DIR = withr_env))
  Sys.unsetenv("DPCOV_COMBO_DIR")
  found <- combo_data_dir(file.path(root, "pkg", "tests", "testthat"))
  expect_identical(found, file.path(normalizePath(root), "shared", "data"))
  Sys.setenv(DPCOV_COMBO_DIR = root)
  expect_identical(combo_data_dir(tempdir()), normalizePath(root))
})

test_that("combo: a separating feature ranks first, group levels are exactly lean and obese, overflowing totals are refused", {
  x <- cbind(sep = c(0, 0, 0, 1, 1, 1), noise = c(1, 3, 2, 2.5, 1.5, 2.2))
  sel <- combo_select(x, factor(rep(c("lean", "obese"), each = 3)), p = 2)
  expect_identical(as.vector(unclass(sel)), c(1L, 2L))
  expect_identical(attr(sel, "p_value")[1], 0)
  # no spread and equal means: no difference (p = 1)
  same <- cbind(flat = rep(2, 6), noise = c(1, 3, 2, 2.5, 1.5, 2.2))
  expect_identical(attr(combo_select(same, factor(rep(c("lean", "obese"), each = 3)), p = 2), "p_value")[2], 1)
  counts <- matrix(c(5, 0, 3, 9, 1, 0, 2, 7, 4, 1, 8, 0), 4, 3, dimnames = list(paste0("s", 1:4), c("A", "B", "C")))
  make <- function(group, counts_ = counts) structure(list(counts = counts_, bmi = c(22, 27, 21, 30), group = group), class = "combo_data")
  expect_error(combo_preprocess(make(factor(c("lean", "obese", "lean", "obese"), levels = c("lean", "obese", "other"))),
                                min_samples = 1), "not a valid combo_data", class = "dpcov_error")
  expect_error(combo_preprocess(make(factor(c("lean", "lean", "lean", "lean"), levels = c("lean", "obese"))),
                                min_samples = 1), "not a valid combo_data", class = "dpcov_error")
  big <- counts
  big[1, ] <- 1e308
  e <- expect_error(combo_preprocess(make(factor(c("lean", "obese", "lean", "obese")), big), min_samples = 1),
                    "beyond the double range", class = "dpcov_error")
  expect_identical(e$arg, "data")
  expect_true(all(is.finite(combo_preprocess(make(factor(c("lean", "obese", "lean", "obese"))), min_samples = 1)$x)))
})

test_that("combo_select: an essentially constant column is ranked like a constant one, without t.test()'s error (audit)", {
  g <- factor(rep(c("lean", "obese"), each = 4))
  x <- cbind(a = 1:8, b = c(1, 1, 1, 1 + 4e-16, 1, 1, 1 + 4e-16, 1),
             c = c(1, 1, 1, 1 + 4e-16, 2, 2, 2 + 8e-16, 2))
  # (t.test() itself stops on these columns)
  expect_error(t.test(x[1:4, "b"], x[5:8, "b"]), "essentially constant")
  for (ve in c(FALSE, TRUE)) {
    sel <- combo_select(x, g, 3, var_equal = ve)
    # c: the groups differ for sure (p 0); b: not at all (p 1); a: the t-test
    expect_identical(as.integer(sel), c(3L, 1L, 2L))
    expect_identical(attr(sel, "p_value")[c(1, 3)], c(0, 1))
    expect_equal(attr(sel, "p_value")[2], t.test(1:4, 5:8, var.equal = ve)$p.value)
  }
  # control: exactly constant columns, as before
  x0 <- cbind(a = 1:8, b = 5, c = rep(c(1, 2), each = 4))
  expect_identical(attr(combo_select(x0, g, 3), "p_value")[c(1, 3)], c(0, 1))
  # and the study that reached it on every split runs
  set.seed(1)
  xx <- cbind(matrix(rnorm(90 * 3), 90), 1 + c(rep(0, 89), 4e-16))
  grp <- factor(rep(c("lean", "obese"), c(60, 30)))
  expect_s3_class(qda_study(list(x = xx, group = grp), qda_estimators(private = FALSE), p = 2, reps = 3,
                            n_test = c(lean = 12, obese = 6)), "qda_study")
})

test_that("combo_read(): every file error names `dir`, and a repeated pid in bmi.tsv is refused (audit)", {
  root <- synthetic_combo()
  cnt <- matrix(c(1, 0, 2, 5), 2, 2, dimnames = list(c("1", "2"), c("B.F.C.O.Fa.G1", "B.F.C.O.Fa.G2")))
  # a repeated subject: the first row was used silently
  d1 <- file.path(root, "c4")
  write_count_table(d1, cnt, data.frame(pid = c(1, 2, 1), bmi = c(20, 30, 40)))
  e <- expect_error(combo_read(d1), "bmi.tsv` \\(in `dir`\\) lists a subject \\(pid\\) more than once, in data rows 1, 3",
                    class = "dpcov_error")
  expect_identical(e$arg, "dir")
  # the errors about a directory's contents name `dir`, not the directory's value
  d2 <- file.path(root, "neg")
  write_count_table(d2, cnt * c(1, -1), data.frame(pid = 1:2, bmi = c(20, 30)))
  d3 <- file.path(root, "nobmi")
  write_count_table(d3, cnt, data.frame(pid = 1:2, bmi = c(20, NA)))
  d4 <- file.path(root, "gap")
  write_count_table(d4, cnt, data.frame(pid = 1, bmi = 20))
  d5 <- file.path(root, "nogenus")
  write_count_table(d5, matrix(1:4, 2, 2, dimnames = list(c("1", "2"), c("B.F", "B.G"))), data.frame(pid = 1:2, bmi = c(20, 30)))
  d6 <- file.path(root, "bmi-short")
  dir.create(d6)
  file.copy(file.path(root, "combo96", c("GeneraCounts.csv", "GeneraPhylo.csv")), d6)
  writeLines(c("20", "30"), file.path(d6, "BMI.csv"))
  d7 <- file.path(root, "only-counts")
  dir.create(d7)
  file.copy(file.path(root, "combo98", "combo_count_tab.txt"), d7)
  for (d in c(d2, d3, d4, d5, d6, d7)) {
    e <- expect_error(combo_read(d), class = "dpcov_error", info = d)
    expect_identical(e$arg, "dir", info = d)
  }
  # a relative directory name was taken for the argument (its value was back-quoted)
  old <- setwd(root)
  on.exit(setwd(old))
  e <- expect_error(combo_read("neg"), "the counts in \"neg\" \\(`dir`\\)", class = "dpcov_error")
  expect_identical(e$arg, "dir")
  # control: one BMI per subject reads
  d8 <- file.path(root, "ok")
  write_count_table(d8, cnt, data.frame(pid = c(2, 1), bmi = c(30, 20)))
  expect_identical(unname(combo_read(d8)$bmi), c(20, 30))
})
