/* What one request may cost the worker process: CPU time and address space. */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* Sanitizer builds reserve terabytes of address space for their shadow memory: no address-space
 * limit there, and their reports on stderr must be seen. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define WORKER_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) ||                         \
    __has_feature(memory_sanitizer)
#define WORKER_SANITIZED 1
#endif
#endif

/* Sets the soft limits for the next request: CPU seconds a little past budget_ms, counted from
 * the CPU time the worker has used so far (readerd kills it at the budget; this is the
 * backstop), and max_memory of address space (not in sanitizer builds). Soft limits only, never
 * above the hard ones: the same worker serves PDFs and pictures, each setting its own. */
void worker_limits(uint32_t budget_ms, size_t max_memory);
