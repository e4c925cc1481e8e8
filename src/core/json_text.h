// JSON text: declared in the public header edgeq/json.h (the front ends' door); this
// name stays for the library's own files.
#pragma once
#include "edgeq/json.h"
