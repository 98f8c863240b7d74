# The interpreter the Python package was built for, for the scripts that
# test the package (python_pkg.sh, inference.sh); sourced after lib.sh.
# PYTHON names it, YS_PYTHONPATH the package in the build tree; in a
# sanitizer build (YS_PY_PRELOAD: their runtimes) PYTHON becomes a
# wrapper that preloads them, leak checks off (the interpreter leaks by
# design at exit). Exports PYTHON and PYTHONPATH.
PYTHON=${PYTHON:?PYTHON must name the interpreter}
PYTHONPATH=${YS_PYTHONPATH:?YS_PYTHONPATH must name the package}
if [ -n "${YS_PY_PRELOAD:-}" ]; then
	printf '#!/bin/sh\nLD_PRELOAD="%s" ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" exec "%s" "$@"\n' \
		"$YS_PY_PRELOAD" "$PYTHON" >"$T/python3"
	chmod +x "$T/python3"
	PYTHON=$T/python3
fi
export PYTHON PYTHONPATH
