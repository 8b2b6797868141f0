# The COMBO gut-microbiome data (Wu et al. 2011): a loader for the two file
# layouts in circulation and the preprocessing of the QDA study (Section 4.2 of
# the modified-thresholding paper). The data are never shipped with dpcov.

#' Read the COMBO gut-microbiome data
#'
#' Reads genus-level counts and body-mass index (BMI) of the COMBO study
#' (Wu et al. 2011, *Science* 334:105-108) from a directory, in either of the
#' two layouts in circulation (see Details).
#'
#' * `"count_table"` (98 subjects): `combo_count_tab.txt`, a space-separated
#'   table with one column per taxon at every rank and subject ids as row
#'   names, and `bmi.tsv` with columns `pid` and `bmi`. Genus columns are the
#'   ones whose name has six dot-separated parts
#'   (`Bacteria.Firmicutes.Clostridia.Clostridiales.Lachnospiraceae.Blautia`).
#' * `"genera_csv"` (96 subjects): `GeneraCounts.csv` (genera x samples, no
#'   header), `GeneraPhylo.csv` (the taxonomy of those rows; the genus is the
#'   last column) and `BMI.csv` (one value per sample). These files carry no
#'   subject ids, so the subjects are named `S01`, ..., `S96` in file order.
#'
#' Only genera with a non-zero count in at least one subject are returned (87
#' in both layouts, in the same order), named by their genus.
#'
#' @section Where the data come from:
#' dpcov does not ship the data. The COMBO study (Wu et al. 2011) collected
#' gut-microbiome samples and diet and BMI records of healthy adults at the
#' University of Pennsylvania; its primary sequence data are not readily
#' available, but processed genus-level tables circulate publicly. The
#' 96-subject layout is the copy distributed, under the MIT licence, in the
#' `COMBO_data` folder of the c-lasso project
#' (<https://github.com/Leo-Simpson/c-lasso>), processed data provided by
#' Pixu Shi and used in Shi, Zhang and Li (2016), *Annals of Applied
#' Statistics* 10(2), 1019-1040: its `complete_data` files are the three
#' files read here. The 98-subject layout is a count table at every
#' taxonomic rank with a separate BMI table; it holds the same 87 genera, and
#' its subjects are the 96 plus two. Download either copy, put its files in a
#' directory of your choice, and pass that directory as `dir` (or set the
#' environment variable `DPCOV_COMBO_DIR` to it and use
#' `combo_read(combo_data_dir())`).
#'
#' @param dir A directory holding one layout, or a directory with
#'   sub-directories `combo98/` and/or `combo96/` (then `combo98` is read
#'   unless `layout = "genera_csv"`).
#' @param layout `"auto"` (detect from the file names), `"count_table"` or
#'   `"genera_csv"`.
#' @return An object of class `combo_data`: a list with `counts` (integer
#'   matrix, subjects x genera, named), `bmi` (named numeric), `group` (factor
#'   with levels `"lean"` (BMI < 25) and `"obese"`), `taxonomy` (data frame,
#'   one row per genus), `layout` and `dir`. It also carries class
#'   `dp_nonprivate`: these are the raw data.
#' @seealso [combo_preprocess()], [qda_study()]
#' @examples
#' dir <- file.path(tempdir(), "combo-example")
#' dir.create(dir, showWarnings = FALSE)
#' # a three-subject, two-genus file in the 96-subject layout
#' writeLines(c("3,0,5", "1,2,0"), file.path(dir, "GeneraCounts.csv"))
#' writeLines(c(paste("OTU_1, Bacteria, Firmicutes, Clostridia, Clostridiales,",
#'                    "Lachnospiraceae, Blautia"),
#'              paste("OTU_2, Bacteria, Bacteroidetes, Bacteroidia, Bacteroidales,",
#'                    "Bacteroidaceae, Bacteroides")),
#'            file.path(dir, "GeneraPhylo.csv"))
#' writeLines(c("22.1", "27.5", "19.9"), file.path(dir, "BMI.csv"))
#' combo_read(dir)
#' @template ref-combo
#' @template param-dots-none
#' @export
combo_read <- function(dir, layout = "auto", ...) {
  refuse_unknown_args("combo_read", ...)
  if (missing(dir)) abort_missing("dir")
  layout <- check_choice(layout, c("auto", "count_table", "genera_csv"), "layout")
  if (!is_string(dir) || !nzchar(dir)) abort("`dir` must be a single directory path.")
  if (!dir.exists(dir)) abort("`dir`: directory \"%s\" does not exist.", dir, .arg = "dir")
  dir <- combo_layout_dir(dir, layout)
  if (layout == "auto") {
    layout <- if (file.exists(file.path(dir, "combo_count_tab.txt"))) "count_table" else "genera_csv"
  }
  out <- if (layout == "count_table") read_combo_count_table(dir) else read_combo_genera_csv(dir)
  counts <- out$counts
  if (anyNA(counts) || any(counts < 0) || any(counts != round(counts))) {
    abort("the counts in \"%s\" (`dir`) must be non-negative whole numbers without missing values.", dir, .arg = "dir")
  }
  if (anyNA(out$bmi) || any(!is.finite(out$bmi)) || any(out$bmi <= 0)) {
    abort("the BMI values in \"%s\" (`dir`) must be positive numbers without missing values.", dir, .arg = "dir")
  }
  present <- colSums(counts) > 0
  counts <- counts[, present, drop = FALSE]
  storage.mode(counts) <- "integer"
  taxonomy <- out$taxonomy[present, , drop = FALSE]
  rownames(taxonomy) <- NULL
  names(out$bmi) <- rownames(counts)
  group <- factor(ifelse(out$bmi < 25, "lean", "obese"), levels = c("lean", "obese"))
  names(group) <- rownames(counts)
  structure(list(counts = counts, bmi = out$bmi, group = group, taxonomy = taxonomy,
                 layout = layout, dir = normalizePath(dir)),
            class = c("combo_data", "dp_nonprivate"))  # the data themselves
}

