#include "formatters/result-json.h"
