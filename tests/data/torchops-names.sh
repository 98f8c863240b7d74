#!/bin/sh
# Makes tests/data/torchops-names.txt: every at::_ops::<struct>::call that
# libtorch_cpu.so exports, and the operator name torch itself gives the
# struct (its schema's name; the struct is <name>_<overload>). Run it on a
# machine with python3-torch (Debian's 1.13 made the committed file).
set -eu
py=${PYTHON:-/usr/bin/python3}
lib=$("$py" -c 'import torch, os; print(os.path.join(os.path.dirname(torch.__file__), "lib", "libtorch_cpu.so"))')
nm -D --demangle "$lib" | sed -n 's/.* at::_ops::\([A-Za-z0-9_]*\)::call(.*/\1/p' | sort -u >"${TMPDIR:-/tmp}/torchops-structs.$$"
"$py" - "${TMPDIR:-/tmp}/torchops-structs.$$" <<'PY'
import sys, torch
names = {}
for s in torch._C._jit_get_all_schemas():
    if s.name.startswith("aten::"):
        base = s.name.split("::")[-1]
        names[base + ("_" + s.overload_name if s.overload_name else "")] = s.name
print("# at::_ops::<struct>::call symbols of Debian's libtorch_cpu.so (torch %s)" % torch.__version__.split("+")[0])
print("# and the operator name torch gives each (torch._C._jit_get_all_schemas()):")
print("# struct<TAB>name; made by tests/data/torchops-names.sh")
for line in open(sys.argv[1]):
    st = line.strip()
    if st in names:
        print(st + "\t" + names[st])
PY
rm -f "${TMPDIR:-/tmp}/torchops-structs.$$"
