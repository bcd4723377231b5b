/* What a request's phases consult about each file: how much of it to read, and what becomes of
 * its entry. The phases (request.c: expand, measure, read, settle) are the same for every
 * request; the policy is what differs. The plain policy reads every file whole and has no
 * measure phase; the budget's (budget.h) measures every file first, decides the shares, cuts
 * each file to its share and keeps the answer within the budget.
 *
 * The per-file calls run on pool threads, each touching only its own file i; policy_decide and
 * policy_settle run where the request says (request.c). */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/readers/reader.h"
#include "formatters/format.h"
#include "formatters/result.h"
#include "ipc/read-params.h"

/* What the measure phase did with a file. */
typedef enum {
  POLICY_MEASURED_STAT, /* a stat, or nothing: next to no cost */
  POLICY_MEASURED_HEAD, /* its head was read */
  POLICY_MEASURE_JOB,   /* its head was read, and it must be read whole to be priced, where
                           blocking is allowed: policy_measure_job() on a job of its own */
} PolicyMeasured;

/* What the read phase does with a file. */
typedef enum {
  POLICY_READ,    /* read it, to its cap (policy_max_tokens) */
  POLICY_COUNT,   /* left out and listed: its head is counted (policy_count) rather than read */
  POLICY_SETTLED, /* its entry is final after the measure: nothing is read */
} PolicyRead;

typedef struct {
  bool measures; /* the request has a measure phase */
  PolicyMeasured (*measure)(void *self, size_t i, const ReaderOptions *o, const Workspace *ws,
                            const atomic_bool *cancelled, FileResult *f);
  void (*measure_job)(void *self, size_t i, const ReaderOptions *o, const Workspace *ws,
                      const atomic_bool *cancelled, const FileResult *f);
  void (*answered)(void *self, size_t i, const FileResult *f);
  void (*decide)(void *self, ReadResult *r);
  PolicyRead (*read_step)(const void *self, size_t i);
  bool (*count)(void *self, size_t i, const ReaderOptions *o, const Workspace *ws,
                const atomic_bool *cancelled, FileResult *f);
  int64_t (*max_tokens)(const void *self, size_t i);
  void (*file_read)(void *self, size_t i, FileResult *f);
  void (*settle)(const void *self, ReadResult *r, bool *changed);
  void (*free)(void *self);
} PolicyOps;

/* A request's policy: its operations and their state. Embed it. */
typedef struct {
  const PolicyOps *ops;
  void *self;
} Policy;

/* The policy of a request of p->n_paths files (its paths final): the budget's when p asks for a
 * budget or a plan, priced as fmt writes (pricing: its pictures' formula), else the plain one.
 * answer_tokens: the answer states its own tokens (format_states_answer_tokens); when it does
 * not, a budget that cannot bind has nothing to settle. fmt is static. Clear with
 * policy_clear(). */
void policy_init(Policy *ret, const ReadParams *p, const Formatter *fmt,
                 const TokensPricing *pricing, bool answer_tokens);

/* Frees the policy's state and makes it the plain one. Safe on a zeroed or cleared Policy. */
void policy_clear(Policy *p);

/* The measure phase, file i (options o) measured into f, which is zeroed: on a lane. */
static inline PolicyMeasured policy_measure(Policy *p, size_t i, const ReaderOptions *o,
                                            const Workspace *ws, const atomic_bool *cancelled,
                                            FileResult *f) {
  return p->ops->measure(p->self, i, o, ws, cancelled, f);
}

/* The measure phase, file i read whole to be priced (POLICY_MEASURE_JOB), f its measure's
 * entry: on a blocking job. */
static inline void policy_measure_job(Policy *p, size_t i, const ReaderOptions *o,
                                      const Workspace *ws, const atomic_bool *cancelled,
                                      const FileResult *f) {
  p->ops->measure_job(p->self, i, o, ws, cancelled, f);
}

/* The measure phase: file i was answered without being read (an expansion's binary file or
 * empty pattern), as f. */
static inline void policy_answered(Policy *p, size_t i, const FileResult *f) {
  p->ops->answered(p->self, i, f);
}

/* Between the measure and the read, on the loop thread: decides what is read, and how much. */
static inline void policy_decide(Policy *p, ReadResult *r) {
  p->ops->decide(p->self, r);
}

/* The read phase: what becomes of file i. */
static inline PolicyRead policy_read_step(const Policy *p, size_t i) {
  return p->ops->read_step(p->self, i);
}

/* The read phase, POLICY_COUNT: counts file i's head into f, cleared first. Returns false when
 * it must be read as any other (a PDF, a notebook, a document). */
static inline bool policy_count(Policy *p, size_t i, const ReaderOptions *o, const Workspace *ws,
                                const atomic_bool *cancelled, FileResult *f) {
  return p->ops->count(p->self, i, o, ws, cancelled, f);
}

/* The cap in tokens of reading file i (ReaderOptions.max_tokens): 0 for none. */
static inline int64_t policy_max_tokens(const Policy *p, size_t i) {
  return p->ops->max_tokens(p->self, i);
}

/* The read phase: file i was read as f (f->tokens counted); the policy keeps it within what it
 * may show. On its thread. */
static inline void policy_file_read(Policy *p, size_t i, FileResult *f) {
  p->ops->file_read(p->self, i, f);
}

/* The settle phase, every file read, in request order: keeps the whole answer within what the
 * policy allows; changed[i] (n_files of them, false on entry) set for each file whose piece
 * must be formatted again. */
static inline void policy_settle(const Policy *p, ReadResult *r, bool *changed) {
  p->ops->settle(p->self, r, changed);
}
