/* The worker process: `readerd-worker` (worker-main.c), a process of its own, so that poppler
 * or an image decoder crashing or hanging on a hostile file costs that file only. pdf-spawn.c starts it
 * with fd 0 and fd 1 one end of a socket pair and fd 2 readerd's stderr. Then requests come
 * in (pdf-wire.h PDF_REQ_* records up to PDF_REQ_END), each with a descriptor attached
 * (SCM_RIGHTS). For a PDF it is the PDF as readerd opened it (the file is never opened again
 * by its name), and the results (PDF_RES_*) go out page by page, up to PDF_RES_END; a request
 * with PDF_REQ_IMAGE converts a picture instead (image-worker.h). After a request that went
 * well it waits for the next one, keeping the last few documents open for the next read of
 * the same unchanged file (pdf-doc-cache.h); after a PDF that failed, and when readerd closes
 * the socket, it exits. It limits its own address space and CPU time and dies with the thread
 * that started it. */
#pragma once

/* What the worker shows, per read of one PDF. */
#define PDF_DEFAULT_PAGES 20                             /* pages shown without `pages` */
#define PDF_MAX_PAGES 100                                /* pages shown at most with `pages` */
#define PDF_TEXT_MAX ((size_t)100 * 1024)                /* text of the pages and outline */
#define PDF_MAX_RENDERED 20                              /* pictures of pages */
#define PDF_IMAGE_MAX_BASE64 ((size_t)5 * 1024 * 1024)   /* one picture, base64 */
#define PDF_IMAGES_MAX_BASE64 ((size_t)20 * 1024 * 1024) /* all pictures of one PDF, base64 */
/* A page is rendered without being asked when it has no text, or when it has fewer visible
 * characters than this and images cover at least PDF_SCAN_MIN_COVERAGE of it (a scan with a
 * stamped page number). */
#define PDF_SCAN_MIN_CHARS 16
#define PDF_SCAN_MIN_COVERAGE 0.5
#define PDF_WORKER_MAX_MEMORY ((size_t)2048 * 1024 * 1024) /* RLIMIT_AS of the worker */

/* The worker's main: serves requests (a PDF, or an image to convert) until readerd closes
 * the socket or a PDF fails, then exits the process (never returns). */
_Noreturn void pdf_worker_main(void);
