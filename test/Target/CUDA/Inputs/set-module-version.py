"""Rewrites the format_version field of a .stridemod file in place (for the
module-version test): follows the size-prefixed FlatBuffer's root offset to
the Module table and its vtable to field 0 (lib/Module/StrideModule.fbs)."""
import struct
import sys

path, version = sys.argv[1], int(sys.argv[2])
data = bytearray(open(path, "rb").read())
table = 4 + struct.unpack_from("<I", data, 4)[0]
vtable = table - struct.unpack_from("<i", data, table)[0]
field = struct.unpack_from("<H", data, vtable + 4)[0]
if field == 0:
    sys.exit("set-module-version: the module has no format_version field")
struct.pack_into("<I", data, table + field, version)
open(path, "wb").write(bytes(data))
