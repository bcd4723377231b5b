/* Image conversion from readerd's side: image_convert() run in a worker process
 * (image-worker.h) taken from the pool the PDF reader uses too (pdf-spawn.h) and given back
 * after a conversion that answered, watched against a time budget and the request's cancel
 * flag. A decoder that spins is killed at the budget, one that crashes costs its file only.
 * Runs on a worker thread; blocks until the answer, the budget or the cancel. Thread-safe. */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/worker/child/image-convert.h"
#include "formatters/result.h"

#define IMAGE_DEFAULT_BUDGET_MS 5000 /* per image; READERD_IMAGE_TIMEOUT_MS overrides */

/* Like image_convert() (same options, outputs and codes), in a worker process started from the
 * path pdf_set_worker_path() set. Besides image_convert()'s codes, returns with *ret_error set:
 *   -ETIME      the time budget ran out (the worker was killed), or its CPU limit;
 *   -ECANCELED  opt->cancelled was set (the worker was killed within 50 ms);
 *   -ECHILD     the worker died on the picture (a decoder crash);
 *   -ENOEXEC    no worker path was set, or no worker could be started. */
int image_remote_convert(const uint8_t *data, size_t len, const ImageConvertOptions *opt,
                         ImageOut **ret, size_t *ret_n, bool *ret_animated, char **ret_error);

/* Like image_convert_check() (decodes and drops the picture), in a worker process, with the
 * codes of image_remote_convert(). */
int image_remote_check(const uint8_t *data, size_t len, const char *loader,
                       const atomic_bool *cancelled, char **ret_error);

/* The time budget per image in milliseconds: READERD_IMAGE_TIMEOUT_MS when it is a number from
 * 1 to 3600000, else IMAGE_DEFAULT_BUDGET_MS. */
int image_remote_budget_ms(void);
