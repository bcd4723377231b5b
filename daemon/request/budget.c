#include "daemon/request/budget.h"

#include <string.h>

#include <glib.h>

#include "basic/image-tiles.h"
#include "daemon/request/budget-cut.h"
#include "daemon/readers/image-header.h"
#include "daemon/readers/lines.h"
#include "daemon/readers/text.h"
#include "formatters/price-memo.h"
#include "formatters/tokens.h"

/* The head measured when the shares will be about the floor: 8 KiB. */
#define BUDGET_FLOOR_SAMPLE 8192

/* A notebook or an office document up to this size is read at the measure, to be priced as
 * written (budget_measure_read); a larger one is guessed from its size or head. */
#define BUDGET_READ_AT_MEASURE ((int64_t)4 * 1024 * 1024)

/* What a read may add to the element of a file read at the measure (an expansion's from='N', an
 * image's index), in tokens. */
#define BUDGET_READ_SLACK 16

/* Tokens kept for the notice of a cut text: what the line engine keeps for it. */
#define NOTICE_TOKENS LINES_NOTICE_TOKENS

typedef enum {
  ITEM_REFUSED,   /* failed at the measure: its entry is final */
  ITEM_TEXT,      /* text: cut on a line boundary to any share */
  ITEM_IMAGE,     /* a picture whose size the header gave: whole or nothing */
  ITEM_OPAQUE,    /* a PDF, an SVG to render, a picture without a readable header: its cost is
                     known only once read */
  ITEM_UNSAMPLED, /* past what the budget can admit: opened and checked, its head not read */
} ItemKind;

typedef struct {
  ItemKind kind;
  int64_t want;    /* estimated tokens a read would show */
  int64_t total;   /* estimated tokens of the whole file */
  int64_t grant;   /* the share given: tokens at most */
  int64_t markup;  /* estimated tokens of its element's markup when it is shown */
  int64_t listing; /* estimated tokens of its element when it is listed omitted (or refused) */
  bool guessed;    /* want was extrapolated from a head shorter than what a read shows */
  bool settled;    /* the entry is final after the measure */
  bool count;      /* left out and listed: the read phase reads its head for lines and tokens */
  bool head_refused; /* ITEM_REFUSED for what its head held: a stat alone would have passed it */
  bool cuttable;     /* ITEM_OPAQUE that budget-cut.c cuts once read: a PDF, notebook, document */
  int64_t tile;      /* ITEM_IMAGE sent as tiles: one tile's price (it is cut by tiles), else 0 */
  /* What its measure added to floor_sum; 0 until then. Set by the lane that measured it, read
   * by those measuring the files after it. */
  atomic_int_fast64_t floor_cost;
} Item;

/* What a picture cut by tiles writes besides its tiles: a <Tile> element each, and the notice
 * naming the tiles left out and the offset to read on with. */
#define TILE_CUT_TOKENS 80

/* A <Tile> element at its widest, with its line: the markup each tile adds to its file's; and
 * what a tiled picture's <Content> states besides a text's (its media type, sizes, tiles). */
#define TILE_MARKUP_TOKENS 30
#define TILED_MARKUP_TOKENS 40

/* True when the picture can be cut to a share of `level` tokens: sent as tiles, one of which
 * fits with the notice. */
static bool tiles_fit(const Item *it, int64_t level) {
  return it->tile > 0 && it->tile + TILE_CUT_TOKENS <= level;
}

/* True when nothing says what the file costs until it is read: it takes the level. */
static bool unknown_cost(const Item *it) {
  return it->kind == ITEM_UNSAMPLED || (it->kind == ITEM_OPAQUE && !it->cuttable);
}

struct Budget {
  int64_t tokens; /* budget.tokens, 0 for a plan without a budget */
  int64_t floor;  /* the least useful share (BUDGET_FLOOR_TOKENS, or a quarter of the budget) */
  /* min(cost, floor) summed over the files measured so far, in any order. Past the budget,
   * the fair share of every file is below the floor: the files are admitted in request order
   * and none after the files that pass it can be, so their heads are not read. */
  atomic_int_fast64_t floor_sum;
  /* The first file at which the files up to it were found to pass the budget at the floor (a
   * sum that only grows): none after it is admitted. SIZE_MAX until then. */
  atomic_size_t floor_past;
  int64_t frame; /* tokens of <ReadResults …> and its end tag, at the widest numbers */
  int64_t skip;  /* the request's skip: the answer's first entry is this one of its paths */
  bool plan;
  bool binds; /* false: no answer can pass the budget (cannot_bind): nothing is measured */
  bool measuring;
  size_t first;          /* the answer's first entry that is not refused: it always gets a share */
  int64_t first_room;    /* what it may write at most, alone in the answer (markup included) */
  TokensPricing pricing; /* the format's: pictures by its provider's formula */
  const Formatter *fmt;  /* the answer's: what it writes around each file, and its frame */
  int max_dimension;
  ImageTileMode tile; /* images.tile: a tall picture is priced as the tiles it is sent as */
  Item *items;
  size_t n;
};

/* The answer's frame at its widest, as fmt writes it: for XML, <ReadResults> with every total at
 * twelve digits, and </ReadResults>. */
static int64_t frame_tokens(const Formatter *fmt, int64_t budget) {
  ReadResult r = {.budget = budget, .answer_tokens = 999999999999};
  FileResult f = {
      .bytes = 999999999999, .type = FILE_TYPE_TEXT, .lines = 999999999999, .tokens = 999999999999};

  r.files = &f;
  r.n_files = 1;
  return format_frame_tokens(fmt, &r);
}

/* The smallest picture a reader sends, in base64 bytes: no picture file of any kind read is
 * under 24 bytes. Each picture of an answer takes at least this much of its byte cap. */
#define PICTURE_MIN_BASE64 32

/* The most a byte of an answer's pieces can cost, in thousandths of a token: a byte of text,
 * or a byte of a picture at its widest as sent (a tile is smaller) taking the least room any
 * picture takes. */
