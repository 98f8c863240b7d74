#!/usr/bin/python3
"""The operator name of every at::_ops::<struct>::call that a libtorch
exports, from its own strings, computed apart from yardstick's table
(profile/torchops_table.c), the other way round: from each struct's
possible splits to the strings, with binutils' nm and strings.

A split (op, overload) of the struct's name at one of its '_' (or none)
is confirmed by a schema string "[aten::]op[.overload](... -> ...": one
that begins a string first; else one in a string's tail (the linker
merges "erf.out(...)" into the end of "special_erf.out(...)").

Prints "lib<TAB>PATH", then "struct<TAB>aten::op<TAB>TORCH" for each
struct: aten::op when one split is confirmed, "?" for none or several;
TORCH the name torch itself gives the struct at run time (its schemas,
torch._C._jit_get_all_schemas(), "-" for none). Argument: the library
(default: python3-torch's libtorch_cpu.so)."""
import importlib.util
import os
import re
import subprocess
import sys


def library():
    if len(sys.argv) > 1:
        return sys.argv[1]
    spec = importlib.util.find_spec("torch")
    return os.path.join(os.path.dirname(spec.origin), "lib", "libtorch_cpu.so")


def structs(lib):
    out = subprocess.run(["nm", "-D", "--defined-only", "--demangle", lib],
                         capture_output=True, text=True, check=True).stdout
    return sorted(set(re.findall(r" at::_ops::(\w+)::call\(", out)))


def heads(lib):
    """'op.overload' or 'op' of every schema string, 'aten::' dropped."""
    out = subprocess.run(["strings", "-a", "-n", "6", lib],
                         capture_output=True, text=True, check=True).stdout
    pat = re.compile(r"^(?:aten::)?(\w+(?:\.\w+)?)\(.*\) -> ")
    return {m.group(1) for m in map(pat.match, out.splitlines()) if m}


def name_of(st, hs, tails):
    cands = [(st, "")] + [(st[:i], st[i + 1:]) for i in range(1, len(st) - 1)
                          if st[i] == "_"]
    key = lambda c: c[0] + ("." + c[1] if c[1] else "")
    whole = {c[0] for c in cands if key(c) in hs}
    if not whole:
        whole = {c[0] for c in cands
                 if any(h.endswith(key(c)) for h in tails)}
    return "aten::" + whole.pop() if len(whole) == 1 else "?"


def torch_names():
    import torch
    names = {}
    for s in torch._C._jit_get_all_schemas():
        if s.name.startswith("aten::"):
            base = s.name.split("::")[-1]
            ov = "_" + s.overload_name if s.overload_name else ""
            names[base + ov] = s.name
    return names


def main():
    lib = os.path.realpath(library())
    hs = heads(lib)
    tails = sorted(hs)
    torch_of = torch_names()
    print("lib\t" + lib)
    for st in structs(lib):
        print(st + "\t" + name_of(st, hs, tails) + "\t" +
              torch_of.get(st, "-"))


main()
