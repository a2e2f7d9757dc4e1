"""A FAKE kubelet, for tests only: it serves GET /containerLogs from files the test writes.

The real kube-apiserver reads a pod's log from the kubelet of the pod's node
(https://<Node InternalIP>:<kubeletEndpoint.Port>/containerLogs/NS/POD/CONTAINER). No kubelet
can run here, so this stand-in plays one container whose log the test writes line by line:

- DIR/<pod>.started absent: 400 'container "C" in pod "P" is waiting to start: ContainerCreating'.
- DIR/<pod>.log: the container's output. Each line gets its timestamp when this server first
  reads it, and keeps it (the kubelet's log file has one timestamp per line).
- follow=true: the lines so far, then new ones as the test appends them, until DIR/<pod>.exited
  exists (the container exited): then the rest, and the stream ends.
- tailLines, sinceSeconds and timestamps=true as the kubelet reads them.
- Each request's path and query are appended to DIR/requests.log.

Usage: converter_kubelet.py HOST PORT CERT KEY DIR
"""

import datetime
import http.server
import os
import ssl
import sys
import threading
import time
import urllib.parse

HOST, PORT, CERT, KEY, DIR = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
LOCK = threading.Lock()
SEEN = {}  # pod -> [(time, text)]


def stamp(moment):
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%f000Z")


def lines_of(pod):
    """The pod's lines so far, each with the time it was first read."""
    try:
        with open(os.path.join(DIR, pod + ".log")) as log:
            texts = [line.rstrip("\n") for line in log.readlines() if line.endswith("\n")]
    except FileNotFoundError:
        texts = []
    with LOCK:
        seen = SEEN.setdefault(pod, [])
        now = datetime.datetime.now(datetime.timezone.utc)
        for text in texts[len(seen):]:
            seen.append((now, text))
        return list(seen)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"  # the body ends when the connection closes, as a stream may

    def log_message(self, *args):
        pass

    def send_text(self, status, text):
        body = text.encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        with open(os.path.join(DIR, "requests.log"), "a") as log:
            log.write(self.path + "\n")
        parts = url.path.split("/")
        if len(parts) != 5 or parts[1] != "containerLogs":
            self.send_text(404, "404 page not found")
            return
        _, _, _namespace, pod, container = parts
        query = urllib.parse.parse_qs(url.query)
        if not os.path.exists(os.path.join(DIR, pod + ".started")):
            self.send_text(400, f'container "{container}" in pod "{pod}" is waiting to start: ContainerCreating')
            return
        timestamps = query.get("timestamps", ["false"])[0] == "true"
        every = lines_of(pod)
        lines = every
        if "sinceSeconds" in query:
            since = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(
                seconds=int(query["sinceSeconds"][0]))
            lines = [line for line in lines if line[0] >= since]
        if "tailLines" in query:
            tail = int(query["tailLines"][0])
            lines = lines[max(0, len(lines) - tail):] if tail > 0 else []

        def render(moment, text):
            return ((stamp(moment) + " ") if timestamps else "") + text + "\n"

        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.end_headers()
        self.wfile.write("".join(render(m, t) for m, t in lines).encode())
        self.wfile.flush()
        if query.get("follow", ["false"])[0] != "true":
            return
        sent = len(every)
        while True:
            exited = os.path.exists(os.path.join(DIR, pod + ".exited"))
            now = lines_of(pod)
            for moment, text in now[sent:]:
                self.wfile.write(render(moment, text).encode())
            self.wfile.flush()
            sent = len(now)
            if exited:
                return
            time.sleep(0.05)


def main():
    server = http.server.ThreadingHTTPServer((HOST, PORT), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(CERT, KEY)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    with open(os.path.join(DIR, "ready"), "w") as ready:
        ready.write("ok\n")
    server.serve_forever()


if __name__ == "__main__":
    main()