# A root with combo98/ or combo96/ resolves to the sub-directory of the layout.
combo_layout_dir <- function(dir, layout) {
  has <- function(d, f) file.exists(file.path(d, f))
  if (has(dir, "combo_count_tab.txt") || has(dir, "GeneraCounts.csv")) return(dir)
  sub <- switch(layout, genera_csv = "combo96", count_table = "combo98",
                auto = if (dir.exists(file.path(dir, "combo98"))) "combo98" else "combo96")
  if (dir.exists(file.path(dir, sub))) return(file.path(dir, sub))
  abort(paste0("no COMBO files in `dir` = \"%s\": expected combo_count_tab.txt + bmi.tsv, ",
               "GeneraCounts.csv + GeneraPhylo.csv + BMI.csv, or sub-directories combo98/ or combo96/."),
        dir, .arg = "dir")
}

read_combo_count_table <- function(dir) {
  files <- file.path(dir, c("combo_count_tab.txt", "bmi.tsv"))
  missing_files <- files[!file.exists(files)]
  if (length(missing_files)) abort("missing file(s): %s.", paste(missing_files, collapse = ", "), .arg = "dir")
  tab <- tryCatch(utils::read.table(files[1], header = TRUE, check.names = FALSE),
                  error = function(e) abort("cannot parse `%s` as a count table: %s", files[1], conditionMessage(e), .arg = "dir"))
  parts <- strsplit(names(tab), ".", fixed = TRUE)
  is_genus <- lengths(parts) == 6L
  if (!any(is_genus)) abort("`%s` has no genus-level columns (taxon names with six dot-separated parts).", files[1], .arg = "dir")
  if (!all(vapply(tab[is_genus], is.numeric, logical(1)))) abort("`%s` has non-numeric genus columns.", files[1], .arg = "dir")
  counts <- as.matrix(tab[is_genus])
  lineage <- do.call(rbind, parts[is_genus])
  colnames(counts) <- lineage[, 6]
  if (anyDuplicated(colnames(counts))) colnames(counts) <- make.unique(colnames(counts))
  bmi_tab <- tryCatch(utils::read.delim(files[2]),
                      error = function(e) abort("cannot parse `%s`: %s", files[2], conditionMessage(e), .arg = "dir"))
  if (!all(c("pid", "bmi") %in% names(bmi_tab))) abort("`%s` must have columns `pid` and `bmi`.", files[2], .arg = "dir")
  # a repeated subject has two BMIs: match() took the first silently
  pid <- as.character(bmi_tab$pid)
  rep_rows <- which(duplicated(pid) | duplicated(pid, fromLast = TRUE))
  if (length(rep_rows)) {
    abort("`%s` (in `dir`) lists a subject (pid) more than once, in data rows %s: each subject needs exactly one BMI; remove the repeated rows.",
          files[2], paste(utils::head(rep_rows, 10), collapse = ", "), .arg = "dir")
  }
  at <- match(rownames(counts), pid)
  if (anyNA(at)) {
    abort("subject(s) %s of the count table have no BMI in `%s`.",
          paste(utils::head(rownames(counts)[is.na(at)], 5), collapse = ", "), files[2], .arg = "dir")
  }
  taxonomy <- data.frame(genus = colnames(counts), lineage[, 1:5, drop = FALSE], stringsAsFactors = FALSE)
  names(taxonomy)[-1] <- c("domain", "phylum", "class", "order", "family")
  list(counts = counts, bmi = as.numeric(bmi_tab$bmi[at]), taxonomy = taxonomy)
}

