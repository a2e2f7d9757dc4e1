"""FAKE sax-http v1.0.0: the older, stdlib-http.server shapes of Saxml's HTTP front end.

The sax-http:v1.0.0 image the Saxml manifest pins is probably the older http.server program,
whose source is not among the peers. This is the project's own program, written from the facts
in ../shared/notes/manifests.md §4.2 ("Older"), not copied from it; its backend is the FAKE `sax`
module beside it, so no model is served either.

  GET  /           {"message": "HTTP Server for SAX Client"}
  GET  /listcell   body {"model"}                                    -> model, model_path, checkpoint,
                                                                        max_replicas, active_replicas
  POST /publish    body {"model", "model_path", "checkpoint", "replicas"} -> echo, the path under "path"
  PUT  /update     the same four keys                                  -> the same echo
  POST /unpublish  body {"model"}                                    -> {"model"}
  POST /generate   body {"model", "query"}                           -> {"generate_response": [[text, score], ...]}

Bodies are read by Content-Length and must hold exactly the keys above (the notes record the key
count check; which names it checked is not recorded, so any other set of keys is refused the same
way). Errors answer 400 {"Error": "..."}; an unknown path or method answers 400
{"message": "Invalid Request"}. Answers have no Content-Type header and end with a newline.

Usage: sax_http_v1.py [PORT]   (else $SAX_HTTP_PORT, else 8888); listens on 0.0.0.0.
"""

import http.server
import json
import os
import sys

import sax

_PUBLISH_KEYS = ("model", "model_path", "checkpoint", "replicas")


class _BadRequest(Exception):
    """An answer of 400 {"Error": message}."""


class Handler(http.server.BaseHTTPRequestHandler):
    server_version = "SaxHttpFake/1.0"

    def _answer(self, status, body):
        self.send_response(status)
        self.end_headers()
        self.wfile.write((json.dumps(body) + "\n").encode())

    def _body(self, keys, refusal):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length > 0 else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError as error:
            raise _BadRequest(f"the body is not JSON: {error}")
        if not isinstance(body, dict) or set(body) != set(keys):
            raise _BadRequest(refusal)
        return body

    def _replicas(self, value):
        # An int, or a string of digits as a shell's form field would send it.
        if isinstance(value, bool):
            raise _BadRequest(f"replicas must be an integer, got {json.dumps(value)}")
        try:
            return int(value)
        except (TypeError, ValueError):
            raise _BadRequest(f"replicas must be an integer, got {json.dumps(value)}")

    def _route(self, method):
        path = self.path.split("?", 1)[0]
        if method == "GET" and path == "/":
            return {"message": "HTTP Server for SAX Client"}
        if method == "GET" and path == "/listcell":
            body = self._body(("model",), "Provide model for listcell")
            detail = sax.ListDetail(body["model"])
            return {"model": body["model"], "model_path": detail.model, "checkpoint": detail.ckpt,
                    "max_replicas": detail.max_replicas, "active_replicas": detail.active_replicas}
        if (method, path) in (("POST", "/publish"), ("PUT", "/update")):
            verb = path[1:]
            body = self._body(_PUBLISH_KEYS, f"Provide model, model_path, checkpoint and replicas for {verb}")
            replicas = self._replicas(body["replicas"])
            call = sax.Publish if verb == "publish" else sax.Update
            call(body["model"], body["model_path"], body["checkpoint"], replicas)
            return {"model": body["model"], "path": body["model_path"], "checkpoint": body["checkpoint"],
                    "replicas": replicas}
        if method == "POST" and path == "/unpublish":
            body = self._body(("model",), "Provide model for unpublish")
            sax.Unpublish(body["model"])
            return {"model": body["model"]}
        if method == "POST" and path == "/generate":
            body = self._body(("model", "query"), "Provide model and query for generate")
            answers = sax.Model(body["model"]).LM().Generate(body["query"], sax.ModelOptions())
            return {"generate_response": [[text, score] for text, score in answers]}
        return None

    def _handle(self, method):
        try:
            result = self._route(method)
        except Exception as error:  # a refused body, or the sax client's failure in its own words
            self._answer(400, {"Error": str(error)})
            return
        if result is None:
            self._answer(400, {"message": "Invalid Request"})
        else:
            self._answer(200, result)

    def do_GET(self):
        self._handle("GET")

    def do_POST(self):
        self._handle("POST")

    def do_PUT(self):
        self._handle("PUT")

    def do_DELETE(self):
        self._handle("DELETE")


def main():
    port = int(sys.argv[1]) if len(sys.argv) > 1 else int(os.environ.get("SAX_HTTP_PORT", "8888"))
    server = http.server.ThreadingHTTPServer(("0.0.0.0", port), Handler)
    print(f"sax_http_v1 (FAKE sax-http v1.0.0) listening on 0.0.0.0:{port}", file=sys.stderr, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
