#include "ipc/frame.h"
