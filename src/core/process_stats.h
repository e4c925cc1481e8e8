// Process-level measurements: declared in the public header edgeq/machine.h (the front ends' door); this
// name stays for the library's own files.
#pragma once
#include "edgeq/machine.h"
