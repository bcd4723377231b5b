#include "formatters/result.h"
