/* The plain policy, and the budget's operations as a policy (policy.h). */
#include "daemon/request/policy.h"

#include <glib.h>

#include "daemon/request/budget.h"

/* ---- plain: every file read whole, nothing measured, nothing settled ---------------------- */

static PolicyMeasured plain_measure(void *self, size_t i, const ReaderOptions *o,
                                    const Workspace *ws, const atomic_bool *cancelled,
                                    FileResult *f) {
  return POLICY_MEASURED_STAT;
}

static void plain_measure_job(void *self, size_t i, const ReaderOptions *o, const Workspace *ws,
                              const atomic_bool *cancelled, const FileResult *f) {
}

static void plain_answered(void *self, size_t i, const FileResult *f) {
}

static void plain_decide(void *self, ReadResult *r) {
}

static PolicyRead plain_read_step(const void *self, size_t i) {
  return POLICY_READ;
}

static bool plain_count(void *self, size_t i, const ReaderOptions *o, const Workspace *ws,
                        const atomic_bool *cancelled, FileResult *f) {
  return false;
}

static int64_t plain_max_tokens(const void *self, size_t i) {
  return 0;
}

static void plain_file_read(void *self, size_t i, FileResult *f) {
}

static void plain_settle(const void *self, ReadResult *r, bool *changed) {
}

static void plain_free(void *self) {
}

static const PolicyOps plain_ops = {
    .measures = false,
    .measure = plain_measure,
    .measure_job = plain_measure_job,
    .answered = plain_answered,
    .decide = plain_decide,
    .read_step = plain_read_step,
    .count = plain_count,
    .max_tokens = plain_max_tokens,
    .file_read = plain_file_read,
    .settle = plain_settle,
    .free = plain_free,
};

/* ---- the budget's -------------------------------------------------------------------------- */

static const PolicyMeasured measured_of[] = {
    [BUDGET_MEASURE_STAT] = POLICY_MEASURED_STAT,
    [BUDGET_MEASURE_HEAD] = POLICY_MEASURED_HEAD,
    [BUDGET_MEASURE_READ] = POLICY_MEASURE_JOB,
};

static PolicyMeasured budget_policy_measure(void *self, size_t i, const ReaderOptions *o,
                                            const Workspace *ws, const atomic_bool *cancelled,
                                            FileResult *f) {
  return measured_of[budget_measure(self, i, o, ws, cancelled, f)];
}

static void budget_policy_measure_job(void *self, size_t i, const ReaderOptions *o,
                                      const Workspace *ws, const atomic_bool *cancelled,
                                      const FileResult *f) {
  budget_measure_read(self, i, o, ws, cancelled, f);
}

static void budget_policy_answered(void *self, size_t i, const FileResult *f) {
  budget_answered(self, i, f);
}

static void budget_policy_decide(void *self, ReadResult *r) {
  budget_decide(self, r);
}

static PolicyRead budget_policy_read_step(const void *self, size_t i) {
  if (budget_counting(self, i))
    return POLICY_COUNT;
  return budget_settled(self, i) ? POLICY_SETTLED : POLICY_READ;
}

static bool budget_policy_count(void *self, size_t i, const ReaderOptions *o, const Workspace *ws,
                                const atomic_bool *cancelled, FileResult *f) {
  return budget_count(self, i, o, ws, cancelled, f);
}

static int64_t budget_policy_max_tokens(const void *self, size_t i) {
  return budget_max_tokens(self, i);
}

static void budget_policy_file_read(void *self, size_t i, FileResult *f) {
  budget_enforce(self, i, f);
}

static void budget_policy_settle(const void *self, ReadResult *r, bool *changed) {
  budget_settle(self, r, changed);
}

static void budget_policy_free(void *self) {
  budget_free(self);
}

static const PolicyOps budget_ops = {
    .measures = true,
    .measure = budget_policy_measure,
    .measure_job = budget_policy_measure_job,
    .answered = budget_policy_answered,
    .decide = budget_policy_decide,
    .read_step = budget_policy_read_step,
    .count = budget_policy_count,
    .max_tokens = budget_policy_max_tokens,
    .file_read = budget_policy_file_read,
    .settle = budget_policy_settle,
    .free = budget_policy_free,
};

/* ---- a budget that cannot bind: read as plain, settled by the budget ---------------------- */

static const PolicyOps loose_budget_ops = {
    .measures = false,
    .measure = plain_measure,
    .measure_job = plain_measure_job,
    .answered = plain_answered,
    .decide = plain_decide,
    .read_step = plain_read_step,
    .count = plain_count,
    .max_tokens = plain_max_tokens,
    .file_read = budget_policy_file_read,
    .settle = budget_policy_settle,
    .free = budget_policy_free,
};

/* ---- the same, in an answer that does not state its tokens: nothing to settle ------------- */

/* Settling a budget that cannot bind only sums the answer's tokens, writing every file's
 * markup once more to price it: a tenth of a large read through MCP, whose blocks state no
 * sum. */
static const PolicyOps loose_unstated_ops = {
    .measures = false,
    .measure = plain_measure,
    .measure_job = plain_measure_job,
    .answered = plain_answered,
    .decide = plain_decide,
    .read_step = plain_read_step,
    .count = plain_count,
    .max_tokens = plain_max_tokens,
    .file_read = budget_policy_file_read,
    .settle = plain_settle,
    .free = budget_policy_free,
};

/* See policy.h. */
void policy_init(Policy *ret, const ReadParams *p, const Formatter *fmt,
                 const TokensPricing *pricing, bool answer_tokens) {
  Budget *b = budget_new(p, fmt, pricing);

  ret->ops = b == NULL         ? &plain_ops
             : budget_binds(b) ? &budget_ops
             : answer_tokens   ? &loose_budget_ops
                               : &loose_unstated_ops;
  ret->self = b;
}

/* See policy.h. */
void policy_clear(Policy *p) {
  if (p->ops != NULL)
    p->ops->free(p->self);
  p->ops = &plain_ops;
  p->self = NULL;
}
