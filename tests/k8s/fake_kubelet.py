"""A FAKE kubelet, for tests only: it serves nothing but GET /containerLogs.

No kubelet can run on a test machine (no container runtime, no node), yet the real
kube-apiserver reads a pod's log by dialling the kubelet of the pod's node at
https://<Node InternalIP>:<daemonEndpoints.kubeletEndpoint.Port>/containerLogs/NS/POD/CONTAINER.
This stand-in answers that path the way the kubelet does, with made-up log lines:

- Every container has ten lines, "<pod>/<container> line N"; lines 1-5 were written two hours
  ago, lines 6-10 in the last minute (so sinceSeconds=600 keeps only 6-10). tailLines keeps
  the last N; timestamps=true begins each line with its RFC 3339 time.
- follow=true: after those lines, it waits until the file GATE_DIR/<pod> exists (the test
  creates it once it has seen the first lines arrive), then writes "<pod>/<container> follow
  N" for N = 1..3, each cut into two chunks written apart, and ends (the container exited).
  A pod whose name contains "forever" never ends its followed log.
- A pod whose name contains "waiting" answers as the kubelet does for a container that has not
  started: 400 and the text 'container "C" in pod "P" is waiting to start: ContainerCreating'.
- Each request's path and query are appended to GATE_DIR/requests.log.

Usage: fake_kubelet.py HOST PORT CERT KEY GATE_DIR   (a self-signed certificate made by the test;
the API server does not verify kubelets unless --kubelet-certificate-authority is set).
"""

import datetime
import http.server
import os
import ssl
import sys
import time
import urllib.parse

HOST, PORT, CERT, KEY, GATE_DIR = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
STARTED = datetime.datetime.now(datetime.timezone.utc)


def stamp(moment):
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%f000Z")


def lines_for(pod, container, previous=False):
    # ?previous=true reads the instance before the running one: its lines say so.
    instance = f"{pod}/{container} previous" if previous else f"{pod}/{container}"
    lines = []
    for n in range(1, 11):
        age = datetime.timedelta(hours=2) if n <= 5 else datetime.timedelta(seconds=60 - n)
        lines.append((STARTED - age, f"{instance} line {n}"))
    return lines


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
        with open(os.path.join(GATE_DIR, "requests.log"), "a") as log:
            log.write(self.path + "\n")
        parts = url.path.split("/")
        if len(parts) != 5 or parts[1] != "containerLogs":
            self.send_text(404, "404 page not found")
            return
        _, _, namespace, pod, container = parts
        query = urllib.parse.parse_qs(url.query)
        if "waiting" in pod:
            self.send_text(400, f'container "{container}" in pod "{pod}" is waiting to start: ContainerCreating')
            return
        now = datetime.datetime.now(datetime.timezone.utc)
        lines = lines_for(pod, container, query.get("previous", ["false"])[0] == "true")
        if "sinceSeconds" in query:
            since = now - datetime.timedelta(seconds=int(query["sinceSeconds"][0]))
            lines = [line for line in lines if line[0] >= since]
        if "tailLines" in query:
            tail = int(query["tailLines"][0])
            lines = lines[max(0, len(lines) - tail):] if tail > 0 else []
        timestamps = query.get("timestamps", ["false"])[0] == "true"

        def render(moment, text):
            return ((stamp(moment) + " ") if timestamps else "") + text + "\n"

        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.end_headers()
        self.wfile.write("".join(render(m, t) for m, t in lines).encode())
        self.wfile.flush()
        if query.get("follow", ["false"])[0] != "true":
            return
        gate = os.path.join(GATE_DIR, pod)
        while not os.path.exists(gate) or "forever" in pod:
            time.sleep(0.05)
        for n in range(1, 4):
            line = render(datetime.datetime.now(datetime.timezone.utc), f"{pod}/{container} follow {n}")
            half = len(line) // 2
            self.wfile.write(line[:half].encode())
            self.wfile.flush()
            time.sleep(0.05)
            self.wfile.write(line[half:].encode())
            self.wfile.flush()


def main():
    server = http.server.ThreadingHTTPServer((HOST, PORT), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(CERT, KEY)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    with open(os.path.join(GATE_DIR, "ready"), "w") as ready:
        ready.write("ok\n")
    server.serve_forever()


if __name__ == "__main__":
    main()
