#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""trim_seed.py IN OUT [DATA_BYTES [LINES [zlib]]]: a fuzz seed (fuzz_reader
--unpack's output) cut to a few KiB: the first DATA_BYTES of records (whole
records, chunks kept), the SYSCALLS lines those records name, the
EVENT_FORMATS GFP names come from, the first LINES of STACKS and KSYMS;
chunks renumbered; metadata stored raw unless "zlib".  Every byte of a seed costs AFL++ time on every run."""
import struct
import sys

HDR = struct.Struct('<IHHIIII')
SYS_ENTER, DATA, SYSCALLS, FORMATS, KSYMS, STACKS = 1, 6, 4, 5, 7, 10
KEEP_FORMATS = (b'kmalloc',)

def chunks(d, pos):
    while pos + HDR.size <= len(d):
        h = list(HDR.unpack_from(d, pos))
        yield h, d[pos + HDR.size:pos + HDR.size + h[3]]
        pos += HDR.size + h[3]

def main():
    src, dst = sys.argv[1], sys.argv[2]
    budget = int(sys.argv[3]) if len(sys.argv) > 3 else 4000
    lines = int(sys.argv[4]) if len(sys.argv) > 4 else 12
    keep_zlib = len(sys.argv) > 5 and sys.argv[5] == 'zlib'
    d = open(src, 'rb').read()
    opts, d = d[:1], d[1:]
    hdr_size = struct.unpack_from('<H', d, 18)[0]
    out, nrs, kept, seq = [], set(), 0, 0
    parsed = list(chunks(d, hdr_size))
    for h, p in parsed:
        if h[1] != DATA:
            continue
        pos = 0
        while pos + 24 <= len(p) and kept + pos < budget:
            typ, size = struct.unpack_from('<HH', p, pos)
            if size < 24:
                break
            if typ == SYS_ENTER:
                nrs.add(struct.unpack_from('<i', p, pos + 24)[0])
            pos += size
        h.append(p[:pos])
        kept += pos
    for h, p in parsed:
        if h[1] == DATA:
            p = h.pop()
            if not p:
                continue
        elif h[1] == SYSCALLS:
            p = b''.join(l + b'\n' for l in p.split(b'\n')
                         if l and int(l.split(b'\t')[0]) in nrs)
        elif h[1] == FORMATS:
            blocks = [b'name: ' + b for b in p.split(b'name: ')[1:]]
            p = b''.join(b for b in blocks if b.split(b'\n')[0][6:] in KEEP_FORMATS)
        elif h[1] in (KSYMS, STACKS):
            p = b''.join(l + b'\n' for l in p.split(b'\n')[:lines] if l)
        if h[1] != DATA and not keep_zlib:
            h[2] &= ~0x701  # metadata stored raw: no compression per execution
        h[3] = h[4] = len(p)
        h[5] = seq
        seq += 1
        out.append(HDR.pack(*h[:7]) + p)
    open(dst, 'wb').write(opts + d[:hdr_size] + b''.join(out))

main()