static int64_t byte_cost_bound_milli(const ReadParams *p, const TokensPricing *pricing) {
  int side = MAX(p->max_dimension, READ_DEFAULT_MAX_DIMENSION);
  int64_t picture = tokens_image(pricing, side, side) * 1000 / PICTURE_MIN_BASE64 + 1;

  return MAX(tokens_text_bound_milli(1) - tokens_text_bound_milli(0), picture);
}

/* True when no answer to p can pass its budget: each answer carries at most
 * p->max_answer_bytes of pieces (content and markup, pictures included; past them the files
 * are summed up in one element), so its cost is at most that many bytes at the most a byte
 * costs, plus what pricing each element in two parts may add (the end of each text, rounding
 * up, the CDATA joint), the summary and the frame. */
static bool cannot_bind(const ReadParams *p, const TokensPricing *pricing, int64_t frame) {
  int64_t per_file = 2 * tokens_text_bound_milli(0) + 4000, longest = 0, bound;

  for (size_t i = 0; i < p->n_paths; i++)
    longest = MAX(longest, (int64_t)strlen(p->paths[i].path));
  bound = byte_cost_bound_milli(p, pricing) * (int64_t)p->max_answer_bytes +
          (int64_t)p->n_paths * per_file + tokens_text_bound_milli((size_t)longest + 1024);
  return tokens_from_milli(bound) + frame <= p->budget_tokens;
}

Budget *budget_new(const ReadParams *p, const Formatter *fmt, const TokensPricing *pricing) {
  Budget *b;

  if (p->budget_tokens <= 0 && !p->plan)
    return NULL;
  b = g_new0(Budget, 1);
  b->tokens = p->budget_tokens;
  b->floor = MIN((int64_t)BUDGET_FLOOR_TOKENS, MAX(b->tokens / 4, 1));
  atomic_init(&b->floor_sum, 0);
  atomic_init(&b->floor_past, SIZE_MAX);
  b->plan = p->plan;
  b->measuring = true;
  b->pricing = *pricing;
  b->max_dimension = p->max_dimension;
  b->skip = p->skip;
  b->fmt = fmt;
  b->frame = frame_tokens(fmt, b->tokens);
  b->binds = b->plan || !cannot_bind(p, pricing, b->frame);
  b->tile = p->image_tile == READ_IMAGE_TILE_NEVER    ? IMAGE_TILE_NEVER
            : p->image_tile == READ_IMAGE_TILE_ALWAYS ? IMAGE_TILE_ALWAYS
                                                      : IMAGE_TILE_AUTO;
  b->n = p->n_paths;
  b->items = g_new0(Item, b->n);
  return b;
}

void budget_free(Budget *b) {
  if (b == NULL)
    return;
  g_free(b->items);
  g_free(b);
}

/* A line's number as the line engine writes it ("%6d\t"), counted on in place: a measure
 * numbers every line of thousands of heads, and formatting each number anew was a fifth of
 * its cost. */
typedef struct {
  char s[24];
  size_t len;
} LineNumber;

static void line_number_init(LineNumber *ln) {
  memcpy(ln->s, "     1\t", 7);
  ln->len = 7;
}

static void line_number_next(LineNumber *ln) {
  size_t i = ln->len - 2; /* its last digit */

  for (;;) {
    if (ln->s[i] == ' ') {
      ln->s[i] = '1'; /* the carry takes a blank of the padding */
      return;
    }
    if (ln->s[i] != '9') {
      ln->s[i]++;
      return;
    }
    ln->s[i] = '0';
    if (i == 0) {
      /* Past six digits the number grows by one. */
      memmove(ln->s + 1, ln->s, ln->len);
      ln->s[0] = '1';
      ln->len++;
      return;
    }
    i--;
  }
}

/* What the measure of a text sample found. */
typedef struct {
  int64_t lines;       /* lines in the sample */
  int64_t total_milli; /* of every line of the sample, as shown */
  int64_t shown_milli; /* of the lines of the window within the sample */
  size_t shown_bytes;  /* content bytes of those */
  size_t consumed;     /* sample bytes measured (whole lines only) */
  bool capped;         /* the content cap stopped the window within the sample */
} TextMeasure;

/* Numbered lines gathered to be priced together: the scan is several times faster over a
 * buffer of lines than fed a line number, a line and its newline at a time, and the estimate is
 * exactly additive over pieces that end with a newline, so the sum is the same. */
typedef struct {
  char *buf;
  size_t len;
  int64_t milli; /* of the lines priced so far */
} LinePricer;

/* Small enough to stay in the first-level cache with the head it copies from, large enough
 * that each flush is priced as several scans side by side. */
#define LINE_PRICER_SIZE 8192

/* A flush is cut where the lines make it, the same for the same content: a file measured again
 * finds its flushes in the daemon's price memo (formatters/price-memo.h). */
static void pricer_flush(LinePricer *lp) {
  lp->milli += price_memo_text_milli(price_memo_installed(), lp->buf, lp->len);
  lp->len = 0;
}

/* The estimate of every line added so far. */
static int64_t pricer_milli(LinePricer *lp) {
  pricer_flush(lp);
  return lp->milli;
}

static void pricer_add(LinePricer *lp, const char *prefix, size_t plen, const char *body,
                       size_t blen) {
  if (lp->len + plen + blen + 1 > LINE_PRICER_SIZE) {
    pricer_flush(lp);
    if (plen + blen + 1 > LINE_PRICER_SIZE) {
      TokenCounter c;

      token_counter_init(&c);
      token_counter_feed(&c, prefix, plen);
      token_counter_feed(&c, body, blen);
      token_counter_feed(&c, "\n", 1);
      lp->milli += token_counter_milli(&c);
      return;
    }
  }
  memcpy(lp->buf + lp->len, prefix, plen);
  memcpy(lp->buf + lp->len + plen, body, blen);
  lp->buf[lp->len + plen + blen] = '\n';
  lp->len += plen + blen + 1;
}

