#!/usr/bin/python3
"""The operator name of every at::_ops::<struct>::call that a libtorch
exports, from its own strings, computed apart from yardstick's table
(profile/torchops_table.c), the other way round: from each struct's
possible splits to the strings, with binutils' nm and strings.

A split (op, overload) of the struct's name at one of its '_' (or none)
is confirmed by a schema string "[aten::]op[.overload](... -> ...": one
that begins a string first; else one in a string's tail (the linker
merges "erf.out(...)" into the end of "special_erf.out(...)").

Prints "lib<TAB>PATH", then "struct<TAB>aten::op" for each struct one
split confirms, "struct<TAB>?" for none or several. Argument: the
library (default: python3-torch's libtorch_cpu.so, found without
importing torch)."""
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


def main():
    lib = os.path.realpath(library())
    hs = heads(lib)
    tails = sorted(hs)
    print("lib\t" + lib)
    for st in structs(lib):
        print(st + "\t" + name_of(st, hs, tails))


main()
