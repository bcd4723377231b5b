/* The usage text and the output check: see cli-usage.h. */
#include "daemon/cli/cli-usage.h"

#include <errno.h>
#include <stdio.h>

#include <glib.h>

static const char usage_text[] =
    "Usage:\n"
    "  readerd read [--json] [--format FORMAT] [--offset N] [--limit N] [--tail N]\n"
    "               [--no-line-numbers]\n"
    "               [--max-dimension N] [--max-image-bytes N] [--image-detail auto|low|high]\n"
    "               [--image-tile auto|never|always] [--pages SPEC] [--render] [--password PW]\n"
    "               [--root DIR] [--exclude GLOB]... [--if-none-match PATH=ETAG]...\n"
    "               [--no-expand] [--max-files N] [--ignored] [--binary] [--budget TOKENS]\n"
    "               [--skip N] [--plan] [--encoding CHARSET] PATH...\n"
    "      Read files once, without a daemon; print the <ReadResults> XML (or, with --json,\n"
    "      the whole result object). --format xml|anthropic|openai|toolresult|text|mcp\n"
    "      prints that shape instead (docs/formats.md). --pages, --render and --password\n"
    "      apply to every PDF given (--render to SVG files too). --root DIR reads relative\n"
    "      paths from DIR and refuses files outside it; --exclude refuses matching files\n"
    "      (.env, *.pem).\n"
    "      --if-none-match answers PATH unchanged='true', unread, while it still has ETAG.\n"
    "      A folder or a glob (src/, 'src/**/*.c') reads the files under it, sorted, without\n"
    "      what .gitignore and .ignore files leave out, binary files listed; at most N files\n"
    "      each (--max-files, default 500). --ignored also reads what the ignore files\n"
    "      leave out (never .git, never what --root or --exclude refuse); --binary reads\n"
    "      binary files rather than list them. --no-expand answers IS_DIRECTORY for a folder.\n"
    "      --tail N shows the last N lines of each text file (not with --offset).\n"
    "      --encoding CHARSET decodes every text file from CHARSET (an iconv name such as\n"
    "      iso-8859-2 or gbk) instead of detecting its encoding.\n"
    "      --budget TOKENS fits the whole answer (content and markup) in that many\n"
    "      estimated tokens, fairly; files it leaves out are listed omitted='budget', the\n"
    "      rest in one <Omitted> summary naming the --skip N that reads them next. --plan\n"
    "      says what a read would cost without reading (docs/protocol.md).\n"
    "      Options may follow the paths; after -- every argument is a path. Exit 0 when\n"
    "      every file was read, 1 when any file has a per-file error, 2 on a usage error,\n"
    "      3 when the output could not be written.\n"
    "  readerd read-images --query TEXT [--detail low|high|auto] [--model M] [--base-url URL]\n"
    "               [--provider openai|anthropic] [--pages SPEC] [--max-tokens N] [--json]\n"
    "               PATH...\n"
    "      Ask a vision model about images and PDF pages (docs/vision.md); the endpoint comes\n"
    "      from READERD_VISION_BASE_URL, _MODEL, _API_KEY and _PROVIDER unless an option says.\n"
    "      Prints the answer (with --json, the result object); files that could not be read\n"
    "      are named on stderr and the rest are still asked. Exit 0 on an answer, 1 when the\n"
    "      endpoint failed or no picture could be read, 2 on a usage error.\n"
    "  readerd serve [--socket PATH] [--idle-exit SECONDS]\n"
    "      Serve line-delimited JSON-RPC on a Unix socket (mode 0600). The default socket is\n"
    "      $XDG_RUNTIME_DIR/readerd.sock, else /tmp/readerd-UID/readerd.sock. PATH must be in\n"
    "      an existing folder of your own that only you can write to; abstract names are\n"
    "      refused.\n"
    "      Started by systemd's readerd.socket (socket activation: LISTEN_FDS), it serves on\n"
    "      the socket passed as descriptor 3 instead, and with --idle-exit SECONDS exits\n"
    "      after that long without a client (systemd starts it again on the next connect).\n"
    "  readerd serve --stdio\n"
    "      Serve one client on stdin/stdout (pipes, a terminal, or files: < requests.jsonl\n"
    "      > answers.jsonl). Exit 3 when the answers could not be written.\n"
    "  readerd mcp [--root DIR]... [--exclude GLOB]... [--no-default-excludes]\n"
    "      Serve the Model Context Protocol on stdin/stdout (docs/mcp.md): the read_files tool\n"
    "      for agents. Files must lie under the --root folders (else the client's roots, else\n"
    "      the working directory); .env files and private keys are refused unless\n"
    "      --no-default-excludes.\n"
    "  readerd --version | --help\n"
    "\n"
    "The protocol is described in docs/protocol.md.\n";

void cli_usage(int to_stderr) {
  fputs(usage_text, to_stderr ? stderr : stdout);
}

int cli_output_failed(int err) {
  fprintf(stderr, "readerd: cannot write the output: %s\n", g_strerror(err));
  return CLI_EXIT_OUTPUT;
}

int cli_check_output(int status) {
  /* An error of an earlier buffered write sticks (ferror); errno then is that write's. */
  if (fflush(stdout) != 0 || ferror(stdout))
    return cli_output_failed(errno != 0 ? errno : EIO);
  return status;
}
