"""A small OTLP/HTTP trace receiver for the end-to-end suite (issue 42): what an OpenTelemetry Collector would be,
reduced to `POST /v1/traces` with a protobuf body (gzip'd or not), decoded with the `opentelemetry-proto` package
(pinned in scripts/setup.sh).

Each received span is kept as a plain dict (see `span_dict`); each export request as a dict of its headers,
status and span count (see `OTLPReceiver.exports`). Anything else is answered 404 or 415 and recorded too, so a
test that waits in vain can say what did arrive.
"""

import gzip
import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.trace.v1.trace_pb2 import Span, Status

from browser_support import wait_for

TRACES_PATH = "/v1/traces"
PROTOBUF = "application/x-protobuf"

# Span kinds as `span_dict` gives them: the proto enum's names.
INTERNAL = "SPAN_KIND_INTERNAL"
SERVER = "SPAN_KIND_SERVER"
CLIENT = "SPAN_KIND_CLIENT"
PRODUCER = "SPAN_KIND_PRODUCER"
CONSUMER = "SPAN_KIND_CONSUMER"


def any_value(value):
    """An OTLP AnyValue as a Python value: str, bool, int, float, bytes, list or dict (None when unset)."""
    which = value.WhichOneof("value")
    if which is None:
        return None
    if which == "array_value":
        return [any_value(v) for v in value.array_value.values]
    if which == "kvlist_value":
        return attributes(value.kvlist_value.values)
    return getattr(value, which)


def attributes(key_values):
    """Repeated KeyValue as a dict of key -> Python value."""
    return {kv.key: any_value(kv.value) for kv in key_values}


def span_dict(span, resource):
    """A proto Span as a dict: name, kind (enum name, e.g. "SPAN_KIND_SERVER"), trace_id, span_id and
    parent_span_id (lower-case hex; "" for a root span), attributes, links ([{trace_id, span_id, attributes}]),
    resource (the resource's attributes), status (enum name, e.g. "STATUS_CODE_UNSET")."""
    return {
        "name": span.name,
        "kind": Span.SpanKind.Name(span.kind),
        "trace_id": span.trace_id.hex(),
        "span_id": span.span_id.hex(),
        "parent_span_id": span.parent_span_id.hex(),
        "attributes": attributes(span.attributes),
        "links": [{"trace_id": link.trace_id.hex(), "span_id": link.span_id.hex(), "attributes": attributes(link.attributes)}
                  for link in span.links],
        "resource": resource,
        "status": Status.StatusCode.Name(span.status.code),
    }


def read_body(handler):
    """The request's body: by Content-Length, or chunked; inflated when its Content-Encoding is gzip."""
    if "chunked" in handler.headers.get("Transfer-Encoding", "").lower():
        body = b""
        while True:
            size = int(handler.rfile.readline().split(b";")[0].strip(), 16)
            chunk = handler.rfile.read(size + 2)  # the chunk and its CRLF
            if size == 0:
                break
            body += chunk[:size]
    else:
        body = handler.rfile.read(int(handler.headers.get("Content-Length", 0)))
    if handler.headers.get("Content-Encoding", "").lower() == "gzip":
        body = gzip.decompress(body)
    return body


class OTLPReceiver:
    """An OTLP/HTTP receiver on 127.0.0.1 (a free port), served by daemon threads from construction until `stop`.

    Also a context manager: `with OTLPReceiver() as receiver:` stops it on exit."""

    def __init__(self):
        self.lock = threading.Lock()
        self._spans = []
        self._exports = []
        self._connections = set()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as exporters expect

            def log_message(self, *args):
                pass

            def setup(self):
                super().setup()
                with receiver.lock:
                    receiver._connections.add(self.connection)

            def finish(self):
                with receiver.lock:
                    receiver._connections.discard(self.connection)
                super().finish()

            def do_POST(self):
                receiver._export(self)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        self.stopped = False

    # -- what arrived

    def spans(self):
        """A snapshot of every span received so far, in order of arrival."""
        with self.lock:
            return list(self._spans)

    def exports(self):
        """A snapshot of every request received: {"path", "headers" (lower-case names), "status", "spans"}."""
        with self.lock:
            return [dict(e) for e in self._exports]

    def wait_for(self, predicate, timeout=15, count=1):
        """Waits until at least `count` received spans satisfy `predicate(span)`; returns those spans. Fails with a
        summary of what did arrive when the time runs out."""
        def matching():
            hits = [s for s in self.spans() if predicate(s)]
            return hits if len(hits) >= count else None

        try:
            return wait_for(matching, timeout=timeout)
        except AssertionError:
            raise AssertionError(f"no {count} matching span(s) in {timeout} s; received: {self.summary()}") from None

    def summary(self, limit=60):
        """The received spans, shortened for a failure message, and the statuses of the export requests."""
        spans = [(s["name"], s["kind"], s["trace_id"][:8], s["span_id"][:8], s["parent_span_id"][:8]) for s in self.spans()]
        statuses = [(e["path"], e["status"]) for e in self.exports()]
        return json.dumps({"spans": spans[-limit:], "span_count": len(spans), "exports": statuses[-limit:]})

    # -- lifecycle

    def stop(self):
        """Closes the listening socket and every open connection: the port refuses connections from now on."""
        if self.stopped:
            return
        self.stopped = True
        self.httpd.shutdown()
        self.httpd.server_close()
        with self.lock:
            connections = list(self._connections)
        for connection in connections:
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()

    # -- the endpoint

    def _export(self, handler):
        path = handler.path.split("?", 1)[0]
        record = {"path": path, "headers": {k.lower(): v for k, v in handler.headers.items()}, "status": None, "spans": 0}
        spans = []
        try:
            body = read_body(handler)
            media_type = handler.headers.get("Content-Type", "").split(";")[0].strip().lower()
            if path != TRACES_PATH:
                status = 404
            elif media_type != PROTOBUF:
                status = 415
            else:
                request = ExportTraceServiceRequest()
                request.ParseFromString(body)
                for resource_spans in request.resource_spans:
                    resource = attributes(resource_spans.resource.attributes)
                    for scope_spans in resource_spans.scope_spans:
                        spans += [span_dict(span, resource) for span in scope_spans.spans]
                status = 200
        except (DecodeError, OSError, ValueError, EOFError):
            status = 400
        record["status"], record["spans"] = status, len(spans)
        with self.lock:
            self._exports.append(record)
            self._spans += spans
        answer = ExportTraceServiceResponse().SerializeToString() if status == 200 else b""
        handler.close_connection = status != 200  # the rest of a refused body may still be on the connection
        try:
            handler.send_response(status)
            handler.send_header("Content-Type", PROTOBUF if status == 200 else "text/plain")
            handler.send_header("Content-Length", str(len(answer)))
            handler.end_headers()
            handler.wfile.write(answer)
            handler.wfile.flush()
        except OSError:
            pass
