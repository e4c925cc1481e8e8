#include "runtime/executor.h"
// Placeholder: implementation in progress.
