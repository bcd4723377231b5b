/* Pure line engine: to be written. */
#include "daemon/text.h"
