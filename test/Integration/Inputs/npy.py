"""Writes a .npy file (format 1.0, C order) with the standard library only
(Debian's python3 has no numpy).

    npy.py OUT DTYPE SHAPE [VALUE ...]

DTYPE is a .npy type code (f4, f8, f2, i8, i4, i1, b1), SHAPE is D0xD1x...
(empty for a 0-d array). The values are written as given, without checking
their number against the shape, so that a test can make a file whose data
does not match its header.
"""

import struct
import sys

FORMATS = {"f4": "f", "f8": "d", "f2": "e", "i8": "q", "i4": "i",
           "i1": "b", "b1": "?"}


def main():
    out, dtype, shape_text, *values = sys.argv[1:]
    shape = tuple(int(d) for d in shape_text.split("x")) if shape_text else ()
    fmt = FORMATS[dtype]
    shape_repr = "(%s)" % "".join("%d," % d for d in shape) if len(shape) == 1 \
        else "(%s)" % ", ".join(str(d) for d in shape)
    header = "{'descr': '%s%s', 'fortran_order': False, 'shape': %s, }" % (
        "|" if dtype in ("i1", "b1") else "<", dtype, shape_repr)
    # Pad so that the data starts at a multiple of 64 bytes, newline last.
    total = 10 + len(header) + 1
    header += " " * ((64 - total % 64) % 64) + "\n"
    parse = float if dtype[0] == "f" else int
    data = b"".join(struct.pack("<" + fmt, parse(v)) for v in values)
    with open(out, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
        f.write(header.encode("latin1") + data)


if __name__ == "__main__":
    main()
