"""A PNG decoder for the figure tests: 8-bit greyscale, RGB and RGBA, no interlace.

Only what cairo and Chromium write; anything else raises ValueError, so a
test never mistakes an unreadable file for a blank one.
"""

import struct
import zlib


def read_png(path):
    """Returns (width, height, rows): rows[y] is a list of (r, g, b) tuples."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path}: not a PNG file")
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if zlib.crc32(kind + body) != struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])[0]:
            raise ValueError(f"{path}: bad CRC in chunk {kind!r}")
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
        pos += 12 + n
    if not ihdr:
        raise ValueError(f"{path}: no IHDR")
    w, h, depth, ctype, _, _, interlace = ihdr
    channels = {0: 1, 2: 3, 6: 4}.get(ctype)
    if depth != 8 or channels is None or interlace:
        raise ValueError(f"{path}: unsupported PNG (depth {depth}, colour type {ctype})")
    raw = zlib.decompress(idat)
    stride = w * channels
    prev = bytearray(stride)
    rows = []
    for y in range(h):
        ftype = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = prev[i]
            c = prev[i - channels] if i >= channels else 0
            if ftype == 1:
                line[i] = (line[i] + a) & 0xFF
            elif ftype == 2:
                line[i] = (line[i] + b) & 0xFF
            elif ftype == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xFF
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 0xFF
            elif ftype != 0:
                raise ValueError(f"{path}: bad filter {ftype} in row {y}")
        prev = line
        if channels == 1:
            rows.append([(v, v, v) for v in line])
        else:
            rows.append([tuple(line[x * channels:x * channels + 3]) for x in range(w)])
    return w, h, rows


def count_pixels(rows, pred, box=None):
    """Pixels (r, g, b) in box (x0, y0, x1, y1; default all) for which pred holds."""
    h = len(rows)
    w = len(rows[0]) if rows else 0
    x0, y0, x1, y1 = box or (0, 0, w, h)
    return sum(1 for y in range(y0, y1) for x in range(x0, x1) if pred(rows[y][x]))
