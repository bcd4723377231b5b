/* A request's token budget (params.budget) and plan (params.plan): the measure phase and the
 * shares.
 *
 * With either, a request first measures every file on its lanes (stat and the head the reader
 * reads anyway; nothing is decoded or formatted, but for a notebook or an office document of up
 * to 4 MiB under a budget, read whole on a job to be priced as written), then decides on the loop thread: a plan
 * answers every text file and picture from that measure alone (a PDF, a notebook, a document
 * is read to be priced); a budget gives each file a fair share of the tokens (water-filling in
 * request order, with a floor: see budget.c) and the read phase reads only the files admitted,
 * each cut to its share as its element is written (budget-cut.h). The answer's first file
 * always gets a share, so that a continuation moves on. A file left out is answered
 * omitted="budget" with the estimate of the whole file.
 *
 * Everything is priced as the answer's format writes it (its Formatter's markup and frame, its
 * TokensPricing's pictures): no call here names a format.
 *
 * These are the request's policy when it has a budget or a plan (policy.c puts them in its
 * table; request.c and settle.c call only the policy). The measure and the per-file calls run on
 * pool threads, each touching only its own file i; budget_new, budget_decide and budget_settle
 * run where the request says. */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/readers/reader.h"
#include "formatters/format.h"
#include "formatters/result.h"
#include "formatters/tokens.h"
#include "ipc/read-params.h"

/* The floor of a share, in tokens: when the fair share of every file would fall below it (or
 * below a quarter of the budget, when that is less), the files are admitted in request order
 * while each can have at least this much, and the rest are omitted. */
#define BUDGET_FLOOR_TOKENS 1000

/* A cut text file shows at least this many tokens, else it is omitted: the cut's notice alone
 * costs about 25. */
#define BUDGET_MIN_CUT_TOKENS 64

/* The markup of an entry, without its path (which is priced as it is), in estimated tokens:
 * a <Content> start tag with the attributes of a text file read (type, bytes, lines,
 * modified, etag, tokens, encoding, eol, truncated, shown), the CDATA wrapper and the end
 * tag; an omitted file's or a refusal's empty element; the summary. Upper bounds measured on
 * Go files (tests/test-budget.c checks them): the answer's last check prices the real
 * elements, these only decide which files are read. */
#define BUDGET_MARKUP_SHOWN 80
#define BUDGET_MARKUP_LISTED 60
#define BUDGET_SUMMARY_TOKENS 70

/* Files the budget leaves out are listed one by one in at most this share of it (percent);
 * the rest are summarized in one element. */
#define BUDGET_LIST_SHARE 10

typedef struct Budget Budget;

/* The budget and plan of a request of p->n_paths files, or NULL when p asks for neither;
 * everything is priced as fmt writes it (its markup and frame, formatters/format.h) and by
 * `pricing` (its pictures' formula). fmt is static. Free with budget_free(). */
Budget *budget_new(const ReadParams *p, const Formatter *fmt, const TokensPricing *pricing);

/* The provider pictures are tiled for (tokens_tile_target). */
static inline ImageTileTarget budget_tile_target(const TokensPricing *pricing) {
  return tokens_tile_target(pricing);
}

/* NULL is fine. */
void budget_free(Budget *b);

/* What measuring a file took. */
typedef enum {
  BUDGET_MEASURE_STAT, /* a stat (a file past what the budget can admit, or refused unopened) */
  BUDGET_MEASURE_HEAD, /* its head */
  BUDGET_MEASURE_READ, /* its head, and it is to be read whole to be priced (a notebook or an
                          office document up to 4 MiB): budget_measure_read(), where blocking
                          is allowed */
} BudgetMeasure;

/* Measures file i (options o) into res, which must be zeroed. On a lane. */
BudgetMeasure budget_measure(Budget *b, size_t i, const ReaderOptions *o, const Workspace *ws,
                             const atomic_bool *cancelled, FileResult *res);

/* Reads file i whole, as budget_measure() asked (BUDGET_MEASURE_READ), and prices it as its
 * element would be written; res is the measure's entry, kept. On a blocking job. */
void budget_measure_read(Budget *b, size_t i, const ReaderOptions *o, const Workspace *ws,
                         const atomic_bool *cancelled, const FileResult *res);

/* File i was answered without a read (an expansion's binary file or empty pattern), as f: it
 * takes no share and its entry stays as it is. On a lane, instead of budget_measure(). */
void budget_answered(Budget *b, size_t i, const FileResult *f);

/* Once every file is measured: decides what the read phase reads and each file's cap. Files
 * to read again get their res cleared; the others keep their final entry. */
void budget_decide(Budget *b, ReadResult *r);

/* True when file i's entry is final after the measure (a plan entry, an omission, a
 * refusal): the read phase reads nothing of it. */
bool budget_settled(const Budget *b, size_t i);

/* True when file i was left out and is most likely listed, but its head was not read (or not to
 * its end): the read phase counts it with budget_count() instead of reading it. */
bool budget_counting(const Budget *b, size_t i);

/* Reads the head of file i (up to 64 KiB) into res, cleared first, for its lines, type,
 * encoding and the estimate of the whole file; the entry stays omitted. On a lane. Returns
 * false, res cleared, for a PDF, a notebook or a document: the read phase reads it as any
 * other, and budget_enforce() lists it with the estimate of the whole file. */
bool budget_count(Budget *b, size_t i, const ReaderOptions *o, const Workspace *ws,
                  const atomic_bool *cancelled, FileResult *res);

/* The token cap of reading file i (ReaderOptions.max_tokens): 0 for none. */
int64_t budget_max_tokens(const Budget *b, size_t i);

/* False when no answer can pass the budget (not a plan; the answer's byte cap at the most a
 * byte can cost, with each element's markup, the summary and the frame, is within it): the
 * request is read as without a budget, with nothing measured, and only settled by it
 * (budget_enforce, budget_settle), which then cuts nothing and says the answer's tokens. */
bool budget_binds(const Budget *b);

/* File i was read (f->tokens counted): sets its whole-file estimate (tokens_total) and keeps it
 * within its share (a PDF, a notebook, a document cut on its pages, cells, slides, rows or
 * lines; text and pictures over it omitted, but for the answer's first file), or turns it into
 * a plan entry, or a listed one. On its thread. */
void budget_enforce(Budget *b, size_t i, FileResult *f);

/* At assembly, once every file is read, in request order: keeps the whole answer the model
 * reads (each entry's content and XML markup, the <ReadResults> frame) within the budget.
 * A file that would pass it is omitted; files omitted are listed one by one while they fit
 * in BUDGET_LIST_SHARE percent of the budget; the entries from the first that fits no more
 * are summarized (FileResult.summarized, and .summary on the first). Sets r->answer_tokens.
 * changed[i] (n_files of them, false on entry) is set for each file whose piece must be
 * formatted again. Nothing for NULL b, a plan or no budget. */
void budget_settle(const Budget *b, ReadResult *r, bool *changed);