read_combo_genera_csv <- function(dir) {
  files <- file.path(dir, c("GeneraCounts.csv", "GeneraPhylo.csv", "BMI.csv"))
  missing_files <- files[!file.exists(files)]
  if (length(missing_files)) abort("missing file(s): %s.", paste(missing_files, collapse = ", "), .arg = "dir")
  read <- function(f, ...) {
    tryCatch(utils::read.csv(f, header = FALSE, strip.white = TRUE, ...),
             error = function(e) abort("cannot parse `%s`: %s", f, conditionMessage(e), .arg = "dir"))
  }
  counts <- read(files[1])
  if (!all(vapply(counts, is.numeric, logical(1)))) abort("`%s` must hold numbers only.", files[1], .arg = "dir")
  counts <- t(as.matrix(counts))
  phylo <- read(files[2], stringsAsFactors = FALSE)
  bmi <- read(files[3])
  if (ncol(bmi) != 1L || !is.numeric(bmi[[1]])) abort("`%s` must hold one numeric value per line.", files[3], .arg = "dir")
  bmi <- bmi[[1]]
  if (nrow(phylo) != ncol(counts) || ncol(phylo) < 2L) {
    abort("`%s` has %d rows but `%s` has %d genera (rows).", files[2], nrow(phylo), files[1], ncol(counts), .arg = "dir")
  }
  if (length(bmi) != nrow(counts)) {
    abort("`%s` has %d values but `%s` has %d samples (columns).", files[3], length(bmi), files[1], nrow(counts), .arg = "dir")
  }
  genus <- as.character(phylo[[ncol(phylo)]])
  colnames(counts) <- if (anyDuplicated(genus)) make.unique(genus) else genus
  rownames(counts) <- sprintf("S%0*d", nchar(nrow(counts)), seq_len(nrow(counts)))
  ranks <- phylo[, -c(1L, ncol(phylo)), drop = FALSE]
  taxonomy <- data.frame(genus = colnames(counts), ranks, stringsAsFactors = FALSE)
  if (ncol(ranks) == 5L) names(taxonomy)[-1] <- c("domain", "phylum", "class", "order", "family")
  list(counts = counts, bmi = bmi, taxonomy = taxonomy)
}

#' @export
print.combo_data <- function(x, ...) {
  check_combo_data(x)
  if (!is_string(x$layout) || !is_string(x$dir)) {
    abort("`x` is not a valid combo_data object: its `layout` and `dir` must be strings.")
  }
  nonprivate_banner(x, "the raw data")
  tab <- table(x$group)
  cat(sprintf("<combo_data> %d subjects x %d genera (%s layout), %d lean (BMI < 25), %d obese\n",
              nrow(x$counts), ncol(x$counts), x$layout, tab[["lean"]], tab[["obese"]]))
  cat("Source:", x$dir, "\n")
  invisible(x)
}

