#!/usr/bin/env python3
"""A test stand-in for Google's IAP TCP-forwarding relay (wss://tunnel.cloudproxy.app, /v4).

Written from the project's notes on the protocol (../shared/notes/tpu-vm-ray.md, section 2.7), not
from Google's code, so that tputrain's tunnel and the real `gcloud beta compute start-iap-tunnel`
can both be run against one relay on this machine. Standard library only: asyncio, ssl and the
RFC 6455 server framing written out here.

What it checks, as the real relay would: the upgrade is a WebSocket GET over TLS to /v4/connect
(query project, port, newWebsocket, zone, instance, interface) or /v4/reconnect (sid, ack,
newWebsocket, zone); Sec-WebSocket-Protocol offers relay.tunnel.cloudproxy.app; Origin is
bot:iap-tunneler; Authorization is "Bearer T" for a --token T (else 401). It then connects to
--target-host at the query's port (the instance's port), sends CONNECT_SUCCESS_SID, and moves
bytes as DATA frames both ways, acknowledging with ACK once more than 2 x 16384 bytes came in
since the last one, and keeping what it sent until the client acknowledges it.
If nothing listens on the port, the WebSocket is closed with 4003, as IAP does when it cannot
reach the port (nothing listening, or no firewall rule for 35.235.240.0/20).

Faults for tests:
  --close-4004-after-downstream-bytes N  once, when the bytes sent to the client would pass N:
      that DATA frame is held back (as if lost in flight) and the WebSocket is closed with 4004
      ("reauthenticate"); after /v4/reconnect the relay sends RECONNECT_SUCCESS_ACK and resends
      all the client had not received (the reconnect's ack parameter).
  --close-4004-after-upstream-bytes N  once, when the bytes from the client would pass N: that
      frame and any after it on the same WebSocket are dropped and the WebSocket closed with 4004;
      RECONNECT_SUCCESS_ACK then tells the client how much arrived, and it must resend the rest.
  --refuse-status CODE  every upgrade is answered with CODE (e.g. 403: missing IAM role).

--log FILE gets one JSON line per upgrade (path, query, the checked headers, never the token);
the chosen port is written to --port-file once the relay listens. Stop it with SIGTERM.
"""
import argparse
import asyncio
import base64
import hashlib
import json
import os
import secrets
import ssl
import struct
import urllib.parse

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
SUBPROTOCOL = "relay.tunnel.cloudproxy.app"
ORIGIN = "bot:iap-tunneler"
MAX_DATA = 16384
ACK_THRESHOLD = 2 * MAX_DATA
CONNECT_SUCCESS_SID, RECONNECT_SUCCESS_ACK, DATA, ACK = 0x0001, 0x0002, 0x0004, 0x0007
OP_CONTINUATION, OP_BINARY, OP_CLOSE, OP_PING, OP_PONG = 0x0, 0x2, 0x8, 0x9, 0xA
CONNECT_PARAMS = ("project", "port", "newWebsocket", "zone", "instance", "interface")
RECONNECT_PARAMS = ("sid", "ack", "newWebsocket", "zone")


class ProtocolError(Exception):
    pass


def ws_frame(opcode, payload):
    head = bytes([0x80 | opcode])
    if len(payload) < 126:
        head += bytes([len(payload)])
    elif len(payload) < 65536:
        head += bytes([126]) + struct.pack(">H", len(payload))
    else:
        head += bytes([127]) + struct.pack(">Q", len(payload))
    return head + payload  # server frames are not masked


async def read_ws_frame(reader):
    first, second = await reader.readexactly(2)
    length = second & 0x7F
    if length == 126:
        length = struct.unpack(">H", await reader.readexactly(2))[0]
    elif length == 127:
        length = struct.unpack(">Q", await reader.readexactly(8))[0]
    if not second & 0x80:
        raise ProtocolError("client frame not masked")
    if length > 1 << 20:
        raise ProtocolError("frame too long")
    mask = await reader.readexactly(4)
    payload = bytearray(await reader.readexactly(length))
    for i in range(length):
        payload[i] ^= mask[i % 4]
    return bool(first & 0x80), first & 0x0F, bytes(payload)


async def read_ws_message(reader, writer):
    """The next data or close message, (opcode, payload); pings are answered here."""
    opcode, parts = None, []
    while True:
        fin, frame_opcode, payload = await read_ws_frame(reader)
        if frame_opcode == OP_PING:
            writer.write(ws_frame(OP_PONG, payload))
            continue
        if frame_opcode == OP_PONG:
            continue
        if frame_opcode == OP_CLOSE:
            return OP_CLOSE, payload
        if frame_opcode != OP_CONTINUATION:
            opcode = frame_opcode
        parts.append(payload)
        if fin:
            return opcode, b"".join(parts)


