/* readImages' answer as the wire shows it: the result object {answer, model, provider, usage,
 * images, xml, files, bytes, lines} and its <ReadImagesResult> XML, and the data of its
 * errors. Pure: the files and the model's answer in, text out. */
#pragma once

#include <stddef.h>

#include "daemon/vision/vision-body.h"
#include "formatters/result.h"

/* The detail sent with each picture, in the order of the files' images (files read only),
 * and what a result says of the request. Borrowed. */
typedef struct {
  const ReadResult *files;
  const char *const *details; /* one per picture sent; NULL entries for none */
  VisionProvider provider;
  const VisionAnswer *answer; /* NULL on an error */
} VisionReport;

/* The <ReadImagesResult> document: <Answer> with the model's text, then the <Content> of
 * each file as `read` writes it (image='k' counting the pictures sent). g_free the result. */
char *vision_result_xml(const VisionReport *rep);

/* The result object, JSON text. g_free the result; its length in *ret_len (may be NULL). */
char *vision_result_json(const VisionReport *rep, size_t *ret_len);

/* The data of an error answer: {httpStatus (when not 0), images, xml, files, bytes, lines},
 * JSON text; the XML then has no <Answer>. g_free the result. */
char *vision_error_data_json(const VisionReport *rep, long http_status);