# COMBO data given as input (hand-made ones included): counts and the groups
# the preprocessing and print() read.
check_combo_data <- function(x, arg = "x") {
  if (!inherits(x, "combo_data")) abort("`%s` must be a combo_read() result.", arg, .arg = arg)
  check_object(x, "combo_data", list(
    counts = function(v) is.matrix(v) && is.numeric(v) && length(v) > 0 && !anyNA(v) && all(is.finite(v)) &&
      all(v >= 0) && all(v == round(v)),
    # exactly the two groups, each with subjects: an empty or third level
    # changed the by-group filter silently, or emptied it
    group = function(v) is.factor(v) && !anyNA(v) && setequal(levels(v), c("lean", "obese")) &&
      all(table(v) > 0)), arg)
  if (length(x$group) != nrow(x$counts)) {
    abort("`%s` is not a valid combo_data object: `group` has %d labels for %d subjects.", arg,
          length(x$group), nrow(x$counts), .arg = arg)
  }
  invisible(x)
}

#' Preprocess COMBO counts for the QDA study
#'
#' Turns genus counts into the features of the paper's QDA study. The paper
#' (Section 4.2 of Li and Wang 2023) states only "we select
#' p = 40 bacterial genera that appeared in at least four samples" and a
#' per-genus two-sample t-test on the training part; the rest is ours, with
#' these readings (see Details).
#'
#' 1. **Filter.** Keep genera with a non-zero count in at least `min_samples`
#'    subjects of *each* group (`by_group = TRUE`). This is the only reading
#'    that yields the paper's 40 genera on the 98 subjects; "at least four
#'    samples" overall keeps 63. The filter uses the group labels of all
#'    subjects, as the paper's fixed p = 40 set must.
#' 2. **Zero replacement.** Counts are sparse and logs need positive values:
#'    `"pseudocount"` adds `pseudocount` (default 0.5) to every count (the
#'    usual choice for microbiome compositions, e.g. Cao, Lin and Li 2019);
#'    `"zeros"` replaces only zero counts by it.
#' 3. **Relative abundance.** Each subject's counts are divided by their total
#'    over `denominator = "all"` genera (the subject's whole genus-level
#'    composition, default) or over the `"kept"` genera only.
#' 4. **Transform.** `"log"` (log relative abundance, default) or `"clr"`
#'    (centred log-ratio over the kept genera: the log abundances minus their
#'    mean per subject; it makes the covariance singular, rank p - 1).
#'
#' The t-test selection of the p = 25 subset must see only a training split;
#' it is [combo_select()], called by [qda_study()] on each split.
#'
#' **Nothing here is private.** The filter reads every subject's counts and
#' group label (the test subjects' too), and with `denominator = "all"` (or
#' a pseudocount) every genus enters each subject's total; the features are
#' exact functions of the raw data. A private estimator applied to `x`
#' protects the feature matrix as given, not the raw counts, and the choice
#' of genera stays an exact statistic of all subjects.
#'
#' @param data A [combo_read()] result.
#' @param min_samples Minimum number of subjects (per group when `by_group`)
#'   in which a genus must be present.
#' @param by_group Apply `min_samples` within each group (`TRUE`) or overall.
#' @param zero `"pseudocount"` or `"zeros"` (see Details).
#' @param pseudocount The positive value used for zero replacement.
#' @param denominator `"all"` or `"kept"` genera for relative abundances.
#' @param transform `"log"` or `"clr"`.
#' @return An object of class `combo_features`: a list with `x` (numeric
#'   matrix, subjects x kept genera), `group`, `bmi`, `genera` and `settings`;
#'   class `dp_nonprivate` too (features of the raw data).
#' @examples
#' counts <- matrix(c(5, 0, 3, 9, 1, 0, 2, 7, 4, 1, 8, 0), 4, 3,
#'                  dimnames = list(paste0("s", 1:4), c("A", "B", "C")))
#' data <- structure(list(counts = counts, bmi = c(22, 27, 21, 30),
#'                        group = factor(c("lean", "obese", "lean", "obese"))),
#'                   class = "combo_data")
#' combo_preprocess(data, min_samples = 1)$x
#' @template ref-combo
#' @template param-dots-none
#' @export
combo_preprocess <- function(data, min_samples = 4, by_group = TRUE,
                             zero = "pseudocount", pseudocount = 0.5,
                             denominator = "all", transform = "log", ...) {
  refuse_unknown_args("combo_preprocess", ...)
  if (missing(data)) abort_missing("data")
  check_combo_data(data, "data")
  min_samples <- check_count(min_samples, "min_samples", min = 0)
  check_flag(by_group, "by_group")
  zero <- check_choice(zero, c("pseudocount", "zeros"), "zero")
  pseudocount <- check_number(pseudocount, "pseudocount", lower = 0, upper = 1e150)
  denominator <- check_choice(denominator, c("all", "kept"), "denominator")
  transform <- check_choice(transform, c("log", "clr"), "transform")
  counts <- data$counts
  present <- counts > 0
  keep <- if (by_group) {
    Reduce(`&`, lapply(split(seq_len(nrow(counts)), data$group),
                       function(i) colSums(present[i, , drop = FALSE]) >= min_samples))
  } else {
    colSums(present) >= min_samples
  }
  if (sum(keep) < 2L) abort("only %d genera pass the filter; lower `min_samples`.", sum(keep), .arg = "min_samples")
  z <- if (zero == "pseudocount") counts + pseudocount else ifelse(counts == 0, pseudocount, counts)
  total <- if (denominator == "all") rowSums(z) else rowSums(z[, keep, drop = FALSE])
  if (!all(is.finite(total))) {
    abort("`data`: a subject's counts sum beyond the double range, so its relative abundances are not numbers; rescale the counts.",
          .arg = "data")
  }
  x <- log(z[, keep, drop = FALSE] / total)
  if (transform == "clr") x <- x - rowMeans(x)
  structure(list(x = x, group = data$group, bmi = data$bmi, genera = colnames(x),
                 settings = list(min_samples = min_samples, by_group = by_group, zero = zero,
                                 pseudocount = pseudocount, denominator = denominator,
                                 transform = transform)),
            class = c("combo_features", "dp_nonprivate"))
}

