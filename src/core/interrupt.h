// SIGINT / SIGTERM scopes: declared in the public header edgeq/interrupt.h (the front ends' door); this
// name stays for the library's own files.
#pragma once
#include "edgeq/interrupt.h"
