#!/usr/bin/env python3
"""Follow the calls of a function down through the files and modules.

The call graph is the compiler's own: every C file of yardstick's modules
is compiled again, as the build compiles it (BUILD/compile_commands.json),
with GCC's -fcallgraph-info, which writes each translation unit's direct
calls (static functions named by their file, so that two statics of one
name are never merged); a call to another file is resolved by the global
function's name, which the link makes unique. An indirect call
(through a function pointer) is followed only where --indirect says where
it goes; --callback is one that goes back up by design (a reply handed to
the caller's function as it comes): followed, listed, and left out of
the circles and the layers.

From each ROOT it prints the functions it reaches, file by file in the order
first entered, then:
  - files entered: how many files control goes through;
  - returns: in a depth-first walk (each function once), the calls into
    a file that is on the walk's stack but not the caller's: control
    going back to a file it had already left (A.c -> B.c -> A.c);
  - each circle between files (a strongly connected set of more than
    one file) with the calls that close it;
  - each call that runs up the allowed module graph (scripts/modgraph.sh's
    allowed(), read from there).
  - with --forbid MODULE:NAME,..., each call of the module's functions
    reached to one of those (fprintf, exit: a module that prints or exits
    where only commands may).
Exit 1 when there is a circle not named with --allow-circle, a call up
the layers outside such a circle, or a forbidden call.

Usage: scripts/calltrace.py BUILD ROOT... [--indirect CALLER=CALLEE ...]
       [--callback CALLER=CALLEE ...]
       [--allow-circle FILE+FILE ...] [--forbid MODULE:NAME,...] [--quiet]
       [--graph FILE]
Functions are global names or FILE:NAME for a static (src/engine/run_loop.c:
execute).
"""
import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

# The modules linked into yardstick (docs/ARCHITECTURE.md); lib is linked
# into users' programs, and these files are separate binaries.
MODULES = ("util stats result store measure profile heap load roofline "
           "report engine cmd").split()
SEPARATE = re.compile(r"src/(measure/spawner_(main|libc)\.c|heap/agent|"
                      r"roofline/ysflops/)")


def allowed_graph(src):
    """The allowed graph of scripts/modgraph.sh: module -> modules."""
    text = open(os.path.join(src, "..", "scripts", "modgraph.sh")).read()
    body = text[text.index("allowed() {"):]
    body = body[:body.index("esac")]
    graph = {}
    for mod, uses in re.findall(r'^\s*(\w+)\) echo "([^"]*)"', body, re.M):
        graph[mod] = set(uses.split()) | {mod}
    return graph


def module_of(path):
    parts = path.split("/")
    return parts[parts.index("src") + 1] if "src" in parts else "?"


