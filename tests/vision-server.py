#!/usr/bin/env python3
"""A vision endpoint for the tests, on 127.0.0.1: OpenAI-shaped (POST .../chat/completions)
and Anthropic-shaped (POST .../messages). It records every request it receives (path, headers,
body) as DIR/NNNN.json and behaves as the first segment of the path says:

  /ok/...            answers; the answer names the query and the images received
  /status-CODE/...   answers CODE with an error body that quotes the key it was sent
  /429once-TAG/...   answers 429 with Retry-After: 1 the first time, then as /ok
  /503always-TAG/... answers 503 with Retry-After: 1 every time
  /hang/...          never answers (until the client goes away)
  /drop/...          reads the request, then closes the connection without a word
  /malformed/...     answers 200 with a body that is not JSON
  /huge/...          answers 200 with a body of 9 MiB
  /deep/...          answers 200 with an answer nested 100,000 arrays deep
  /quotekey/...      answers as /ok, the answer and the model quoting the key it was sent

Usage: vision-server.py DIR; it writes its port to DIR/port once it listens.
"""
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DIR = sys.argv[1]
LOCK = threading.Lock()
SEQ = [0]
SEEN = {}


def record(path, headers, body):
    with LOCK:
        SEQ[0] += 1
        n = SEQ[0]
        SEEN[path] = SEEN.get(path, 0) + 1
        count = SEEN[path]
    try:
        parsed = json.loads(body)
    except ValueError:
        parsed = None
    entry = {"path": path, "headers": {k.lower(): v for k, v in headers.items()},
             "body": parsed, "raw_length": len(body)}
    tmp = os.path.join(DIR, "%04d.tmp" % n)
    with open(tmp, "w") as f:
        json.dump(entry, f)
    os.rename(tmp, os.path.join(DIR, "%04d.json" % n))
    return count


def key_of(headers):
    auth = headers.get("Authorization", "")
    if auth.startswith("Bearer "):
        return auth[7:]
    return headers.get("x-api-key", "")


def describe(body, anthropic):
    """The answer: what was received, so that a test can check it came from this request."""
    parts = body["messages"][0]["content"]
    query = [p["text"] for p in parts if p["type"] == "text"][0]
    if anthropic:
        images = [p["source"]["media_type"] for p in parts if p["type"] == "image"]
    else:
        images = [p["image_url"]["detail"] for p in parts if p["type"] == "image_url"]
    return "asked %r about %d image(s): %s" % (query, len(images), ",".join(images))


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def send(self, status, obj=None, raw=None, extra=()):
        data = raw if raw is not None else json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def answer(self, body, anthropic):
        text = describe(body, anthropic)
        if anthropic:
            self.send(200, {"id": "msg_1", "type": "message", "role": "assistant",
                            "model": body["model"] + "-served",
                            "content": [{"type": "text", "text": text}],
                            "usage": {"input_tokens": 1234, "output_tokens": 56}})
        else:
            self.send(200, {"id": "chatcmpl-1", "object": "chat.completion",
                            "model": body["model"] + "-served",
                            "choices": [{"index": 0, "finish_reason": "stop",
                                         "message": {"role": "assistant", "content": text}}],
                            "usage": {"prompt_tokens": 1234, "completion_tokens": 56,
                                      "total_tokens": 1290}})

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        raw = self.rfile.read(length)
        count = record(self.path, self.headers, raw)
        mode = self.path.strip("/").split("/")[0]
        anthropic = self.path.endswith("/messages")
        key = key_of(self.headers)
        if mode == "ok" or (mode.startswith("429once") and count > 1):
            self.answer(json.loads(raw), anthropic)
        elif mode.startswith("429once") or mode.startswith("503always"):
            code = 429 if mode.startswith("429") else 503
            self.send(code, {"error": {"message": "slow down", "type": "rate_limit"}},
                      extra=[("Retry-After", "1")])
        elif mode.startswith("status-"):
            code = int(mode[7:])
            self.send(code, {"type": "error", "error": {
                "type": "authentication_error",
                "message": "Incorrect API key provided: %s. Check it." % key}})
        elif mode == "hang":
            time.sleep(60)
        elif mode == "drop":
            self.close_connection = True
            self.connection.shutdown(2)
        elif mode == "malformed":
            self.send(200, raw=b"{\"choices\": [ this is not json")
        elif mode == "deep":
            self.send(200, raw=b"{\"choices\":" + b"[" * 100000 + b"]" * 100000 + b"}")
        elif mode == "quotekey":
            self.send(200, {"model": "m-" + key, "choices": [{"index": 0, "message": {
                "role": "assistant", "content": "you sent the key %s, keep it" % key}}]})
        elif mode == "huge":
            self.send(200, raw=b"{\"pad\": \"" + b"x" * (9 * 1024 * 1024) + b"\"}")
        else:
            self.send(404, {"error": {"message": "no such mode: " + mode}})


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        pass  # a client that went away (cancelled, timed out) is what some tests do


def main():
    server = Server(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    tmp = os.path.join(DIR, "port.tmp")
    with open(tmp, "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(tmp, os.path.join(DIR, "port"))
    server.serve_forever()


if __name__ == "__main__":
    main()
