#!/bin/sh
# Every C file of a build compiled again with its own flags, at -O2 (the
# default buildtype's) plus -fsanitize=address,undefined, to nothing: the
# warnings GCC gives only with the sanitizers' checks and optimisation
# both on (-Wformat-truncation, -Wstringop-overflow, -Wnull-dereference
# ...), which -Werror turns into a broken `meson setup x
# -Db_sanitize=address,undefined` for a user, fail here instead. The
# sanitizer build of scripts/test.sh is -O1 and sees only some of them. Usage: scripts/sanitize_warnings.sh [BUILD_DIR [FILE...]]
# (default build, configured: its compile_commands.json; FILEs: only the
# files whose paths end so, as the test sanitize_warnings does for those
# that broke once). Prints each file that fails with its warnings; exits
# 1 when any does. Every file: about 10 minutes on a busy 2-core machine.
set -u
dir=${1:-build}
[ $# -gt 0 ] && shift
[ -f "$dir/compile_commands.json" ] || { echo "no $dir/compile_commands.json: configure $dir first" >&2; exit 2; }
python3 - "$dir" "$@" <<'PY'
import json, os, shlex, subprocess, sys
d, only = sys.argv[1], sys.argv[2:]
bad = n = 0
for c in json.load(open(os.path.join(d, "compile_commands.json"))):
    args = shlex.split(c["command"])
    # the project's C files only (no fuzz targets: clang, their own flags)
    if not c["file"].endswith(".c") or "-fsanitize=fuzzer" in c["command"]:
        continue
    if only and not any(c["file"].endswith(f) for f in only):
        continue
    if args[0] == "ccache":
        args = args[1:]
    if "-o" in args:
        i = args.index("-o")
        args[i + 1] = "/dev/null"
    args = [a for a in args if a not in ("-MD",)]
    for flag in ("-MQ", "-MF"):
        while flag in args:
            i = args.index(flag)
            del args[i:i + 2]
    args += ["-O2", "-fsanitize=address,undefined", "-fno-omit-frame-pointer",
             "-fdiagnostics-color=never"]
    p = subprocess.run(args, cwd=c["directory"], capture_output=True, text=True)
    n += 1
    if p.returncode:
        bad += 1
        print("%s:\n%s" % (c["file"], p.stderr))
print("sanitize_warnings: %d files, %d with warnings" % (n, bad))
sys.exit(1 if bad or (only and n < len(only)) else 0)
PY
