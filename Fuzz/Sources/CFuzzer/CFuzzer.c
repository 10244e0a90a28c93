// A header-only module: the driver it declares is in libFuzzer's runtime.
#include "CFuzzer.h"