#' @export
print.combo_features <- function(x, ...) {
  check_object(x, "combo_features", list(
    x = is_finite_matrix,
    settings = function(s) is.list(s) && is_num1(s$min_samples) && is_flag(s$by_group) && is_string(s$zero) &&
      is_num1(s$pseudocount) && is_string(s$transform) && is_string(s$denominator)))
  nonprivate_banner(x, "features computed from the raw data")
  s <- x$settings
  cat(sprintf("<combo_features> %d subjects x %d genera: present in >= %d samples%s, %s %s, %s relative abundance (denominator: %s genera)\n",
              nrow(x$x), ncol(x$x), s$min_samples, if (s$by_group) " of each group" else "",
              s$zero, format(s$pseudocount), s$transform, s$denominator))
  invisible(x)
}

#' Pick features by per-feature two-sample t-tests
#'
#' The paper's selection of the p = 25 genera: a two-sample t-test between the
#' two groups for each column, on the training part only, keeping the `p`
#' columns with the smallest p-values. Welch's test (`var_equal = FALSE`, R's
#' default) is our reading; the paper does not say which. A column without
#' spread in either group (constant there, or constant up to rounding, where
#' [stats::t.test()] stops with "data are essentially constant") gets
#' p-value 0 when the group means differ and 1 when they agree.
#'
#' @param x Numeric matrix (rows are subjects).
#' @param group Factor with two levels, one per row.
#' @param p Number of columns to keep.
#' @param var_equal Pooled-variance (`TRUE`) or Welch (`FALSE`) test.
#' @return Column indices of the `p` smallest p-values, in increasing order of
#'   p-value, with the (exact, non-private) p-values as attribute `"p_value"`
#'   and class `dp_nonprivate`.
#' @examples
#' x <- cbind(a = c(1, 2, 3, 7, 8, 9), b = c(1, 5, 2, 4, 3, 6), c = c(3, 1, 2, 2, 3, 1))
#' combo_select(x, factor(rep(c("lean", "obese"), each = 3)), p = 2)
#' @template ref-combo
#' @template param-dots-none
#' @export
combo_select <- function(x, group, p, var_equal = FALSE, ...) {
  refuse_unknown_args("combo_select", ...)
  x <- check_data_matrix(x, min_rows = 4L, unique_names = FALSE)  # (it selects by position)
  group <- check_group(group, nrow(x), min_per_group = 2L)
  if (nlevels(group) != 2L) abort("`group` must have exactly two levels for a two-sample t-test.")
  check_count(p, "p")
  check_flag(var_equal, "var_equal")
  if (p > ncol(x)) abort("`p` = %d exceeds the number of columns of `x` (%d).", as.integer(p), ncol(x))
  g1 <- group == levels(group)[1]
  pv <- apply(x, 2, function(v) t_test_p(v[g1], v[!g1], var_equal))
  sel <- order(pv)[seq_len(p)]
  # exact p-values of the data: labelled, still usable as column indices
  structure(sel, p_value = unname(pv[sel]), class = "dp_nonprivate")
}

