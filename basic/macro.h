/* Small macros shared by the daemon's files. */
#pragma once

#include <stddef.h>

/* The struct that embeds `ptr` as its member `member` (libuv handles live inside their owner). */
#define container_of(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))
