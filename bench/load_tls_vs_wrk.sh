#!/bin/sh
# `yardstick load` against wrk over https (issue 12): bench/load_vs_wrk.sh
# with SCHEME=https and nginx serving bodies of each SIZE in turn (default
# 1 KB and 100 KB); KEEPALIVE as there (default: connections never closed;
# 1000, nginx's default, has each connection made again every 1000
# requests, with its TLS session resumed).
#   bench/load_tls_vs_wrk.sh [build] [ROUNDS] [DURATION] [THREADS] [CONNECTIONS] [SIZES] [KEEPALIVE]
set -eu
SCHEME=https SIZES=${6:-1024 102400} KEEPALIVE=${7:-1000000000} \
	exec "$(dirname "$0")/load_vs_wrk.sh" "${1:-build}" "${2:-5}" "${3:-10}" "${4:-1}" "${5:-32}"
