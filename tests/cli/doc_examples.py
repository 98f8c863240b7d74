"""Run the `$ yardstick ...` examples of the docs that need no server, no
store history and no network, as a new user would, in a directory that
looks like the repository (build/, examples/, tests/ linked), and check
each against the output the page shows: the exit code is 0 and every
header line of the shown output (a table's column titles) is printed.
The numbers are the machine's; the layout is the command's.

  doc_examples.py SOURCE_ROOT BUILD_ROOT WORKDIR
"""
import json
import os
import re
import subprocess
import sys

# page: the examples to run, by their command's first words (a prefix of
# the command as the page writes it); in page order, as a user would
RUN = {
    "docs/cmd/run.md": ["yardstick run --runs 30 -n insertion",
                        "yardstick run --param n=1000:16000:*2",
                        "yardstick run --runs 5 --param n=50,100"],
    "docs/cmd/bench.md": ["yardstick bench -- build/examples/hashes",
                          "yardstick bench --filter '^word_hash'"],
    "docs/cmd/trace.md": ["yardstick trace -o trace.json -o trace.perfetto-trace"],
    "docs/cmd/mem.md": ["yardstick mem -o wf.svg"],
    "docs/cmd/export.md": ["yardstick run --runs 20 --json sort.json",
                           "yardstick export sort.json"],
    "docs/cmd/report.md": ["yardstick run --runs 60",
                           "yardstick report sort.json -o report.html"],
    "docs/guide/memory.md": ["build/yardstick mem -o wf.folded"],
}


def examples(path):
    """(command, shown lines) of each `$ ` line of the page's code
    blocks, continuation lines joined."""
    lines = open(path).read().split("\n")
    out, inblock, i = [], False, 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            inblock = not inblock
        elif inblock and line.startswith("$ "):
            cmd = line[2:]
            while cmd.endswith("\\"):
                i += 1
                cmd = cmd[:-1] + " " + lines[i].strip()
            shown = []
            while i + 1 < len(lines) and not lines[i + 1].startswith(("$ ", "```")):
                i += 1
                shown.append(lines[i])
            out.append((cmd, shown))
        i += 1
    return out


def header(line):
    """Whether a shown line is a table's column titles: three or more
    columns, no number but in a title (p99, 95%)."""
    if len(re.findall(r"\S(?:  +)\S", line)) < 2:
        return False
    words = [w for w in line.split() if not re.fullmatch(r"p\d+(\.\d+)?|95%|\(ms\)|time/op|allocs/op|err%|on%|wall%", w)]
    return bool(words) and not any(re.search(r"\d", w) for w in words)


def norm(text):
    # the CPU column of run's one-line table: the task clock where the
    # run counted it, else user time (docs/cmd/run.md says so)
    return re.sub(r"[ \t]+", " ", text).replace("task clock", "user time")


def main():
    src, build, work = sys.argv[1:4]
    san = os.environ.get("YSB_SAN", "none") not in ("", "none")
    for d in ("build", "examples", "tests"):
        link = os.path.join(work, d)
        if os.path.lexists(link) or (d == "build" and san):
            continue
        os.symlink(build if d == "build" else os.path.join(src, d), link)
    if san:
        # mem refuses a program built with AddressSanitizer (its runtime
        # must come before the agent): the sanitized build's yardstick
        # traces a wordfreq built without it, as a user's would be
        os.makedirs(os.path.join(work, "build", "examples"))
        for e in os.listdir(build):
            if e != "examples":
                os.symlink(os.path.join(build, e), os.path.join(work, "build", e))
        for e in os.listdir(os.path.join(build, "examples")):
            if e != "wordfreq":
                os.symlink(os.path.join(build, "examples", e),
                           os.path.join(work, "build", "examples", e))
        subprocess.run(["cc", "-O2", "-g", os.path.join(src, "examples", "wordfreq.c"),
                        "-o", os.path.join(work, "build", "examples", "wordfreq")],
                       check=True)
    env = dict(os.environ, PATH=build + os.pathsep + os.environ["PATH"],
               NO_COLOR="1", YARDSTICK_NO_PROGRESS="1")
    failed = 0
    n = 0
    for page, wanted in RUN.items():
        found = examples(os.path.join(src, page))
        for prefix in wanted:
            match = [e for e in found if e[0].startswith(prefix)]
            n += 1
            if not match:
                print("not ok %d - %s: no example starts with %r" % (n, page, prefix))
                failed += 1
                continue
            cmd, shown = match[0]
            p = subprocess.run(["sh", "-c", cmd], cwd=work, env=env,
                               capture_output=True, text=True, timeout=120)
            got = norm(p.stdout + p.stderr)
            missing = [h for h in shown if header(h) and norm(h).strip() not in got]
            if p.returncode != 0 or missing:
                print("not ok %d - %s: %s" % (n, page, cmd))
                print("# exit %d; header lines the page shows and the command did not print:" % p.returncode)
                for h in missing:
                    print("#   " + h)
                for l in (p.stdout + p.stderr).split("\n")[:30]:
                    print("# | " + l)
                failed += 1
            else:
                print("ok %d - %s: %s" % (n, page, cmd))
    print("1..%d" % n)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