/* Prices the sample as the line engine would show it, each line with its number and a
 * newline; the window's cost is the count at its end less the count at its start. */
static void measure_lines(const ReaderSample *s, const ReaderOptions *o, TextMeasure *m) {
  const char *p = (const char *)s->head, *end = p + s->head_len;
  int64_t last = o->limit > INT64_MAX - o->offset ? INT64_MAX : o->offset + o->limit - 1;
  int64_t start_milli = -1, end_milli = -1;
  static __thread char buf[LINE_PRICER_SIZE]; /* the lane thread's own */
  LinePricer lp = {buf, 0, 0};
  LineNumber number;

  memset(m, 0, sizeof *m);
  /* Cut short, the sample's last line goes on past it: only whole lines count. */
  if (!s->eof) {
    const char *nl = memrchr(p, '\n', s->head_len);

    end = nl != NULL ? nl + 1 : p;
  }
  m->consumed = (size_t)(end - p);
  line_number_init(&number);
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t len = nl != NULL ? (size_t)(nl - p) : (size_t)(end - p), body = len, plen = 0;

    if (body > 0 && p[body - 1] == '\r')
      body--;
    m->lines++;
    if (o->line_numbers)
      plen = number.len;
    if (m->lines == o->offset)
      start_milli = pricer_milli(&lp);
    if (m->lines >= o->offset && m->lines <= last && end_milli < 0) {
      /* The engine keeps 160 bytes for its notice under the cap; one line always shows. */
      if (m->shown_bytes > 0 && m->shown_bytes + plen + body + 1 + 160 > TEXT_MAX_CONTENT) {
        m->capped = true;
        end_milli = pricer_milli(&lp);
      } else {
        m->shown_bytes += plen + body + 1;
      }
    }
    /* The line after the window (last may be INT64_MAX: no + 1 on it). */
    if (m->lines - 1 == last && end_milli < 0)
      end_milli = pricer_milli(&lp);
    pricer_add(&lp, number.s, plen, p, body);
    line_number_next(&number);
    p = nl != NULL ? nl + 1 : end;
  }
  m->total_milli = pricer_milli(&lp);
  if (start_milli >= 0)
    m->shown_milli = (end_milli >= 0 ? end_milli : m->total_milli) - start_milli;
}

/* A text file: what a read would show and the whole file, from its head. A file past the head
 * is extrapolated by its size. */
static void measure_text(Budget *b, const ReaderSample *s, const ReaderOptions *o, Item *it,
                         FileResult *res) {
  int64_t bytes = res->bytes > 0 ? res->bytes : 0, last, shown, total;
  TextMeasure m;
  bool whole;

  it->kind = ITEM_TEXT;
  res->encoding = s->encoding;
  if (s->encoding != NULL &&
      (g_str_has_prefix(s->encoding, "utf-16") || g_str_has_prefix(s->encoding, "utf-32"))) {
    /* Not UTF-8 in the head: about a quarter token per character. */
    int64_t chars = bytes / (g_str_has_prefix(s->encoding, "utf-16") ? 2 : 4);

    it->total = chars / 4 + 1;
    it->want = MIN(it->total, (int64_t)(TEXT_MAX_CONTENT / 4)) + NOTICE_TOKENS;
    res->lines = -1;
    return;
  }
  measure_lines(s, o, &m);
  last = o->limit > INT64_MAX - o->offset ? INT64_MAX : o->offset + o->limit - 1;
  total = m.total_milli;
  shown = m.shown_milli;
  whole = s->eof && !m.capped && o->offset == 1 && m.lines <= last;
  if (!s->eof && m.consumed > 0) {
    double scale = (double)bytes / (double)m.consumed;
    double lines_est = (double)m.lines * scale;
    double per_byte = (double)m.total_milli / (double)m.consumed;

    total = (int64_t)((double)total * scale);
    /* The window runs on past the sample: its lines cost what the sample's did on average,
     * and never more than the content cap allows. */
    if (!m.capped && last > m.lines && m.lines > 0) {
      double more = MIN((double)last, lines_est) - (double)MAX(m.lines, o->offset - 1);

      if (more > 0)
        shown += (int64_t)(more * (double)m.total_milli / (double)m.lines);
      shown = MIN(shown, (int64_t)(per_byte * (double)TEXT_MAX_CONTENT));
    }
    /* Shown whole, most likely, when its lines and bytes are within the window and the cap. */
    whole = !m.capped && o->offset == 1 && lines_est <= (double)last &&
            (double)bytes * ((double)m.shown_bytes / (double)MAX(m.consumed, 1)) <
                (double)TEXT_MAX_CONTENT;
  }
  /* Past the head, the window's share of the file is a guess: never more than the file. */
  it->guessed = !s->eof && !m.capped && last > m.lines;
  shown = MIN(shown, total);
  it->total = tokens_from_milli(total);
  it->want = tokens_from_milli(shown) + (whole ? 0 : NOTICE_TOKENS);
  res->lines = s->eof ? m.lines : -1;
}

/* A picture: its size from the header, scaled as it would be sent, priced by the formula; a
 * picture sent as tiles, the tiles from `first_tile` on (1-based). */
