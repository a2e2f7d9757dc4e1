#!/usr/bin/env python3
"""An HTTP server for tunnel tests whose bodies can be checked byte for byte.

GET /bytes?n=N answers N bytes, byte i being (i * 131 + 7) % 251 (tests compute the same);
POST /echo answers the request body. Listens on 127.0.0.1:--port. Stop it with SIGTERM.
"""
import argparse
import http.server
import urllib.parse


def pattern(n):
    return bytes((i * 131 + 7) % 251 for i in range(n))


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def reply(self, body):
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        n = int(dict(urllib.parse.parse_qsl(url.query)).get("n", "0"))
        self.reply(pattern(n))

    def do_POST(self):
        self.reply(self.rfile.read(int(self.headers.get("Content-Length") or 0)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    http.server.ThreadingHTTPServer(("127.0.0.1", args.port), Handler).serve_forever()


if __name__ == "__main__":
    main()