# The two-sample t-test's p-value, or for a column without spread in either
# group (exactly, or "essentially constant": a standard error below
# t.test()'s own limit, 10 eps times the means, where t.test() stops with an
# unclassed error) 1 when the group means agree to that precision and 0
# when they differ: the groups differ for sure, or not at all.
t_test_p <- function(a, b, var_equal) {
  na <- length(a)
  nb <- length(b)
  va <- stats::var(a)
  vb <- stats::var(b)
  ma <- mean(a)
  mb <- mean(b)
  se <- if (var_equal) {
    sqrt(((na - 1) * va + (nb - 1) * vb) / (na + nb - 2) * (1 / na + 1 / nb))
  } else {
    sqrt(va / na + vb / nb)
  }
  tiny <- 10 * .Machine$double.eps * max(abs(ma), abs(mb))
  if (se == 0 || se < tiny) return(if (abs(ma - mb) <= tiny) 1 else 0)
  stats::t.test(a, b, var.equal = var_equal)$p.value
}

#' Locate a local copy of the COMBO data
#'
#' dpcov does not ship the COMBO data (see [combo_read()] for where public
#' copies come from). Users point [combo_read()] at the directory holding
#' their copy, directly (`combo_read("path/to/combo")`) or through the
#' environment variable `DPCOV_COMBO_DIR`, which this function returns when
#' it is set to an existing directory. Tests and the QDA vignette call it and
#' skip the parts that need the data when it returns `NULL`.
#'
#' As a development convenience only, when the variable is unset it also
#' looks for a directory `shared/data` (holding `combo98/` or `combo96/`) in
#' `start` or one of its ancestors, where the developers keep their copy
#' beside the source checkout.
#'
#' @param start Directory where the upward search begins.
#' @return A directory path for [combo_read()], or `NULL` if none is found.
#' @examples
#' combo_data_dir(tempdir())
#' @template ref-combo
#' @template param-dots-none
#' @export
combo_data_dir <- function(start = getwd(), ...) {
  refuse_unknown_args("combo_data_dir", ...)
  if (!is_string(start)) abort("`start` must be a single directory path.")
  env <- Sys.getenv("DPCOV_COMBO_DIR", "")
  if (nzchar(env) && dir.exists(env)) return(normalizePath(env))
  d <- normalizePath(start, mustWork = FALSE)
  repeat {
    cand <- file.path(d, "shared", "data")
    if (dir.exists(file.path(cand, "combo98")) || dir.exists(file.path(cand, "combo96"))) return(cand)
    parent <- dirname(d)
    if (identical(parent, d)) return(NULL)
    d <- parent
  }
}
