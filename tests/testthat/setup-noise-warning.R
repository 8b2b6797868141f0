# Many tests release at small n epsilon on purpose (audits, sweeps, edge
# cases): the release-time dpcov_noise_warning is off for the suite, and
# test-diagnostics.R turns it on where it is the subject.
options(dpcov.noise_warning = FALSE)
