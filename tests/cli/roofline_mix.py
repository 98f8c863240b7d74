"""The instruction mix of roofline --measure's compute kernels, from
objdump of the yardstick binary: each kernel's loop (the body between a
backward branch and its target) must hold ROOFK_NACC (14) independent
updates of the expected instructions, on registers of the expected width,
each accumulator its own register, and no other floating-point
arithmetic: a loop the compiler collapsed, fused or vectorized fails.
The memory kernels' inner loops: four vectors a step, each access a
ymm (xmm for sse2) operand in memory: load 4 reads, copy 4 reads and 4
writes, triad 8 reads and 4 writes.
Usage: roofline_mix.py BINARY"""
import re
import subprocess
import sys

NACC = 14
# kernel: (the update's instructions, register prefix)
KERNELS = {
    "roofk_fp64_scalar": (["mulsd", "addsd"], "xmm"),
    "roofk_fp32_scalar": (["mulss", "addss"], "xmm"),
    "roofk_fp64_sse2": (["mulpd", "addpd"], "xmm"),
    "roofk_fp32_sse2": (["mulps", "addps"], "xmm"),
    "roofk_fp64_avx2": (["vfmadd...pd"], "ymm"),
    "roofk_fp32_avx2": (["vfmadd...ps"], "ymm"),
    "roofk_fp64_avx512": (["vfmadd...pd"], "zmm"),
    "roofk_fp32_avx512": (["vfmadd...ps"], "zmm"),
}
FP = re.compile(r"^v?(add|sub|mul|div|fmadd|fmsub|fnmadd)\w*(s|p)(s|d)$")


def disasm(binary, fn):
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn",
                          "--disassemble=" + fn, binary],
                         capture_output=True, text=True, check=True).stdout
    ins = []
    for line in out.splitlines():
        m = re.match(r"^\s+([0-9a-f]+):\s+(\S+)\s*(.*)$", line)
        if m:
            ins.append((int(m.group(1), 16), m.group(2), m.group(3)))
    return ins


def loop(ins, fn):
    for addr, op, args in ins:
        m = re.match(r"([0-9a-f]+) <", args)
        if op.startswith("j") and m and int(m.group(1), 16) < addr:
            target = int(m.group(1), 16)
            return [x for x in ins if target <= x[0] <= addr]
    sys.exit("%s: no loop (no backward branch)" % fn)


def check(binary, fn, ops, reg):
    body = loop(disasm(binary, fn), fn)
    for want in ops:
        hits = [(op, args) for _, op, args in body if re.fullmatch(want, op)]
        if len(hits) != NACC:
            sys.exit("%s: %d %s in the loop, want %d:\n%s" % (
                fn, len(hits), want, NACC,
                "\n".join("%s %s" % (o, a) for _, o, a in body)))
        dests = set()
        for op, args in hits:
            regs = re.findall(r"%([xyz]mm\d+)", args)
            if not regs or any(not r.startswith(reg) for r in regs):
                sys.exit("%s: '%s %s' is not on %s registers" %
                         (fn, op, args, reg))
            dests.add(regs[-1])
        if len(dests) != NACC:
            sys.exit("%s: %s writes %d registers, want %d independent "
                     "accumulators" % (fn, want, len(dests), NACC))
    allowed = [re.compile(w) for w in ops]
    for _, op, args in body:
        if FP.match(op) and not any(a.fullmatch(op) for a in allowed):
            sys.exit("%s: unexpected '%s %s' in the loop" % (fn, op, args))
    print("%s: %d x %s on %s" % (fn, NACC, "+".join(ops), reg))


MEMORY = {"load": 4, "copy": 8, "triad": 12}


def check_memory(binary, fn, accesses, reg):
    body = loop(disasm(binary, fn), fn)
    got = [(op, args) for _, op, args in body
           if "(%" in args and re.search(r"%" + reg + r"\d", args)]
    if len(got) != accesses:
        sys.exit("%s: %d %s accesses to memory in the loop, want %d:\n%s" % (
            fn, len(got), reg, accesses,
            "\n".join("%s %s" % (o, a) for _, o, a in body)))
    print("%s: %d %s accesses to memory" % (fn, accesses, reg))


for fn, (ops, reg) in KERNELS.items():
    check(sys.argv[1], fn, ops, reg)
for kind, n in MEMORY.items():
    check_memory(sys.argv[1], "roofk_%s_avx2" % kind, n, "ymm")
    check_memory(sys.argv[1], "roofk_%s_sse2" % kind, n, "xmm")
