// Umbrella header for the dpcov C++ core.
#ifndef DPCOV_DPCOV_H
#define DPCOV_DPCOV_H
#include "rng.h"
#include "wishart.h"
#include "gram.h"
#include "noise.h"
#include "compress.h"
#endif
