# yardstick mem: a library unloaded (dlclose) and another loaded at its
# addresses. The program dlopens libmla.so, allocates 10 blocks of 1000
# bytes in its alloc_in_a (4 of them leaked), dlcloses it, dlopens
# libmlb.so, which the loader maps where libmla.so was, and allocates 20
# blocks of 3000 bytes in its alloc_in_b (5 leaked). Each function's
# figures are checked exactly in every output (text report, folded, pprof,
# flame graph), in exact mode and with --sample 1 --sample-rate 0 (every
# block traced, at its own weight: no throttle raises the interval), with libunwind and with frame pointers, with the replay
# beside the program and after it. Two libmlb.so: one built from the same
# code as libmla.so, its stacks the very return addresses of libmla.so's
# (all 70,000 bytes were alloc_in_a's: the agent took the second stack for
# the first, which it had sent, and its cache of stacks, built with frame
# pointers here so that the first library's stack is in it, gave the
# first one's); one with code before alloc_in_b, its return addresses
# others (alloc_in_a's 10,000 bytes were named by libmlb.so's symbols:
# every address was read with the last maps).
. "$(dirname "$0")/lib.sh"

D=$T/dl
mkdir -p "$D/same" "$D/moved"
cat >"$D/lib.c" <<'C'
#include <stdlib.h>
#ifdef PAD
volatile int pad_sink;
__attribute__((noinline)) void pad(void)
{
	for (int i = 0; i < 100; i++)
		pad_sink += i * 3 + pad_sink / 7;
	pad_sink ^= 0x5a5a;
}
#endif
__attribute__((noinline)) void *NAME(size_t n)
{
	return malloc(n);
}
void *entry(size_t n)
{
	return NAME(n);
}
C
cat >"$D/main.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

/* a block from entry, with 16 * (k % 3) bytes more of stack: the same
 * return addresses at three stack pointers, so that the agent meets each
 * first with libunwind's fast trace, then fills its cache with a full
 * walk, then finds it there */
__attribute__((noinline)) void *one(void *(*entry)(size_t), size_t size,
				    int k)
{
	volatile char *pad = __builtin_alloca(16 * (k % 3) + 1);
	void *p;

	pad[0] = 0;
	p = entry(size);
	__asm__ volatile("" : : "r"(p) : "memory");	/* not a tail call */
	return p;
}

/* count blocks of size bytes from entry, all but keep freed: called alike
 * for both libraries, so that the agent's cache of stacks, filled in the
 * first one's, finds the second one's stacks the same (built with frame
 * pointers, the words it checks are the same) */
__attribute__((noinline)) void run(void *(*entry)(size_t), size_t size,
				   int count, int keep)
{
	for (int k = 0; k < count; k++) {
		void *p = one(entry, size, k);

		if (k >= keep)
			free(p);
	}
}

/* argv: a library to load and unload first (what an unload makes the
 * unwinder and the agent map, they map now: not where libmla.so will
 * be), libmla.so, libmlb.so. Prints where each of the two was loaded. */
