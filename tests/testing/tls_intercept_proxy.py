#!/usr/bin/env python3
"""An HTTPS proxy for tests that keeps a client's traffic on this machine.

Some gcloud calls use a fixed Google URL that no endpoint override changes (the build-log
tailer of `gcloud builds submit` reads https://storage.googleapis.com/BUCKET/OBJECT). A test
points the client at this proxy (HTTPS_PROXY) and makes it trust the test's CA
(CLOUDSDK_CORE_CUSTOM_CA_CERTS_FILE). The proxy answers CONNECT only for the --host names it
is given, terminates TLS there with the test's certificate, and sends each request, unchanged
(method, path, headers including Host, body), to --upstream over plain HTTP: the emulator. Any
other CONNECT, or a plain-HTTP proxy request, is refused with 403, so nothing reaches a network.

Usage: tls_intercept_proxy.py --cert CERT --key KEY --host storage.googleapis.com
                               --upstream http://127.0.0.1:PORT --port-file FILE
The chosen port is written to FILE once the proxy listens. Stop it with SIGTERM.
"""
import argparse
import http.client
import http.server
import os
import socket
import ssl
import threading
import urllib.parse

HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "te", "trailer"}


def make_forwarder(upstream):
    target = urllib.parse.urlsplit(upstream)

    class Forwarder(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt, *args):  # the test reads the emulator's request log instead
            pass

        def _forward(self):
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
            connection = http.client.HTTPConnection(target.hostname, target.port, timeout=60)
            try:
                connection.request(self.command, self.path, body=body, headers=headers)
                reply = connection.getresponse()
                payload = reply.read()
            finally:
                connection.close()
            self.send_response(reply.status, reply.reason)
            for key, value in reply.getheaders():
                if key.lower() not in HOP_BY_HOP and key.lower() != "content-length":
                    self.send_header(key, value)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(payload)

        do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = _forward

    return Forwarder


def read_head(sock):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk or len(data) > 65536:
            return None
        data += chunk
    return data


def serve_client(sock, hosts, tls_context, forwarder):
    try:
        head = read_head(sock)
        if head is None:
            return
        method, target = head.split(b"\r\n", 1)[0].decode("latin-1").split(" ")[:2]
        host = target.rsplit(":", 1)[0]
        if method != "CONNECT" or host not in hosts:
            sock.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            return
        sock.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
        tls = tls_context.wrap_socket(sock, server_side=True)
        forwarder(tls, ("127.0.0.1", 0), None)
    except (OSError, ssl.SSLError, ValueError):
        pass
    finally:
        try:
            sock.close()
        except OSError:
            pass


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cert", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--host", action="append", required=True)
    parser.add_argument("--upstream", required=True)
    parser.add_argument("--port-file", required=True)
    args = parser.parse_args()

    tls_context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    tls_context.load_cert_chain(args.cert, args.key)
    forwarder = make_forwarder(args.upstream)
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    temporary = args.port_file + ".tmp"
    with open(temporary, "w") as out:
        out.write(str(listener.getsockname()[1]))
    os.rename(temporary, args.port_file)
    hosts = set(args.host)
    while True:
        client, _ = listener.accept()
        threading.Thread(target=serve_client, args=(client, hosts, tls_context, forwarder), daemon=True).start()


if __name__ == "__main__":
    main()