def compile_one(entry, out_dir, n):
    """Compile one file with -fcallgraph-info; the .ci and .o paths."""
    args = shlex.split(entry["command"])
    keep = []
    skip = 0
    for a in args:
        if skip:
            skip -= 1
            continue
        if a in ("-MQ", "-MF", "-o"):
            skip = 1
            continue
        if a in ("ccache", "-MD") or a.startswith("-fsanitize") or \
                a.startswith("-O") or a.startswith("-fdiagnostics"):
            continue
        keep.append(a)
    obj = os.path.join(out_dir, "f%d.o" % n)
    keep += ["-O0", "-fcallgraph-info", "-o", obj]
    subprocess.run(keep, cwd=entry["directory"], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return obj[:-2] + ".ci", obj


def rel(path, src):
    return os.path.relpath(os.path.normpath(path), os.path.dirname(src))


def load_graph(build, src, out_dir):
    """The functions defined (node -> file) and the calls (node -> nodes).
    A global function's node is its name, a static's FILE:NAME."""
    db = json.load(open(os.path.join(build, "compile_commands.json")))
    seen, todo = set(), []
    for e in db:
        f = rel(os.path.join(e["directory"], e["file"]), src)
        if not f.startswith("src/") or SEPARATE.search(f) or f in seen:
            continue
        if module_of(f) not in MODULES:
            continue
        seen.add(f)
        todo.append(e)
    with ThreadPoolExecutor(max_workers=2) as pool:
        done = list(pool.map(lambda a: compile_one(a[1], out_dir, a[0]),
                             enumerate(todo)))
    edges, defined = {}, {}
    for (ci, _), e in zip(done, todo):
        d = e["directory"]

        def canon(title):
            if ":" not in title:
                return title
            path, name = title.rsplit(":", 1)
            return rel(os.path.join(d, path), src) + ":" + name

        text = open(ci).read()
        for title, label, rest in re.findall(
                r'node: \{ title: "([^"]*)" label: "([^"]*)"([^}]*)\}',
                text):
            if "ellipse" in rest:
                continue        # declared here, defined elsewhere
            where = label.split("\\n", 1)[1].rsplit(":", 2)[0]
            defined[canon(title)] = rel(os.path.join(d, where), src)
        for a, b in re.findall(
                r'edge: \{ sourcename: "([^"]*)" targetname: "([^"]*)"',
                text):
            edges.setdefault(canon(a), []).append(canon(b))
    return edges, defined


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build")
    ap.add_argument("root", nargs="+")
    ap.add_argument("--indirect", action="append", default=[])
    ap.add_argument("--callback", action="append", default=[])
    ap.add_argument("--allow-circle", action="append", default=[])
    ap.add_argument("--forbid", action="append", default=[],
                    metavar="MODULE:NAME,NAME...")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--graph", help="the graph read from this file, or "
                    "built and written there when it does not exist")
    a = ap.parse_args()
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                       "src")
    src = os.path.normpath(src)
    allowed = allowed_graph(src)
    if a.graph and os.path.exists(a.graph):
        edges, defined = json.load(open(a.graph))
    else:
        with tempfile.TemporaryDirectory(prefix="calltrace-") as tmp:
            edges, defined = load_graph(a.build, src, tmp)
        if a.graph:
            json.dump([edges, defined], open(a.graph, "w"))

    def node(n):
        if n not in defined:
            sys.exit("calltrace: no function '%s'" % n)
        return n

    callbacks = set()
    for spec in a.indirect + a.callback:
        caller, callee = spec.split("=", 1)
        edges.setdefault(node(caller), []).append(node(callee))
        if spec in a.callback:
            callbacks.add((node(caller), node(callee)))
    roots = [node(r) for r in a.root]

    def callees(n):
        for b in edges.get(n, []):
            if b in defined:
                yield b

    # the depth-first walk, each function once, counting returns
    order, files_seen, returns = [], [], []
    visited, stack = set(), []

    def walk(n):
        visited.add(n)
        f = defined[n]
        if f not in files_seen:
            files_seen.append(f)
        order.append(n)
        stack.append(f)
        for c in callees(n):
            cf = defined[c]
            if cf != f and cf in stack and (n, c) not in callbacks and \
                    (n, c) not in returns:
                returns.append((n, c))
            if c not in visited:
                walk(c)
        stack.pop()

    sys.setrecursionlimit(100000)
    for r in roots:
        if r not in visited:
            walk(r)

    # the files' graph, its circles (Tarjan) and the calls up the layers
    fedges, up = {}, []
    for n in visited:
        for c in callees(n):
            f, cf = defined[n], defined[c]
            if (n, c) in callbacks:
                continue
            if f != cf:
                fedges.setdefault(f, set()).add(cf)
            mf, mc = module_of(f), module_of(cf)
            if mc not in allowed.get(mf, {mf}):
                up.append((n, c))
    index, low, on, st, sccs = {}, {}, set(), [], []

    def strong(v):
        index[v] = low[v] = len(index)
        st.append(v)
        on.add(v)
        for w in fedges.get(v, ()):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = st.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                sccs.append(sorted(comp))

    for v in files_seen:
        if v not in index:
            strong(v)

    def short(n):
        return n if ":" in n else defined[n] + ":" + n

    if not a.quiet:
        for f in files_seen:
            names = [n.rsplit(":", 1)[-1] for n in order if defined[n] == f]
            print("%s: %s" % (f, ", ".join(names)))
    print("from: %s" % ", ".join(short(r) for r in roots))
    print("files entered: %d (%s)" % (len(files_seen),
          ", ".join(sorted({module_of(f) for f in files_seen}))))
    for n, c in sorted(e for e in callbacks if e[0] in visited):
        print("callback: %s -> %s" % (short(n), short(c)))
    print("returns to a file already left: %d" % len(returns))
    for n, c in returns:
        print("  return: %s -> %s" % (short(n), short(c)))
    allow = {tuple(sorted(s.split("+"))) for s in a.allow_circle}
    bad = 0
    for comp in sccs:
        ok = tuple(comp) in allow
        print("circle%s: %s" % (" (allowed)" if ok else "", " <-> ".join(comp)))
        calls = sorted({(short(n), short(c)) for n in visited
                        for c in callees(n)
                        if defined[n] in comp and defined[c] in comp and
                        defined[n] != defined[c] and
                        (n, c) not in callbacks})
        for n, c in calls:
            print("  call: %s -> %s" % (n, c))
        bad |= not ok
    for n, c in up:
        # a callback of a circle named allowed (its reason in
        # docs/ARCHITECTURE.md) is that circle's
        ok = any(defined[n] in s and defined[c] in s for s in allow)
        print("up the layers%s: %s -> %s" % (" (allowed)" if ok else "",
                                              short(n), short(c)))
        bad |= not ok
    # functions a module must not call itself (printing, exiting)
    for spec in a.forbid:
        mod, names = spec.split(":", 1)
        names = set(names.split(","))
        for n in sorted(visited):
            if module_of(defined[n]) != mod:
                continue
            for b in sorted(set(edges.get(n, [])) & names):
                print("forbidden in %s: %s calls %s" % (mod, short(n), b))
                bad = 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