int main(int argc, char **argv)
{
	size_t size[2] = { 1000, 3000 };
	int count[2] = { 10, 20 }, keep[2] = { 4, 5 };
	void *w = argc == 4 ? dlopen(argv[1], RTLD_NOW) : NULL;

	if (!w)
		return 1;
	dlclose(w);
	free(malloc(1));
	for (int i = 0; i < 2; i++) {
		void *h = dlopen(argv[2 + i], RTLD_NOW);
		void *(*e)(size_t) = h ? (void *(*)(size_t))dlsym(h, "entry")
				       : NULL;
		Dl_info info;

		if (!e || !dladdr((void *)e, &info))
			return 1;
		printf("%p\n", info.dli_fbase);
		fflush(stdout);
		run(e, size[i], count[i], keep[i]);
		dlclose(h);
	}
	return 0;
}
C
# the same return addresses in frames of other sizes: alloc_in_b's 0x28
# bytes where alloc_in_a had 8 (libunwind kept alloc_in_a's rule for the
# address: alloc_in_b's stacks were [unknown];[unknown];alloc_in_b and
# main;_IO_fflush;alloc_in_b)
for v in a:8:16 b:0x28:48; do
	x=${v%%:*} rest=${v#*:}
	sub=${rest%%:*} cfa=${rest#*:}
	cat >"$D/lib$x.S" <<S
	.text
	.globl alloc_in_$x
	.type alloc_in_$x, @function
	.p2align 6
alloc_in_$x:
	.cfi_startproc
	sub \$$sub, %rsp
	.cfi_def_cfa_offset $cfa
	call malloc@PLT
	add \$$sub, %rsp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size alloc_in_$x, .-alloc_in_$x
	.globl entry
	.type entry, @function
	.p2align 6
entry:
	.cfi_startproc
	sub \$8, %rsp
	.cfi_def_cfa_offset 16
	call alloc_in_$x
	add \$8, %rsp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size entry, .-entry
	.section .note.GNU-stack,"",@progbits
S
done
cat >"$D/check.py" <<'PY'
import gzip, re, sys

def folded(path, whole):
    """{leaf: value}; whole: only of stacks ending main;run;one;entry;leaf"""
    n = {}
    for line in open(path):
        stack, v = line.rstrip("\n").rsplit(" ", 1)
        f = stack.split(";")
        if whole and f[-5:-1] != ["main", "run", "one", "entry"]:
            continue
        n[f[-1]] = n.get(f[-1], 0) + int(v)
    return n

def varint(b, i):
    v = s = 0
    while True:
        c = b[i]; i += 1; v |= (c & 0x7f) << s; s += 7
        if c < 0x80:
            return v, i

def fields(b):
    i = 0
    while i < len(b):
        key, i = varint(b, i)
        f, wt = key >> 3, key & 7
        if wt == 0:
            v, i = varint(b, i)
        elif wt == 2:
            n, i = varint(b, i); v = b[i:i + n]; i += n
        elif wt == 1:
            v = b[i:i + 8]; i += 8
        else:
            v = b[i:i + 4]; i += 4
        yield f, wt, v

def ints(wt, v):
    if wt == 0:
        return [v]
    out, i = [], 0
    while i < len(v):
        x, i = varint(v, i); out.append(x)
    return out

def pprof(path):
    """{leaf function: {sample type: value}}"""
    strings, types, samples, locs, funcs = [], [], [], {}, {}
    for f, wt, v in fields(gzip.open(path).read()):
        if f == 6:
            strings.append(v.decode())
        elif f == 1:
            types.append(dict((g, x) for g, _, x in fields(v))[1])
        elif f == 2:
            s = {1: [], 2: []}
            for g, w, x in fields(v):
                if g in s:
                    s[g] += ints(w, x)
            samples.append(s)
        elif f == 4:
            loc = {"lines": []}
            for g, _, x in fields(v):
                if g == 1:
                    loc["id"] = x
                elif g == 4:
                    loc["lines"].append(dict((h, y) for h, _, y in fields(x)).get(1))
            locs[loc["id"]] = loc
        elif f == 5:
            fn = dict((g, x) for g, _, x in fields(v))
            funcs[fn[1]] = fn.get(2, 0)
    out = {}
    for s in samples:
        leaf = strings[funcs[locs[s[1][0]]["lines"][0]]]
        d = out.setdefault(leaf, {})
        for t, v in zip(types, s[2]):
            d[strings[t]] = d.get(strings[t], 0) + v
    return out

# the text report's section title: {first frame of a site: its figure}
def section(path, title):
    out, on = {}, False
    for line in open(path):
        if not line.strip():
            on = False
        elif line.rstrip("\n") == title:
            on = True
        elif on:
            m = re.match(r"^\s+(\S+(?: \S+)?)\s+[\d.]+%\s+(.+)$", line)
            if m:
                out[m.group(2).strip()] = m.group(1)
    return out

name, whole = sys.argv[1], sys.argv[2] == "whole"
want = {"alloc_in_a": (10, 10000, 4, 4000, "libmla.so"),
        "alloc_in_b": (20, 60000, 5, 15000, "libmlb.so")}
got = {}
f = folded(name + ".folded", whole)
p = pprof(name + ".pb.gz")
svg = open(name + ".svg").read()
allocs = section(name + ".err", "most allocations")
leaked = section(name + ".err", "leaked")
text = {"10000": "9.766 KiB", "60000": "58.59 KiB", "4000": "3.906 KiB",
        "15000": "14.65 KiB"}
bad = []
for fn, (n, b, ln, lb, lib) in want.items():
    g = p.get(fn, {})
    have = (g.get("alloc_objects"), g.get("alloc_space"),
            g.get("inuse_objects"), g.get("inuse_space"))
    if have != (n, b, ln, lb):
        bad.append("pprof %s: %s, expected %s" % (fn, have, (n, b, ln, lb)))
    if f.get(fn) != b:
        bad.append("folded %s: %s, expected %d" % (fn, f.get(fn), b))
    title = "<title>%s (%s) — %s bytes," % (fn, lib, format(b, ","))
    if title not in svg:
        bad.append("svg: no %r" % title)
    site = "%s [%s]" % (fn, lib)
    if allocs.get(site) != str(n):
        bad.append("report, most allocations, %s: %s, expected %d" % (site, allocs.get(site), n))
    if leaked.get(site) != text[str(lb)]:
        bad.append("report, leaked, %s: %s, expected %s" % (site, leaked.get(site), text[str(lb)]))
# nothing of theirs elsewhere: every stack through entry ends in one
for stack in open(name + ".folded"):
    frames = stack.rsplit(" ", 1)[0].split(";")
    if "entry" in frames and frames[-1] not in want:
        bad.append("folded: a stack through entry ends in %s" % frames[-1])
if bad:
    sys.exit("\n".join(bad))
PY

dl_build() {
	mkdir -p "$D/reframed" "$D/a" &&
	cc -shared -o "$D/a/libmla.so" "$D/liba.S" &&
	cc -shared -o "$D/reframed/libmlb.so" "$D/libb.S" &&
	cc -O1 -g -fno-omit-frame-pointer -fPIC -shared -DNAME=warm -o "$D/libwarm.so" "$D/lib.c" &&
	cc -O1 -g -fno-omit-frame-pointer -fPIC -shared -DNAME=alloc_in_a -o "$D/libmla.so" "$D/lib.c" &&
	cc -O1 -g -fno-omit-frame-pointer -fPIC -shared -DNAME=alloc_in_b -o "$D/same/libmlb.so" "$D/lib.c" &&
	cc -O1 -g -fno-omit-frame-pointer -fPIC -shared -DPAD -DNAME=alloc_in_b -o "$D/moved/libmlb.so" "$D/lib.c" &&
	cc -O1 -g -fno-omit-frame-pointer -o "$D/main" "$D/main.c" -ldl
}
t "the libraries and the program build" dl_build

# dl_case LAYOUT UNWIND: every mode of the replay and of sampling
dl_case() {
	layout=$1 unwind=$2
	liba=$D/libmla.so whole=whole
	if [ "$layout" = reframed ]; then
		liba=$D/a/libmla.so
		# frame pointers: the walk goes from alloc_in_X to one
		[ "$unwind" = fp ] && whole=leaf
	fi
	for sample in "" "--sample 1 --sample-rate 0"; do
		for replay in live after; do
			name=$D/$layout-$unwind-${sample:+sampled-}$replay
			# shellcheck disable=SC2086
			YARDSTICK_MEM_REPLAY=$replay "$YS" mem --no-store \
				--unwind "$unwind" $sample --cost allocated \
				-o "$name.folded" -o "$name.pb.gz" -o "$name.svg" \
				-- "$D/main" "$D/libwarm.so" "$liba" \
				"$D/$layout/libmlb.so" >"$name.addr" 2>"$name.err" ||
				{ cat "$name.err"; return 1; }
			[ "$(sort -u "$name.addr" | wc -l)" = 1 ] ||
				{ echo "# loaded at two addresses, not the case meant: $(cat "$name.addr")"; return 1; }
			python3 "$D/check.py" "$name" "$whole" ||
				{ echo "# in $unwind ${sample:-exact} $replay"; return 1; }
		done
	done
}
for layout in same moved reframed; do
	for unwind in dwarf fp; do
		t "libmlb.so ($layout code) where libmla.so was: 10 x 1000 B at alloc_in_a, 20 x 3000 B at alloc_in_b, 4 and 5 leaked (--unwind $unwind; exact and --sample 1 --sample-rate 0; replay live and after)" retry dl_case "$layout" "$unwind"
	done
done
# A dlclose from the destructor of the library being unloaded (a plugin
# unloading what it loaded): the agent's dlclose inside its own (it waited
# for its own lock: the program hung).
dl_nested() {
	cat >"$D/inner.c" <<'C'
#include <stdlib.h>
void *inner_alloc(size_t n) { return malloc(n); }
C
	cat >"$D/outer.c" <<'C'
#include <dlfcn.h>
#include <stdlib.h>
static void *h;
__attribute__((constructor)) static void up(void) { h = dlopen(getenv("INNER"), RTLD_NOW); }
__attribute__((destructor)) static void down(void) { if (h) dlclose(h); }
C
	cat >"$D/nested.c" <<'C'
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
	void *h = dlopen(argv[1], RTLD_NOW);

	if (!h || dlclose(h))
		return 1;
	free(malloc(5));
	puts("unloaded");
	return 0;
}
C
	cc -shared -fPIC -o "$D/libinner.so" "$D/inner.c" &&
	cc -shared -fPIC -o "$D/libouter.so" "$D/outer.c" &&
	cc -o "$D/nested" "$D/nested.c" -ldl || return 1
	INNER=$D/libinner.so timeout 60 "$YS" mem -q --no-store -- \
		"$D/nested" "$D/libouter.so" >"$D/nested.out" &&
	[ "$(cat "$D/nested.out")" = unloaded ]
}
t "a dlclose from the destructor of a library being unloaded: the program ends (exit 0)" dl_nested
finish
