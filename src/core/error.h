// Errors (edgeq::Error, fail, EDGEQ_CHECK): declared in the public header edgeq/error.h (the front ends' door); this
// name stays for the library's own files.
#pragma once
#include "edgeq/error.h"
