# Tests that do not seed themselves draw from one stream fixed here, so that a
# failure reproduces; DPCOV_TEST_SEED varies the stream (run the suite under
# several values to find a test that passes only by luck).
set.seed(as.integer(Sys.getenv("DPCOV_TEST_SEED", "20261123")))
