library(testthat)
library(dpcov)

test_check("dpcov")
