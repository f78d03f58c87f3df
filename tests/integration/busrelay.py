# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""A relay between one client (the service) and the test's bus that can
swallow the client's questions to the bus about who another connection is
(GetConnectionCredentials), as a dbus-daemon too overloaded to answer
would. dbus-daemon answers its own methods at once, so this is the only way
to make it that slow on purpose.

The relay passes the authentication lines through untouched (the bus sees
the relay's credentials: the test's, root, like the service's), then
splits the client's byte stream into messages by their fixed header; the
bus's side is passed through as it comes. No file descriptors pass: the
service sends none."""

import os
import socket
import struct
import threading

HEADER = struct.Struct('<cBBBIII')   # endianness, type, flags, version, body, serial, fields
BIG_ENDIAN_HEADER = struct.Struct('>cBBBIII')
METHOD_CALL = 1


def message_length(head):
    """The whole length of the message whose first 16 bytes are @head."""
    fmt = BIG_ENDIAN_HEADER if head[:1] == b'B' else HEADER
    _, _, _, _, body, _, fields = fmt.unpack(head)
    return 16 + (fields + 7) // 8 * 8 + body


def shut(*sockets):
    """Ends both ways of each socket, so that the threads reading them stop."""
    for s in sockets:
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


class BusRelay:
    def __init__(self, bus_socket, directory):
        self.bus_socket = bus_socket
        self.path = os.path.join(directory, 'relay_socket')
        self.address = 'unix:path=' + self.path
        self.swallow = threading.Event()
        self.swallowed = 0
        self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._listener.bind(self.path)
        self._listener.listen(8)
        self._sockets = [self._listener]
        threading.Thread(target=self._accept, daemon=True).start()

    def close(self):
        shut(*self._sockets)
        for s in self._sockets:
            s.close()

    def _accept(self):
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            bus = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            bus.connect(self.bus_socket)
            self._sockets += [client, bus]
            threading.Thread(target=self._pass, args=(bus, client), daemon=True).start()
            threading.Thread(target=self._from_client, args=(client, bus), daemon=True).start()

    @staticmethod
    def _pass(source, sink):
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            shut(source, sink)

    def _from_client(self, client, bus):
        pending, authenticated = b'', False
        try:
            while data := client.recv(65536):
                pending += data
                # the authentication's lines, whole, until BEGIN
                while not authenticated and b'\r\n' in pending:
                    line, pending = pending.split(b'\r\n', 1)
                    bus.sendall(line + b'\r\n')
                    authenticated = line == b'BEGIN'
                if not authenticated:
                    continue
                while len(pending) >= 16 and len(pending) >= message_length(pending[:16]):
                    length = message_length(pending[:16])
                    message, pending = pending[:length], pending[length:]
                    if self._swallows(message):
                        self.swallowed += 1
                    else:
                        bus.sendall(message)
        except OSError:
            pass
        finally:
            shut(client, bus)

    def _swallows(self, message):
        fmt = BIG_ENDIAN_HEADER if message[:1] == b'B' else HEADER
        kind, fields = fmt.unpack(message[:16])[1], fmt.unpack(message[:16])[6]
        return (self.swallow.is_set() and kind == METHOD_CALL and
                b'GetConnectionCredentials' in message[16:16 + fields])
