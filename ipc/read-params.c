#include "ipc/read-params.h"