def tunnel_frame(tag, payload=b"", count=None):
    if count is not None:
        return struct.pack(">HQ", tag, count)
    return struct.pack(">HI", tag, len(payload)) + payload


class Session:
    """One tunnelled TCP connection; it outlives the WebSockets that carry it."""

    def __init__(self, sid, target_reader, target_writer):
        self.sid = sid
        self.target_reader = target_reader
        self.target_writer = target_writer
        self.from_client = 0  # bytes received from the client and written to the target
        self.from_client_acked = 0  # what the last ACK to the client said
        self.to_client = bytearray()  # sent (or held back) but not acknowledged by the client
        self.to_client_acked = 0
        self.websocket = None  # the writer of the WebSocket that carries the session now
        self.target_ended = False

    def acknowledge(self, total):
        sent = self.to_client_acked + len(self.to_client)
        if not self.to_client_acked <= total <= sent:
            raise ProtocolError("ACK %d outside [%d, %d]" % (total, self.to_client_acked, sent))
        del self.to_client[: total - self.to_client_acked]
        self.to_client_acked = total


class Relay:
    def __init__(self, args):
        self.args = args
        self.sessions = {}
        self.downstream_fault = args.close_4004_after_downstream_bytes
        self.upstream_fault = args.close_4004_after_upstream_bytes

    def log(self, entry):
        if self.args.log:
            with open(self.args.log, "a") as out:
                out.write(json.dumps(entry) + "\n")

    async def send(self, writer, payload):
        writer.write(ws_frame(OP_BINARY, payload))
        await writer.drain()

    async def close(self, writer, code):
        writer.write(ws_frame(OP_CLOSE, struct.pack(">H", code)))
        await writer.drain()

    async def send_data(self, session, data):
        for start in range(0, len(data), MAX_DATA):
            await self.send(session.websocket, tunnel_frame(DATA, data[start : start + MAX_DATA]))

    async def pump_target(self, session):
        """Target → client, for the session's whole life, whichever WebSocket carries it."""
        while True:
            data = await session.target_reader.read(65536)
            if not data:
                break
            sent_total = session.to_client_acked + len(session.to_client)
            session.to_client += data
            if session.websocket is None:
                continue  # resent on reconnect
            if self.downstream_fault is not None and sent_total + len(data) > self.downstream_fault:
                self.downstream_fault = None
                websocket, session.websocket = session.websocket, None
                await self.close(websocket, 4004)
                continue
            await self.send_data(session, data)
        session.target_ended = True
        if session.websocket is not None:
            await self.close(session.websocket, 1000)

    async def pump_client(self, session, reader, writer):
        """Client → target on one WebSocket, until it closes or the relay drops it."""
        while session.websocket is writer:
            opcode, payload = await read_ws_message(reader, writer)
            if session.websocket is not writer:
                break  # a fault closed this WebSocket: whatever follows on it is lost
            if opcode == OP_CLOSE:
                session.websocket = None
                if not session.target_ended:  # else this is the reply to the relay's own close
                    writer.write(ws_frame(OP_CLOSE, payload[:2]))
                session.target_writer.close()
                self.sessions.pop(session.sid, None)
                return
            if opcode != OP_BINARY or len(payload) < 2:
                raise ProtocolError("expected a binary tunnel frame")
            tag = struct.unpack(">H", payload[:2])[0]
            if tag == DATA:
                (length,) = struct.unpack(">I", payload[2:6])
                data = payload[6:]
                if length != len(data) or length > MAX_DATA:
                    raise ProtocolError("bad DATA frame")
                if self.upstream_fault is not None and session.from_client + length > self.upstream_fault:
                    self.upstream_fault = None
                    session.websocket = None
                    await self.close(writer, 4004)
                    break
                session.target_writer.write(data)
                await session.target_writer.drain()
                session.from_client += length
                if session.from_client - session.from_client_acked > ACK_THRESHOLD:
                    session.from_client_acked = session.from_client
                    await self.send(writer, tunnel_frame(ACK, count=session.from_client))
            elif tag == ACK:
                (total,) = struct.unpack(">Q", payload[2:10])
                session.acknowledge(total)
            else:
                raise ProtocolError("unexpected tag %d from the client" % tag)
        # Read the client's close reply (or its end) so the TLS connection ends cleanly.
        try:
            while (await read_ws_message(reader, writer))[0] != OP_CLOSE:
                pass
        except (asyncio.IncompleteReadError, ConnectionError, ProtocolError):
            pass

    async def handshake(self, reader, writer):
        """Checks the upgrade; returns (path, query) after the 101, or None after refusing."""
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        method, target = lines[0].split(" ")[:2]
        headers = {}
        for line in lines[1:]:
            if ":" in line:
                name, value = line.split(":", 1)
                headers[name.strip().lower()] = value.strip()
        url = urllib.parse.urlsplit(target)
        query = dict(urllib.parse.parse_qsl(url.query, keep_blank_values=True))
        token = headers.get("authorization", "")
        authorized = token.startswith("Bearer ") and token[len("Bearer ") :] in self.args.token
        offered = [p.strip() for p in headers.get("sec-websocket-protocol", "").split(",")]
        self.log({"path": url.path, "query": query, "origin": headers.get("origin"),
                  "subprotocol": headers.get("sec-websocket-protocol"), "user_agent": headers.get("user-agent"),
                  "authorized": authorized})

        def refuse(status, reason, text):
            body = text.encode()
            writer.write(("HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n"
                          "Connection: close\r\n\r\n" % (status, reason, len(body))).encode() + body)

        required = {"/v4/connect": CONNECT_PARAMS, "/v4/reconnect": RECONNECT_PARAMS}.get(url.path)
        if self.args.refuse_status:
            refuse(self.args.refuse_status, "Refused", "refused by the test relay")
        elif method != "GET" or required is None or headers.get("upgrade", "").lower() != "websocket":
            refuse(404, "Not Found", "not a tunnel endpoint: %s %s" % (method, url.path))
        elif not authorized:
            refuse(401, "Unauthorized", "missing or unknown bearer token")
        elif headers.get("origin") != ORIGIN or SUBPROTOCOL not in offered:
            refuse(400, "Bad Request", "expected Origin %s and subprotocol %s" % (ORIGIN, SUBPROTOCOL))
        elif any(not query.get(name) for name in required):
            refuse(400, "Bad Request", "missing query parameters: %s" % [n for n in required if not query.get(n)])
        else:
            accept = base64.b64encode(hashlib.sha1((headers["sec-websocket-key"] + GUID).encode()).digest())
            writer.write(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                         b"Sec-WebSocket-Accept: " + accept + b"\r\nSec-WebSocket-Protocol: " +
                         SUBPROTOCOL.encode() + b"\r\n\r\n")
            await writer.drain()
            return url.path, query
        await writer.drain()
        return None

    async def connect(self, query, reader, writer):
        try:
            port = int(query["port"])
            target_reader, target_writer = await asyncio.open_connection(self.args.target_host, port)
        except (OSError, ValueError):
            await self.close(writer, 4003)  # IAP could not reach the instance's port
            return
        session = Session(secrets.token_hex(16), target_reader, target_writer)
        self.sessions[session.sid] = session
        session.websocket = writer
        await self.send(writer, tunnel_frame(CONNECT_SUCCESS_SID, session.sid.encode()))
        asyncio.ensure_future(self.pump_target(session))
        await self.pump_client(session, reader, writer)

    async def reconnect(self, query, reader, writer):
        session = self.sessions.get(query["sid"])
        if session is None:
            await self.close(writer, 4030)  # no such session
            return
        session.acknowledge(int(query["ack"]))
        await self.send(writer, tunnel_frame(RECONNECT_SUCCESS_ACK, count=session.from_client))
        session.websocket = writer
        await self.send_data(session, bytes(session.to_client))
        if session.target_ended:
            await self.close(writer, 1000)
        await self.pump_client(session, reader, writer)

    async def serve(self, reader, writer):
        try:
            upgraded = await self.handshake(reader, writer)
            if upgraded is not None:
                path, query = upgraded
                await (self.connect if path == "/v4/connect" else self.reconnect)(query, reader, writer)
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError, ssl.SSLError,
                ProtocolError, ValueError) as error:
            self.log({"error": repr(error)})
        finally:
            writer.close()


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cert", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--token", action="append", required=True)
    parser.add_argument("--target-host", default="127.0.0.1")
    parser.add_argument("--port-file", required=True)
    parser.add_argument("--log")
    parser.add_argument("--close-4004-after-downstream-bytes", type=int)
    parser.add_argument("--close-4004-after-upstream-bytes", type=int)
    parser.add_argument("--refuse-status", type=int)
    args = parser.parse_args()

    tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    tls.load_cert_chain(args.cert, args.key)
    relay = Relay(args)
    server = await asyncio.start_server(relay.serve, "127.0.0.1", 0, ssl=tls)
    temporary = args.port_file + ".tmp"
    with open(temporary, "w") as out:
        out.write(str(server.sockets[0].getsockname()[1]))
    os.rename(temporary, args.port_file)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