static void measure_image(Budget *b, const ReaderSample *s, int64_t first_tile, Item *it,
                          FileResult *res) {
  int w = 0, h = 0, longest;
  ImageTilePlan tiles;

  it->kind = ITEM_OPAQUE;
  if (s->svg_render || !detect_is_web_image(s->kind) ||
      image_header_size(s->kind, s->head, s->head_len, &w, &h) < 0 || w <= 0 || h <= 0)
    return;
  if (image_tiles_plan(w, h, b->max_dimension, budget_tile_target(&b->pricing), b->tile, &tiles)) {
    /* Sent as tiles, each priced as sent, from the one asked for; the first tile's size is the
     * file's. */
    int64_t from = CLAMP(first_tile, 1, (int64_t)tiles.n);

    it->kind = ITEM_IMAGE;
    it->tile = tiles.n > 1 ? tokens_image(&b->pricing, tiles.out_width, tiles.out_height) : 0;
    it->total = (int64_t)tiles.n * tokens_image(&b->pricing, tiles.out_width, tiles.out_height);
    it->want = ((int64_t)tiles.n - from + 1) * tokens_image(&b->pricing, tiles.out_width,
                                                            tiles.out_height);
    it->markup += TILED_MARKUP_TOKENS + ((int64_t)tiles.n - from + 1) * TILE_MARKUP_TOKENS;
    res->width = tiles.out_width;
    res->height = tiles.out_height;
    return;
  }
  longest = MAX(w, h);
  if (longest > b->max_dimension) {
    w = MAX(1, (int)((double)w * b->max_dimension / longest + 0.5));
    h = MAX(1, (int)((double)h * b->max_dimension / longest + 0.5));
  }
  it->kind = ITEM_IMAGE;
  it->want = it->total = tokens_image(&b->pricing, w, h);
  res->width = w;
  res->height = h;
}

/* Its element's markup, shown and listed, from its path: priced, or for a file past what the
 * budget can admit (thousands of them, none shown) a token a byte at most, not priced. */
static void path_markup(Item *it, const char *path, bool priced) {
  int64_t n = priced ? tokens_str(path) : (int64_t)strlen(path);

  it->markup = BUDGET_MARKUP_SHOWN + n;
  it->listing = BUDGET_MARKUP_LISTED + n;
}

/* True when file i, measured as f, is a notebook or an office document small enough to be read
 * at the measure and priced as written (budget_measure_read). */
static bool read_at_measure(const Budget *b, const FileResult *f) {
  return !b->plan && b->tokens > 0 && f->bytes <= BUDGET_READ_AT_MEASURE &&
         (f->type == FILE_TYPE_NOTEBOOK || f->type == FILE_TYPE_DOCUMENT);
}

void budget_measure_read(Budget *b, size_t i, const ReaderOptions *o, const Workspace *ws,
                         const atomic_bool *cancelled, const FileResult *res) {
  Item *it = &b->items[i];
  FileResult f = {0};
  int64_t written;

  reader_read(o, ws, cancelled, &f);
  /* Gone or changed since its head was read: it keeps the guess, and the read phase says. */
  if (f.code == NULL && f.type == res->type) {
    file_result_count_tokens(&f, &b->pricing);
    written = budget_cut_written(&f, &b->pricing);
    /* Its <Content> tag is priced apart (it->markup); the tags of its cells, slides or sheets
     * are its own, and what the read adds to the tag (an expansion's from='N') is kept room. */
    it->want = MAX(written - it->markup, f.tokens) + BUDGET_READ_SLACK;
    /* Its whole-file estimate is its content's, as a listed file's always is. */
    it->total = MAX(budget_cut_extrapolate(&f, f.tokens), f.tokens);
    it->guessed = false;
  }
  file_result_clear(&f);
}

/* True when the files before i pass the budget at the floor, by what their measures found so
 * far: then i cannot be admitted, whatever the files not yet measured add. Only the files before
 * it count: a lane claims i and may be held before it gets here while the others measure the
 * files after it, and those must not decide whether i's head is read (budget_decide answers a
 * file by whether the files before it pass, and an unread head there would change the answer). */
static bool past_floor(Budget *b, size_t i) {
  size_t past = atomic_load(&b->floor_past);
  int64_t sum = 0;

  if (b->plan || b->tokens <= 0 || atomic_load(&b->floor_sum) <= b->tokens)
    return false;
  if (i > past)
    return true;
  for (size_t j = 0; j < i; j++) {
    sum += atomic_load(&b->items[j].floor_cost);
    if (sum > b->tokens) {
      while (j < past && !atomic_compare_exchange_weak(&b->floor_past, &past, j))
        ;
      return true;
    }
  }
  return false;
}

BudgetMeasure budget_measure(Budget *b, size_t i, const ReaderOptions *o, const Workspace *ws,
                             const atomic_bool *cancelled, FileResult *res) {
  Item *it = &b->items[i];
  size_t sample = b->tokens == 0 ? READER_SAMPLE_SMALL : READER_SAMPLE_SIZE;
  ReaderSample s;

  /* So many files that a floor each passes the budget: shares are about the floor (1,000
   * tokens, some 3.5 KiB of source), and a head of twice that says enough of a file's. */
  if (b->tokens > 0 && (int64_t)b->n * b->floor > b->tokens)
    sample = BUDGET_FLOOR_SAMPLE;

  /* Past what the budget can admit (a plan lists every file). */
  if (past_floor(b, i))
    sample = 0;

  path_markup(it, o->path, sample > 0);
  if (!reader_measure(o, ws, cancelled, sample, res, &s)) {
    it->kind = ITEM_REFUSED;
    it->head_refused = s.head_refused;
    return sample > 0 ? BUDGET_MEASURE_HEAD : BUDGET_MEASURE_STAT;
  }
  /* Answered unread (its etag is the client's): the entry is final, its markup all it costs. */
  if (res->unchanged) {
    it->kind = ITEM_REFUSED;
    return BUDGET_MEASURE_STAT;
  }
  if (sample == 0) {
    /* Its size alone says what it would cost: about four bytes a token. */
    it->kind = ITEM_UNSAMPLED;
    it->total = res->bytes > 0 ? res->bytes / 4 + 1 : 0;
    res->lines = -1;
    return BUDGET_MEASURE_STAT;
  }
  if (res->type == FILE_TYPE_TEXT)
    measure_text(b, &s, o, it, res);
  else if (res->type == FILE_TYPE_IMAGE)
    measure_image(b, &s, o->offset, it, res);
  else
    it->kind = ITEM_OPAQUE;
  /* Known once read: until then, about four bytes a token. A kind whose read is cut to its
   * share once read (a PDF, a notebook, a document) costs its row's guess, and may read up to
   * the level. */
  if (it->kind == ITEM_OPAQUE) {
    it->cuttable = s.row->guess != NULL;
    it->total = it->cuttable ? s.row->guess(s.head, s.head_len, s.eof, res->bytes)
                             : (res->bytes > 0 ? res->bytes / 4 + 1 : 0);
    it->want = it->total;
    it->guessed = it->cuttable;
  }
  atomic_store(&it->floor_cost, unknown_cost(it) ? b->floor : MIN(it->want, b->floor));
  atomic_fetch_add(&b->floor_sum, atomic_load(&it->floor_cost));
  /* Read now, on a blocking job: its share is then what it writes, not a guess from its size
   * (an office file is mostly zipped markup and media: the guess took several times what it
   * writes, a share no other file could have). The floor keeps its guess, as the measure
   * counted it: which files are opened must not depend on when a job ends. */
  if (it->kind == ITEM_OPAQUE && read_at_measure(b, res))
    return BUDGET_MEASURE_READ;
  return BUDGET_MEASURE_HEAD;
}

