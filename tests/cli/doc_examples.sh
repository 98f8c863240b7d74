# The example commands of docs/cmd and docs/guide that need no server and
# no stored history, run as written from a directory that looks like the
# repository (tests/cli/doc_examples.py): each exits 0 and prints the
# column titles of every table its page shows, so that a page cannot keep
# a layout the command no longer prints (bench.md's 11 epochs, trace.md's
# 'zones (ms)'). Under 10 s on the 2-core machine.
. "$(dirname "$0")/lib.sh"
: "${BUILD_ROOT:?}" "${SOURCE_ROOT:?}"
mkdir "$T/repo" && cd "$T/repo" || exit 1
python3 "$SOURCE_ROOT/tests/cli/doc_examples.py" "$SOURCE_ROOT" "$BUILD_ROOT" "$T/repo"
