#include "daemon/reader.h"
