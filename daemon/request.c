/* to be written */
#include <stddef.h>
