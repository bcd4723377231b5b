#include "ipc/jsonrpc.h"
