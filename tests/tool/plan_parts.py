"""The tool tests' forged plans: reseal(source, destination, edit) rewrites a serialized plan part
by part, edit(tag, body) returning each part's new body, and seals the result again with the
FNV-1a checksum over everything before it, so that only the edited contents are wrong."""
import struct


def reseal(source, destination, edit):
    data = open(source, 'rb').read()
    out, at = bytearray(data[:24]), 24
    while at < len(data) - 8:
        tag, length = struct.unpack_from('<IQ', data, at)
        body = edit(tag, data[at + 12:at + 12 + length])
        out += struct.pack('<IQ', tag, len(body)) + body
        at += 12 + length
    h = 14695981039346656037
    for c in out:
        h = ((h ^ c) * 1099511628211) & 0xffffffffffffffff
    open(destination, 'wb').write(bytes(out) + struct.pack('<Q', h))
