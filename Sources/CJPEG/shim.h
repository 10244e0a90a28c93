// libjpeg(-turbo). jpeglib.h uses FILE and size_t without including their
// headers, so they come first.
#include <stddef.h>
#include <stdio.h>
#include <jpeglib.h>
