#include "daemon/text.h"
