#include "daemon/detect.h"
