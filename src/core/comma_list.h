// Comma-separated values: declared in the public header edgeq/text.h (the front ends' door); this
// name stays for the library's own files.
#pragma once
#include "edgeq/text.h"
