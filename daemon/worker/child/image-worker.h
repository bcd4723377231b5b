/* Image conversion in the worker process (`readerd-worker`, pdf-worker.h), so that a
 * decoder that spins or crashes on a hostile file (librsvg's filters, TIFF, a damaged BMP)
 * costs that file only: readerd kills the worker at the time budget or on cancel. The worker
 * gets a PDF_REQ_IMAGE record (pdf-wire.h) and a descriptor holding exactly the bytes to
 * decode, runs image_convert() (or only decodes, to check a file sent as it is), and answers
 * PDF_RES_IMAGE (one per tile when the picture was tiled) or PDF_RES_IMAGE_ERROR, then
 * PDF_RES_END. image-remote.h is readerd's side. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#define IMAGE_WORKER_MAX_MEMORY ((size_t)1024 * 1024 * 1024) /* RLIMIT_AS while converting */
#define IMAGE_WORKER_MAX_INPUT ((size_t)32 * 1024 * 1024)    /* bytes of the descriptor read */

/* Bits of PDF_REQ_IMAGE's flags: the fields of ImageConvertOptions, and what to do. */
typedef enum {
  IMAGE_WORKER_PHOTO = 1 << 0,
  IMAGE_WORKER_VECTOR = 1 << 1,
  IMAGE_WORKER_CHECK_ROWS = 1 << 2,
  IMAGE_WORKER_CHECK_ONLY = 1 << 3, /* decode and drop: image_convert_check() */
  IMAGE_WORKER_TILE_AUTO = 1 << 4,  /* ImageConvertOptions.tile: IMAGE_TILE_AUTO */
  IMAGE_WORKER_TILE_ALWAYS = 1 << 5, /* IMAGE_TILE_ALWAYS (neither bit: never) */
  IMAGE_WORKER_TILE_OPENAI = 1 << 6, /* .tile_target: IMAGE_TILE_FOR_OPENAI */
} ImageWorkerFlag;

/* Serves one image request in the worker: `req` is PDF_REQ_IMAGE's payload, data_fd the
 * descriptor that came with it (closed here; -1 when none came). Writes the answer to fd 1
 * and returns, so that the worker can wait for its next request; exits the process when
 * readerd cannot be written to. */
void image_worker_serve(const uint8_t *req, size_t req_len, int data_fd);
