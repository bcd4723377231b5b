#include "formatters/xml.h"
