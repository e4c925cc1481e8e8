// Option ranges: declared in the public header edgeq/option_range.h (the front ends' door); this
// name stays for the library's own files.
#pragma once
#include "edgeq/option_range.h"
