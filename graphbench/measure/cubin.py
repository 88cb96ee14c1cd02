"""The kernels a compiled cubin defines, read from its ELF symbol table
without a driver, so a missing kernel is found before any GPU work.

A cubin is an ELF64 file. A kernel (an entry function) is a FUNC symbol
whose st_other carries STO_CUDA_ENTRY (0x10); device functions lack it.
Its parameter count is the number of EIATTR_KPARAM_INFO (0x17) attributes
in its `.nv.info.<name>` section, one per parameter: the figure the driver
reports as cuFuncGetParamInfo / Kernel.num_arguments. These layouts are
nvcc's and undocumented (seen with NVRTC 12 and 13); anything unexpected
reads as "unknown", never as an error, and the run's own check remains.
"""

from __future__ import annotations

import struct

STT_FUNC, STO_CUDA_ENTRY, SHT_SYMTAB = 2, 0x10, 2
EIFMT_HVAL, EIFMT_SVAL, EIATTR_KPARAM_INFO = 3, 4, 0x17


def _sections(data: bytes) -> list[tuple]:
    if data[:4] != b"\x7fELF" or data[4] != 2:  # ELF64 only
        return []
    shoff, = struct.unpack_from("<Q", data, 0x28)
    entsize, count, _ = struct.unpack_from("<HHH", data, 0x3A)
    return [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * entsize) for i in range(count)]


def _name(data: bytes, table_offset: int, offset: int) -> str:
    start = table_offset + offset
    return data[start:data.index(b"\0", start)].decode("utf-8", "replace")


def entry_kernels(data: bytes) -> dict[str, int | None] | None:
    """{kernel name: parameter count or None}; None when `data` is no cubin
    this reader understands."""
    try:
        sections = _sections(data)
        if not sections:
            return None
        names = sections[struct.unpack_from("<H", data, 0x3E)[0]][4]
        kernels = {}
        for sec in (s for s in sections if s[1] == SHT_SYMTAB):
            strings = sections[sec[6]][4]
            for at in range(sec[4], sec[4] + sec[5], 24):
                st_name, info, other = struct.unpack_from("<IBB", data, at)
                if info & 0xF == STT_FUNC and other & STO_CUDA_ENTRY:
                    kernels[_name(data, strings, st_name)] = None
        for sec in sections:
            section = _name(data, names, sec[0])
            if section.removeprefix(".nv.info.") in kernels and section.startswith(".nv.info."):
                kernels[section[9:]] = _parameters(data[sec[4]:sec[4] + sec[5]])
        return kernels
    except (struct.error, ValueError, IndexError):
        return None


def _parameters(info: bytes) -> int | None:
    count, at = 0, 0
    while at + 2 <= len(info):
        fmt, attr = info[at], info[at + 1]
        if fmt == EIFMT_SVAL:
            size, = struct.unpack_from("<H", info, at + 2)
            count += attr == EIATTR_KPARAM_INFO
            at += 4 + size
        elif fmt in (1, 2, EIFMT_HVAL):  # NVAL: 2 bytes; BVAL, HVAL: 4
            at += 2 if fmt == 1 else 4
        else:
            return None
    return count
