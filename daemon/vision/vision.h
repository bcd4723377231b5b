/* One readImages call on the loop: the files read by the read pipeline (request.h) into
 * pictures sized for the detail asked, then one HTTP request to the vision endpoint (http.h),
 * then its answer. Cancelling stops whichever runs. Loop thread only. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include <uv.h>

#include "daemon/readers/workspace.h"
#include "daemon/vision/vision-body.h"
#include "daemon/vision/vision-target.h"
#include "ipc/read-images-params.h"

/* JSON-RPC error codes of readImages (docs/protocol.md). */
#define VISION_ERROR_ENDPOINT (-32001) /* the endpoint failed: HTTP status, timeout, refused... */
#define VISION_ERROR_NO_IMAGE (-32002) /* no file gave a picture: nothing was asked */

/* The long edges the details send at most, and high's short side. */
#define VISION_LOW_MAX_EDGE 512
#define VISION_HIGH_MAX_EDGE 2048
#define VISION_HIGH_MAX_SHORT 768

typedef struct VisionCall VisionCall;

/* Called once on the loop when the call ended; the callback must eventually call
 * vision_call_free(). */
typedef void (*VisionDoneCb)(VisionCall *call, void *data);

/* Starts a call: takes *params and *target (both zeroed), a reference on ws (may be NULL). */
VisionCall *vision_call_start(uv_loop_t *loop, ReadImagesParams *params, VisionTarget *target,
                              Workspace *ws, VisionDoneCb done_cb, void *data);

/* Stops the call: done_cb follows with the call cancelled. Safe to call more than once and
 * after it ended. */
void vision_call_cancel(VisionCall *call);

/* After done_cb: 0 with the result in vision_call_result_json(); -ECANCELED; or an error code
 * (VISION_ERROR_*) with its message in vision_call_error() (never holding the key) and its data
 * in vision_call_error_data(). */
int vision_call_status(const VisionCall *call);

/* The result object (status 0), JSON text; g_free it; length in *ret_len (may be NULL). */
char *vision_call_result_json(const VisionCall *call, size_t *ret_len);

/* The <ReadImagesResult> XML (status 0: with the answer; else without); g_free it. */
char *vision_call_result_xml(const VisionCall *call);

/* The answer text alone (status 0); borrowed. */
const char *vision_call_answer(const VisionCall *call);

/* The error message (status an error code); borrowed. */
const char *vision_call_error(const VisionCall *call);

/* The error's data, JSON text (status an error code); g_free it. */
char *vision_call_error_data(const VisionCall *call);

/* The files as read (status 0 or an error code), for their per-file codes; borrowed. */
const ReadResult *vision_call_files(const VisionCall *call);

/* The `data` given to vision_call_start(). */
void *vision_call_get_data(const VisionCall *call);

/* Frees an ended call. NULL is fine. */
void vision_call_free(VisionCall *call);
