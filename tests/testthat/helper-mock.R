# A function of a namespace replaced while `code` runs (testthat's
# local_mocked_bindings() needs testthat >= 3.1.7; Debian ships 3.1.6).
with_binding <- function(ns, name, value, code) {
  env <- asNamespace(ns)
  old <- get(name, envir = env)
  locked <- bindingIsLocked(name, env)
  if (locked) unlockBinding(name, env)
  assign(name, value, envir = env)
  on.exit({
    assign(name, old, envir = env)
    if (locked) lockBinding(name, env)
  })
  force(code)
}

# stats::runif() replaced by a queue while `code` runs: each call takes the
# next element of `draws` (its first n values), so a test chooses exactly
# the uniforms a sampler sees.
with_runif_queue <- function(draws, code) {
  with_binding("stats", "runif", function(n, ...) {
    d <- draws[[1L]]
    draws[[1L]] <<- NULL
    d[seq_len(n)]
  }, code)
}
