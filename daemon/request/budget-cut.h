/* A file as read, priced as written and cut to a share on its own boundaries: a PDF by pages, a
 * notebook by cells, a PPTX by slides, an XLSX by rows (the same rows in every sheet), a DOCX by
 * lines (its paragraphs), each cut naming the offset or pages that read on. Pure: a FileResult
 * in, the same FileResult cut.
 *
 * The price of a piece is what its <Content> element writes, text and markup (cell, slide,
 * sheet and page tags, CDATA wrappers, the notice), estimated by formatters/tokens.h, plus its
 * pictures by the answer's formula. Text is cut by the line engine as it reads (max_tokens). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "formatters/result.h"
#include "formatters/tokens.h"

/* The estimated tokens of f's element as written (content, markup, notice) and of its pictures. */
int64_t budget_cut_written(const FileResult *f, const TokensPricing *p);

/* The estimate of the whole file as a read would write it, from what f shows of it (its pages,
 * cells, slides, rows or lines shown, extrapolated to all of them), at least `floor`. */
int64_t budget_cut_whole(const FileResult *f, const TokensPricing *p, int64_t floor);

/* `written` tokens of what f shows (its pages, cells, slides, rows or lines shown), extrapolated
 * to all of them. */
int64_t budget_cut_extrapolate(const FileResult *f, int64_t written);

/* True for the kinds budget_cut() cuts: PDFs, notebooks, office documents. */
bool budget_cut_applies(const FileResult *f);

/* Cuts f so that it writes at most `room` tokens (budget_cut_written), dropping its last pages,
 * cells, slides, rows or lines and saying in its notice where to read on (budget: the share
 * named there). With `keep_one`, at least its first piece stays, its text cut by lines to fit
 * when it alone is over (the notice says so). Returns true when f fits now, false when nothing
 * of it fits (f unchanged): the caller leaves it out. f->tokens is counted again by p. */
bool budget_cut(FileResult *f, int64_t room, int64_t budget, bool keep_one, const TokensPricing *p);