/* What file i costs at a water level: its estimate, capped by the level; what is known only
 * once read takes the level. */
static int64_t cost_at(const Item *it, int64_t level) {
  return unknown_cost(it) ? level : MIN(it->want, level);
}

/* The cap of reading file i: its cost at the level, or the level itself when its cost was
 * guessed (it may turn out bigger: the answer's last check keeps the budget). */
static int64_t grant_at(const Item *it, int64_t level) {
  return it->guessed ? level : cost_at(it, level);
}

/* The highest level at which the admitted files' costs and their markup fit in avail tokens
 * (max-min fairness: every file gets min(its estimate, level)); 0 when none does. */
static int64_t water_level(const Budget *b, const bool *admitted, int64_t avail) {
  int64_t lo = 0, hi = MAX(avail, 0);

  while (lo < hi) {
    int64_t mid = lo + (hi - lo + 1) / 2, sum = 0;

    for (size_t i = 0; i < b->n && sum <= avail; i++)
      if (admitted[i])
        sum += cost_at(&b->items[i], mid) + b->items[i].markup;
    if (sum <= avail)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

/* Decides who is read, in request order, and the level of their shares, within avail tokens
 * for their content and markup. */
static int64_t admit(Budget *b, bool *admitted, int64_t avail) {
  int64_t floor = b->floor, level, sum = 0;
  bool changed = true;

  for (size_t i = 0; i < b->n; i++)
    admitted[i] = b->items[i].kind != ITEM_REFUSED;
  level = water_level(b, admitted, avail);
  /* Below the floor, shares would be too thin to be of use: the first files in request order
   * are admitted while each can have the floor at least. */
  if (level < floor) {
    for (size_t i = 0; i < b->n; i++) {
      int64_t c = admitted[i] ? cost_at(&b->items[i], floor) + b->items[i].markup : 0;

      if (sum + c > avail)
        admitted[i] = false;
      else
        sum += c;
      /* Once one is refused, every file after it is: the order is the request's. */
      if (!admitted[i] && b->items[i].kind != ITEM_REFUSED) {
        for (size_t j = i + 1; j < b->n; j++)
          admitted[j] = false;
        break;
      }
    }
    level = water_level(b, admitted, avail);
  }
  /* A picture is cut by its tiles only: one over the level that is not, or whose tile does not
   * fit it, is omitted, and the others share what it leaves. */
  while (changed) {
    changed = false;
    for (size_t i = 0; i < b->n; i++) {
      if (admitted[i] && b->items[i].kind == ITEM_IMAGE && b->items[i].want > level &&
          !tiles_fit(&b->items[i], level)) {
        admitted[i] = false;
        changed = true;
      }
    }
    if (changed)
      level = water_level(b, admitted, avail);
  }
  return level;
}

/* What the answer needs besides the admitted files: the frame, the elements of refused files
 * before the first file left out and, when one is, the listing of those after it (at most
 * BUDGET_LIST_SHARE percent of the budget) and the summary of the rest. */
static int64_t overhead(const Budget *b, const bool *admitted) {
  int64_t n = b->frame, listing = 0;
  bool cut = false;

  for (size_t i = 0; i < b->n; i++) {
    const Item *it = &b->items[i];

    if (!cut && it->kind == ITEM_REFUSED) {
      n += it->listing;
    } else if (!cut && !admitted[i]) {
      n += BUDGET_SUMMARY_TOKENS + (it->listing - BUDGET_MARKUP_LISTED);
      cut = true;
    }
    if (cut)
      listing += it->listing;
  }
  return n + MIN(listing, b->tokens * BUDGET_LIST_SHARE / 100);
}

/* Admits files in two rounds: the first with the frame set aside, the second also with the
 * room the files it left out and the refusals will take. */
static int64_t admit_within_budget(Budget *b, bool *admitted) {
  admit(b, admitted, b->tokens - b->frame);
  return admit(b, admitted, b->tokens - overhead(b, admitted));
}

/* f's content is left out: what the measure or the read learned of it stays. */
static void omit(FileResult *f, int64_t total) {
  g_clear_pointer(&f->content, g_free);
  f->content_len = 0;
  file_result_drop_images(f);
  for (size_t k = 0; k < f->n_page_out; k++)
    g_free(f->page_out[k].text);
  g_clear_pointer(&f->page_out, g_free);
  f->n_page_out = 0;
  g_clear_pointer(&f->outline, g_free);
  g_clear_pointer(&f->notice, g_free);
  file_result_drop_sections(f);
  f->truncated = false;
  f->shown_first = f->shown_last = 0;
  f->eol = NULL;
  f->bom = false;
  f->omitted = OMITTED_BUDGET;
  f->tokens = 0;
  f->tokens_total = MAX(total, f->tokens_total);
}

/* Lanes claim files in request order but measure them side by side, so whether a file claimed
 * about where the files before it pass the budget at the floor had its head read depends on
 * which lane got there first. No such file can be admitted: each is answered as one whose head
 * was not read, and the same request gets the same answer whatever the timing (its markup too is
 * the unpriced bound). So is a file its head refused (a binary file) there: the listing reads it
 * again if it reaches it. */
static void unsample_past_floor(Budget *b, ReadResult *r) {
  int64_t sum = 0;

  for (size_t i = 0; i < b->n; i++) {
    Item *it = &b->items[i];
    FileResult *f = &r->files[i];

    if (sum > b->tokens)
      path_markup(it, f->path, false);
    if (it->kind == ITEM_UNSAMPLED || (it->kind == ITEM_REFUSED && !it->head_refused))
      continue;
    if (it->kind == ITEM_REFUSED && sum <= b->tokens)
      continue;
    if (sum > b->tokens) {
      /* A file its head refused (a binary file) is one a lane claimed a little later would
       * have passed unread: it is answered as that one. If the listing reaches it, its head is
       * read then, whichever lane it falls to, and it is refused again (budget_count). */
      if (it->kind == ITEM_REFUSED) {
        f->code = NULL;
        g_clear_pointer(&f->error, g_free);
        it->head_refused = false;
      }
      it->kind = ITEM_UNSAMPLED;
      it->total = f->bytes > 0 ? f->bytes / 4 + 1 : 0;
      it->want = 0;
      it->guessed = false;
      f->type = FILE_TYPE_UNKNOWN;
      f->encoding = NULL;
      f->lines = -1;
      f->width = f->height = 0;
      continue;
    }
    /* As the measure counted it: a file read whole since (budget_measure_read) kept its
     * guess there. */
    sum += atomic_load(&it->floor_cost);
  }
}

/* Tokens a listed entry's lines='N' adds to what it->listing says. */
#define LINES_ATTR_TOKENS 5

/* The files left out that the answer will most likely list (in request order, while their
 * elements fit in the listing's share) and whose head was not read, or not to its end: the model
 * is told their lines and what they would cost, so the read phase reads their heads (up to 64
 * KiB, as a read does). The rest stay with what a stat said. The markup's estimate is an upper
 * bound: the listing takes about a seventh more entries than it says, and a quarter more are
 * counted. */
static void mark_listed(Budget *b, const ReadResult *r) {
  int64_t cap = b->tokens * BUDGET_LIST_SHARE / 100 * 5 / 4, listed = 0;

  for (size_t i = 0; i < b->n; i++) {
    Item *it = &b->items[i];
    const FileResult *f = &r->files[i];

    if (it->kind == ITEM_REFUSED || g_strcmp0(f->omitted, OMITTED_BUDGET) != 0)
      continue;
    listed += BUDGET_MARKUP_LISTED + tokens_str(f->path) + LINES_ATTR_TOKENS;
    if (listed > cap)
      break;
    /* A PDF, a notebook or a document is read whole for what it would write; a picture
     * without a readable header (or an SVG to render) stays with what its measure said. */
    if (it->kind == ITEM_UNSAMPLED || (it->kind == ITEM_OPAQUE && it->cuttable) ||
        (it->kind == ITEM_TEXT && f->lines < 0)) {
      it->count = true;
      it->settled = false;
    }
  }
}

bool budget_counting(const Budget *b, size_t i) {
  return b->items[i].count;
}

bool budget_count(Budget *b, size_t i, const ReaderOptions *o, const Workspace *ws,
                  const atomic_bool *cancelled, FileResult *res) {
  Item *it = &b->items[i], head = {0};
  int64_t total = it->total;
  ReaderSample s;

  file_result_clear(res);
  /* A PDF, a notebook, a document: what it would write is known once read, whole. */
  if (it->kind == ITEM_OPAQUE)
    return false;
  if (!reader_measure(o, ws, cancelled, READER_SAMPLE_SIZE, res, &s))
    return true; /* refused now (a binary file, one gone since): its entry says why */
  /* Not opened at the measure, and a PDF, a notebook or a document: read whole, as those that
   * were, for what it would write rather than its size's guess. */
  if (res->type == FILE_TYPE_PDF || res->type == FILE_TYPE_NOTEBOOK ||
      res->type == FILE_TYPE_DOCUMENT) {
    file_result_clear(res);
    return false;
  }
  if (res->type == FILE_TYPE_TEXT) {
    measure_text(b, &s, o, &head, res);
    total = head.total;
  } else if (res->type == FILE_TYPE_IMAGE) {
    measure_image(b, &s, o->offset, &head, res);
    if (head.kind == ITEM_IMAGE)
      total = head.total;
  }
  omit(res, total);
  return true;
}

/* True when the answer's first file is a tiled picture one tile of which fits the room it has
 * alone, with its markup (which counts every tile's: one is kept). */
static bool first_tile_fits(const Budget *b) {
  const Item *it = &b->items[b->first];
  int64_t others = it->tile > 0 ? (it->want / it->tile - 1) * TILE_MARKUP_TOKENS : 0;

  return tiles_fit(it, b->first_room - it->markup + others);
}

void budget_decide(Budget *b, ReadResult *r) {
  g_autofree bool *admitted = NULL;
  int64_t level = 0, first_grant = 0, slack = 0;

  b->measuring = false;
  if (b->tokens > 0) {
    if (!b->plan)
      unsample_past_floor(b, r);
    admitted = g_new0(bool, b->n);
    level = admit_within_budget(b, admitted);
  }
  /* What the admitted files' costs at the level and their markup leave of the budget. */
  if (admitted != NULL) {
    slack = b->tokens - overhead(b, admitted);
    for (size_t i = 0; i < b->n; i++)
      if (admitted[i])
        slack -= cost_at(&b->items[i], level) + b->items[i].markup;
    slack = MAX(slack, 0);
  }
  for (b->first = 0; b->first < b->n && b->items[b->first].kind == ITEM_REFUSED; b->first++)
    ;
  /* What the first file can have when every other one is left out: a first piece (a page, a
   * cell) over its share takes that rather than be cut inside. */
  if (admitted != NULL && b->first < b->n) {
    g_autofree bool *alone = g_new0(bool, b->n);

    alone[b->first] = true;
    b->first_room = b->tokens - overhead(b, alone);
  }
  /* The answer's first file always gets a share, whatever the floor left it: the continuation
   * of an answer moves on. Only a picture over the budget, not even a tile of which fits, is
   * listed with its price instead. */
  if (admitted != NULL && b->first < b->n && !admitted[b->first] &&
      (b->items[b->first].kind != ITEM_IMAGE || first_tile_fits(b))) {
    Item *it = &b->items[b->first];

    admitted[b->first] = true;
    it->kind = it->kind == ITEM_UNSAMPLED ? ITEM_OPAQUE : it->kind;
    it->guessed = true; /* its grant below is the level it reads to */
    first_grant = MAX(b->tokens - overhead(b, admitted) - it->markup, BUDGET_MIN_CUT_TOKENS);
  }
  for (size_t i = 0; i < b->n; i++) {
    Item *it = &b->items[i];
    FileResult *f = &r->files[i];

    it->settled = true;
    if (it->kind == ITEM_REFUSED)
      continue;
    if (admitted != NULL) {
      it->grant = first_grant > 0 && i == b->first ? first_grant : grant_at(it, level);
      /* A guess reads to the level, but never to more than the others leave it. */
      if (it->guessed && admitted[i] && !(first_grant > 0 && i == b->first))
        it->grant = MIN(it->grant, cost_at(it, level) + slack);
      /* Not admitted, or a share too thin to show a line and the notice: no share. */
      if (!admitted[i] || it->kind == ITEM_UNSAMPLED ||
          (it->kind == ITEM_TEXT && it->grant < it->want && it->grant < BUDGET_MIN_CUT_TOKENS)) {
        omit(f, it->total);
        continue;
      }
    }
    if (b->plan && it->kind != ITEM_OPAQUE) {
      f->planned = true;
      f->tokens = admitted != NULL ? MIN(it->want, it->grant) : it->want;
      f->tokens_total = it->total;
      continue;
    }
    /* Read in the read phase, from the start. */
    it->settled = false;
    file_result_clear(f);
  }
  if (admitted != NULL)
    mark_listed(b, r);
}

void budget_answered(Budget *b, size_t i, const FileResult *f) {
  b->items[i].kind = ITEM_REFUSED;
  b->items[i].listing = BUDGET_MARKUP_LISTED + tokens_str(f->path);
}

bool budget_settled(const Budget *b, size_t i) {
  return b->items[i].settled;
}

int64_t budget_max_tokens(const Budget *b, size_t i) {
  if (b == NULL || b->measuring || b->tokens == 0 || b->plan)
    return 0;
  return b->items[i].grant;
}

/* A file read for the plan (a PDF, a notebook, an office document, an SVG render): what it
 * showed becomes the estimate, the whole file's extrapolated from it. */
static void plan_entry(FileResult *f) {
  /* What a read would state: its content's tokens, as every entry counts them. */
  int64_t shown = f->tokens;
  int64_t total = f->tokens_total;

  if (f->type == FILE_TYPE_IMAGE && f->n_images > 0) {
    f->width = f->images[0].width;
    f->height = f->images[0].height;
  }
  omit(f, total);
  f->omitted = NULL;
  f->planned = true;
  f->tokens = shown;
}

bool budget_binds(const Budget *b) {
  return b->binds;
}

void budget_enforce(Budget *b, size_t i, FileResult *f) {
  const Item *it = &b->items[i];

  if (f->code != NULL || f->omitted != NULL || f->planned)
    return;
  /* Nothing measured: the whole file's estimate is what the read shows of it (a text read
   * whole, as the measure would have priced it), and no share cuts it. */
  if (!b->binds) {
    f->tokens_total = budget_cut_applies(f) ? MAX(budget_cut_extrapolate(f, f->tokens), f->tokens)
                                            : f->tokens;
    return;
  }
  /* The whole file's estimate, from what the read shows of it: what a listing of it says. */
  /* Counted as entries count tokens, the content's (the budget prices the markup itself); a
   * picture (an SVG rendered, too) is what it shows, whatever its source's text measured. */
  f->tokens_total = budget_cut_applies(f)       ? MAX(budget_cut_extrapolate(f, f->tokens), f->tokens)
                    : f->type == FILE_TYPE_IMAGE ? f->tokens
                                                 : MAX(it->total, f->tokens);
  /* Read only to be listed with what it would cost. */
  if (it->count) {
    omit(f, f->tokens_total);
    return;
  }
  if (b->plan) {
    plan_entry(f);
    if (b->tokens > 0)
      f->tokens = MIN(f->tokens, it->grant);
    return;
  }
  /* A PDF, a notebook, a document: cut on its pages, cells, slides, rows or lines to its share
   * and its markup, as written. */
  if (budget_cut_applies(f)) {
    if (budget_cut(f, it->grant + it->markup, it->grant, false, &b->pricing))
      return;
    /* Not even its first page, cell, slide, row or line fits its share: the answer's first
     * file takes the room the others leave (they are left out at the answer's last check). */
    if (i != b->first || !budget_cut(f, MAX(b->first_room, it->grant + it->markup),
                                     MAX(b->first_room, it->grant), true, &b->pricing))
      omit(f, f->tokens_total);
    return;
  }
  /* Text was cut by the line engine as it read; the answer's first entry keeps what it has. */
  if (f->tokens <= it->grant || (i == b->first && f->type == FILE_TYPE_TEXT))
    return;
  omit(f, f->tokens_total);
}

/* True when f shows content (it was read, not omitted nor refused). */
static bool shows(const FileResult *f) {
  return f->code == NULL && f->omitted == NULL && !f->unchanged && !f->planned;
}

/* What the model reads of f's piece in the format (format_file_tokens; 0 when the piece cannot
 * be written). Writing the piece to price it is most of what settling an answer costs: each
 * use calls this once, where MAX() would have evaluated the call twice. */
static int64_t piece_tokens(const Budget *b, const FileResult *f, int64_t image_index,
                            bool markup_only) {
  int64_t n = format_file_tokens(b->fmt, f, image_index, markup_only);

  return n > 0 ? n : 0;
}

/* Tokens of the summary element of the entries from j on, at its widest numbers. */
static int64_t summary_exact(const Budget *b, const ReadResult *r, size_t j) {
  ResultSummary sum = {.files = r->n_files - j,
                       .bytes = 999999999999,
                       .tokens_total = 999999999999,
                       .skip = b->skip + (int64_t)j};
  FileResult f = {.path = r->files[j].path, .summarized = true, .summary = &sum};

  return piece_tokens(b, &f, 0, false);
}

/* Tokens of the summary of the answer's entries from j on, at its widest numbers, and of the
 * notices those entries carry (notices[j], summed from the end); 0 past the last entry. When
 * `room` is surely enough (twice the summary's usual markup and a token a byte of its path),
 * that bound is returned without writing the summary. */
static int64_t summary_reserve(const Budget *b, const ReadResult *r, size_t j,
                               const int64_t *notices, int64_t room) {
  int64_t bound;

  if (j >= r->n_files)
    return 0;
  bound = 2 * BUDGET_SUMMARY_TOKENS + (int64_t)strlen(r->files[j].path) + notices[j];
  if (bound <= room)
    return bound;
  return summary_exact(b, r, j) + notices[j];
}

/* The tokens of the expansions' notices each entry carries, summed from j to the end, in
 * notices[j] (n + 1 of them). */
static void notice_sums(const Budget *b, const ReadResult *r, int64_t *notices) {
  notices[r->n_files] = 0;
  for (size_t j = r->n_files; j-- > 0;) {
    const FileResult *f = &r->files[j];
    int64_t t = 0;

    if (f->n_notices > 0) {
      FileResult only = {
          .path = f->path, .summarized = true, .notices = f->notices, .n_notices = f->n_notices};

      t = piece_tokens(b, &only, 0, false);
    }
    notices[j] = notices[j + 1] + t;
  }
}

/* Entries from cut on go into one summary on the first of them. */
static void summarize_from(const Budget *b, ReadResult *r, size_t cut, bool *changed) {
  ResultSummary *sum = g_new0(ResultSummary, 1);

  sum->files = r->n_files - cut;
  sum->skip = b->skip + (int64_t)cut;
  for (size_t j = cut; j < r->n_files; j++) {
    FileResult *f = &r->files[j];

    if (shows(f))
      omit(f, f->tokens_total);
    changed[j] = true;
    f->summarized = true;
    if (f->bytes > 0 && f->code == NULL)
      sum->bytes += f->bytes;
    if (f->code == NULL)
      sum->tokens_total += f->tokens_total;
  }
  r->files[cut].summary = sum;
}

/* The answer's tokens once its body (every entry's piece, content and markup) costs body: the
 * frame as the format will write it. */
static void answer_tokens(const Budget *b, ReadResult *r, int64_t body) {
  /* Twice: the first count's digits may change the frame's own. */
  r->answer_tokens = body;
  for (int k = 0; k < 2; k++)
    r->answer_tokens = body + format_frame_tokens(b->fmt, r);
}

void budget_settle(const Budget *b, ReadResult *r, bool *changed) {
  size_t n = r->n_files, cut = n;
  g_autofree int64_t *notices = NULL;
  int64_t used = b != NULL ? b->frame : 0, listed = 0, image_index = 0, cap;

  if (b == NULL || b->tokens == 0 || b->plan)
    return;
  if (n == 0) {
    /* The frame alone. */
    answer_tokens(b, r, 0);
    return;
  }
  cap = b->tokens * BUDGET_LIST_SHARE / 100;
  notices = g_new(int64_t, n + 1);
  notice_sums(b, r, notices);
  /* No answer can pass it: nothing is cut (a piece formatted stays as it is), the answer's
   * tokens are summed. */
  for (size_t i = 0; i < n && !b->binds; i++) {
    FileResult *f = &r->files[i];

    used += piece_tokens(b, f, image_index, shows(f)) +
            (shows(f) ? f->tokens : 0);
    image_index += shows(f) ? (int64_t)f->n_images : 0;
  }
  for (size_t i = 0; i < n && cut == n && b->binds; i++) {
    FileResult *f = &r->files[i];
    int64_t reserve, c;

    if (shows(f)) {
      c = f->tokens + piece_tokens(b, f, image_index, true);
      reserve = summary_reserve(b, r, i + 1, notices, b->tokens - used - c);
      if (used + c + reserve <= b->tokens) {
        used += c;
        image_index += (int64_t)f->n_images;
        continue;
      }
      /* The answer's first entry always stays: a continuation from it moves on. */
      if (i == 0) {
        used += c;
        image_index += (int64_t)f->n_images;
        continue;
      }
      omit(f, f->tokens_total);
      changed[i] = true;
    }
    /* Listed: a file left out while the listing's share lasts, a refusal, a binary file. */
    c = piece_tokens(b, f, image_index, false);
    reserve = summary_reserve(b, r, i + 1, notices, b->tokens - used - c);
    if (i == 0 || (used + c + reserve <= b->tokens &&
                   (g_strcmp0(f->omitted, OMITTED_BUDGET) != 0 || listed + c <= cap))) {
      used += c;
      if (g_strcmp0(f->omitted, OMITTED_BUDGET) == 0)
        listed += c;
      continue;
    }
    cut = i;
  }
  if (cut < n) {
    summarize_from(b, r, cut, changed);
    used += piece_tokens(b, &r->files[cut], image_index, false) +
            notices[cut + 1 < n ? cut + 1 : n];
  }
  answer_tokens(b, r, used - b->frame);
}
