#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A stand-in for a Pyroscope server's POST /ingest, for test-push.sh.

No real Pyroscope is packaged for Debian, so the tests check what
perfrec-push sends against what Pyroscope's ingest API documents: this
server records every request into DIR as N.json (method, path, query,
headers, status) and N.body, and the multipart form's fields as
N.profile and N.sample_type_config.  DIR/mode says how to answer, read
at each request: "ok" (200), "400" or "401" (with a message), "500",
"hang" (read the request, never answer), "429 VALUE" or "503 VALUE"
(with "Retry-After: VALUE", as written, except "+N": the HTTP-date N
seconds from now), "big-header" (200 after a header line of 8 MiB),
"many-headers" (200 after 8 MiB of 100-byte header lines) or
"big-status" (a status line of 8 MiB, its reason phrase), "first N" (200
to the first N requests, then 500).  Listens on
127.0.0.1 only, on --port (0: any free port), written to DIR/port when
ready.
"""
import argparse
import email.utils
import json
import os
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

counter_lock = threading.Lock()
counter = [0]


def multipart_fields(content_type, body):
    """The fields of a multipart/form-data body, by name."""
    params = {}
    for item in content_type.split(';')[1:]:
        if '=' in item:
            key, value = item.strip().split('=', 1)
            params[key.lower()] = value.strip('"')
    boundary = params.get('boundary')
    if not boundary:
        return {}
    fields = {}
    for part in body.split(b'--' + boundary.encode())[1:]:
        if part.startswith(b'--'):
            break
        head, _, data = part.partition(b'\r\n\r\n')
        if data.endswith(b'\r\n'):
            data = data[:-2]
        name = None
        for line in head.decode('latin-1').split('\r\n'):
            if line.lower().startswith('content-disposition:'):
                for item in line.split(';')[1:]:
                    item = item.strip()
                    if item.startswith('name='):
                        name = item[5:].strip('"')
        if name:
            fields[name] = data
    return fields


class Handler(BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'

    def log_message(self, format, *args):
        pass

    def do_POST(self):
        directory = self.server.directory
        length = int(self.headers.get('Content-Length') or 0)
        body = self.rfile.read(length) if length else b''
        try:
            with open(os.path.join(directory, 'mode')) as f:
                mode = f.read().strip()
        except OSError:
            mode = 'ok'
        with counter_lock:
            counter[0] += 1
            n = counter[0]
        retry_after = None
        if mode.split(' ')[0] in ('429', '503') and ' ' in mode:
            mode, retry_after = mode.split(' ', 1)
            if retry_after.startswith('+'):
                retry_after = email.utils.formatdate(time.time() + int(retry_after[1:]),
                                                     usegmt=True)
        if mode.startswith('first '):
            mode = 'ok' if n <= int(mode.split(' ', 1)[1]) else '500'
        status = {'ok': 200, '400': 400, '401': 401, '429': 429, '500': 500, '503': 503,
                  'big-header': 200, 'many-headers': 200, 'big-status': 200}.get(mode, 0)
        url = urllib.parse.urlsplit(self.path)
        record = {
            'method': self.command,
            'path': url.path,
            'query': urllib.parse.parse_qs(url.query),
            'headers': {k: v for k, v in self.headers.items()},
            'status': status,
            'time': time.time(),
        }
        base = os.path.join(directory, '%d-%06d' % (os.getpid(), n))
        with open(base + '.body', 'wb') as f:
            f.write(body)
        for name, data in multipart_fields(self.headers.get('Content-Type', ''), body).items():
            if name in ('profile', 'sample_type_config'):
                with open(base + '.' + name, 'wb') as f:
                    f.write(data)
        # The record last: a reader that sees N.json sees the rest.
        with open(base + '.json.tmp', 'w') as f:
            json.dump(record, f)
        os.rename(base + '.json.tmp', base + '.json')
        if mode == 'hang':
            time.sleep(3600)
            return
        message = {200: b'', 400: b'profile too old: outside the ingestion window\n',
                   401: b'invalid credentials: token expired\n',
                   429: b'slow down\n', 500: b'internal error, try later\n',
                   503: b'down for maintenance\n'}[status]
        self.send_response(status, 'a' * (8 << 20) if mode == 'big-status' else None)
        self.send_header('Content-Type', 'text/plain')
        self.send_header('Content-Length', str(len(message)))
        if retry_after is not None:
            self.send_header('Retry-After', retry_after)
        if mode == 'big-header':
            self.send_header('X-Filler', 'a' * (8 << 20))
        elif mode == 'many-headers':
            for i in range((8 << 20) // 100):
                self.send_header('X-Filler-%07d' % i, 'a' * 80)
        try:
            self.end_headers()
            self.wfile.write(message)
        except OSError:
            # perfrec-push hung up on a header too large.
            self.close_connection = True


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--port', type=int, default=0)
    parser.add_argument('directory')
    args = parser.parse_args()
    server = Server(('127.0.0.1', args.port), Handler)
    server.directory = args.directory
    port_file = os.path.join(args.directory, 'port')
    with open(port_file + '.tmp', 'w') as f:
        f.write('%d\n' % server.server_address[1])
    os.rename(port_file + '.tmp', port_file)
    server.serve_forever()


if __name__ == '__main__':
    main()
