#!/bin/sh
# `yardstick load` against wrk, the same load on the same server in one go:
# a local nginx (Debian's nginx-light, one worker, its own config in a
# temporary directory, on a free loopback port) answering a 6-byte body,
# or with SIZES="N ..." files of N bytes each in turn; `wrk -tT -cC -dD
# --latency` and `yardstick load --threads T --connections C --duration D`
# alternate for ROUNDS rounds (who goes first alternates too). With
# SCHEME=https, nginx serves TLS with a self-signed certificate made here
# (openssl req, EC P-256; both tools negotiate TLS 1.3 with it) and
# yardstick runs with -k (wrk does not verify certificates either).
# With SERVER=tiny (SIZES: one size at most), the server is
# bench/tiny_httpd instead of nginx: one thread, epoll, a canned response,
# over http or TLS, cheaper per request than nginx, so that each tool is
# measured nearer its own limit than the server's (with nginx's one
# worker saturated, both get what nginx gives, +-5% from round to round).
# KEEPALIVE: nginx's keepalive_requests (default 1000000000: a connection
# is never closed; nginx's own default is 1000). With two CPUs or more,
# nginx runs on CPU 0 and the clients on CPU 1 (taskset), so that
# neither tool is measured while sharing a CPU with the server. Prints
# requests/s, p50, p99, the client's CPU time per request (user +
# system, of the tool's process), the server's CPU time per request and
# its share of the round's time busy (its process and children, from
# /proc: where the server is the limit, a tool that makes it work more
# per request, or leaves it idle, shows here) of each round; the medians, and the
# minimum of CPU per request; the ratios yardstick / wrk of requests/s and
# of CPU per request, median, minimum and maximum over the rounds. With
# BASE=DIR, the yardstick of that build directory too (another commit's,
# e.g. main's: git archive main | tar -x -C DIR, then build it there) as
# a third tool "base" in every round, the order of the three rotating.
# With SLICES=K (default 1), each round is K slices of DURATION/K seconds
# (rounded to whole seconds: wrk takes no fraction)
# per tool, the tools alternating within the round (A B B A ...), and a
# round's requests/s is its requests over its seconds, per tool: a drift
# of the machine during a round (this host's speed moves by 5-15% over
# tens of seconds) falls on every tool alike, rather than on whichever
# ran its whole DURATION in the slow part (p50 and p99 are then the
# median of the slices' own).
#   [SCHEME=https] [SIZES="1024 102400"] [KEEPALIVE=N] [BASE=DIR] [SERVER=tiny] \
#   [SLICES=K] bench/load_vs_wrk.sh [build] [ROUNDS] [DURATION] [THREADS] [CONNECTIONS]
set -eu
build=${1:-build}
rounds=${2:-5}
duration=${3:-10}
threads=${4:-1}
conns=${5:-32}
scheme=${SCHEME:-http}
sizes=${SIZES:-}
keepalive=${KEEPALIVE:-1000000000}
base=${BASE:-}
server=${SERVER:-nginx}
slices=${SLICES:-1}
case $server in
nginx) ;;
tiny)	[ "$(echo $sizes | wc -w)" -le 1 ] ||
		{ echo "SERVER=tiny: one size at most" >&2; exit 2; } ;;
*)	echo "SERVER '$server': nginx or tiny" >&2; exit 2 ;;
esac
if [ -n "$base" ] && [ ! -x "$base/yardstick" ]; then
	echo "BASE: no $base/yardstick" >&2; exit 2
fi
case $scheme in http|https) ;; *) echo "SCHEME '$scheme': http or https" >&2; exit 2;; esac
here=$(dirname "$0")
"$here/../scripts/deps.sh" bench
ys=$build/yardstick
[ -x "$ys" ] || { echo "no $ys: build first (make)" >&2; exit 2; }
dir=$(mktemp -d /tmp/ys-load-bench-XXXXXX)
ngx=""
cleanup() {
	[ -n "$ngx" ] && kill "$ngx" 2>/dev/null && wait "$ngx" 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT INT TERM
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
listen="listen 127.0.0.1:$port;"
if [ "$scheme" = https ]; then
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
		-nodes -days 2 -subj /CN=localhost \
		-addext subjectAltName=IP:127.0.0.1 -keyout "$dir/key.pem" \
		-out "$dir/cert.pem" 2>/dev/null
	listen="listen 127.0.0.1:$port ssl;
        ssl_certificate $dir/cert.pem;
        ssl_certificate_key $dir/key.pem;"
fi
serve='location / { return 200 "hello\n"; }'
if [ -n "$sizes" ]; then
	mkdir "$dir/www"
	chmod 755 "$dir" "$dir/www"	# for the worker when nginx starts as root
	for s in $sizes; do
		head -c "$s" /dev/zero | tr '\0' x >"$dir/www/$s"
	done
	serve="root $dir/www;"
fi
cat >"$dir/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $dir/nginx.pid;
error_log $dir/error.log;
events { worker_connections 4096; }
http {
    access_log off;
    client_body_temp_path $dir/body;
    proxy_temp_path $dir/proxy;
    fastcgi_temp_path $dir/fastcgi;
    uwsgi_temp_path $dir/uwsgi;
    scgi_temp_path $dir/scgi;
    keepalive_requests $keepalive;
    server {
        $listen
        $serve
    }
}
CONF
srv="" cli=""
if [ "$(nproc)" -ge 2 ]; then
	srv="taskset -c 0"
	cli="taskset -c 1"
fi
if [ "$server" = tiny ]; then
	[ -x "$build/bench/tiny_httpd" ] || { echo "no $build/bench/tiny_httpd: build first (make)" >&2; exit 2; }
	if [ "$scheme" = https ]; then
		$srv "$build/bench/tiny_httpd" "$port" "${sizes:-6}" "$dir/cert.pem" "$dir/key.pem" &
	elif [ -n "$sizes" ]; then
		$srv "$build/bench/tiny_httpd" "$port" "$sizes" &
	else
		$srv "$build/bench/tiny_httpd" "$port" &
	fi
else
	$srv nginx -c "$dir/nginx.conf" -p "$dir" -e "$dir/error.log" &
fi
ngx=$!
python3 - "$port" <<'PY'
import socket, sys, time
for _ in range(100):
    try:
        socket.create_connection(("127.0.0.1", int(sys.argv[1])), 0.1).close()
        sys.exit(0)
    except OSError:
        time.sleep(0.05)
sys.exit("the server did not start")
PY
python3 - "$ys" "$scheme://127.0.0.1:$port/" "$dir" "$rounds" "$duration" "$threads" "$conns" "$cli" "$keepalive" "${base:+$base/yardstick}" "$server" "$slices" "$ngx" $sizes <<'PY'
import json, os, re, resource, statistics, subprocess, sys
ys, base, d, rounds, dur, thr, con, cli, keepalive, other, server, slices, srvpid = sys.argv[1:14]
sizes = sys.argv[14:] or [""]
tick = os.sysconf("SC_CLK_TCK")
slices = int(slices)
# (wrk takes whole seconds only)
dur = str(max(1, round(float(dur) / slices)))
pin = cli.split()
rounds = int(rounds)
unit = {"us": 1e-6, "ms": 1e-3, "s": 1.0}
tls = ["-k"] if base.startswith("https") else []

def cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime

def srv_cpu():
    """The server's CPU seconds so far: its process and its children
    (nginx's worker), user + system, from /proc (10 ms ticks)."""
    pids = [srvpid]
    try:
        with open(f"/proc/{srvpid}/task/{srvpid}/children") as f:
            pids += f.read().split()
    except OSError:
        pass
    t = 0
    for p in pids:
        try:
            with open(f"/proc/{p}/stat") as f:
                st = f.read().rsplit(")", 1)[1].split()
            t += int(st[11]) + int(st[12])
        except (OSError, IndexError, ValueError):
            pass
    return t / tick

def wrk(url):
    out = subprocess.run(pin + ["wrk", f"-t{thr}", f"-c{con}", f"-d{dur}s", "--latency", url],
                         check=True, capture_output=True, text=True).stdout
    if re.search(r"Non-2xx|Socket errors", out):
        sys.exit(f"wrk had errors:\n{out}")
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    n = int(re.search(r"(\d+) requests in", out).group(1))
    pct = {p: float(v) * unit[u] for p, v, u in
           re.findall(r"^\s+(50|99)%\s+([\d.]+)(us|ms|s)\s*$", out, re.M)}
    return rps, pct["50"], pct["99"], n

def yardstick(url, ys=ys):
    subprocess.run(pin + [ys, "load", "-q", "--no-store"] + tls + ["--threads", thr, "--connections", con,
                    "--duration", f"{dur}s", "--json", f"{d}/y.json", url],
                   check=True, stdout=subprocess.DEVNULL)
    m = json.load(open(f"{d}/y.json"))["benchmarks"][0]["metrics"]
    if m["errors"]["median"]:
        sys.exit(f"yardstick load had {m['errors']['median']:g} errors")
    return m["throughput"]["rate"], m["latency"]["median"], m["latency"]["p99"], m["errors"]["requests"]

def ratios(what, x):
    print(f"  {what} / wrk: median {statistics.median(x):.3f}x, min {min(x):.3f}x, "
          f"max {max(x):.3f}x (rounds: {', '.join(f'{v:.3f}' for v in x)})")

tools = ["wrk", "yardstick"] + (["base"] if other else [])
served = ("bench/tiny_httpd (1 thread)" if server == "tiny" else
          f"nginx (1 worker, keepalive_requests {keepalive})")
print(f"{base}: {served}, -t{thr} -c{con}, {dur} s each, "
      + (f"{slices} slices per round alternating, " if slices > 1 else "")
      + f"{rounds} rounds alternating" + (f", clients on '{cli}'" if cli else "") +
      (f"; base: {other}" if other else ""))
for size in sizes:
    url = base + size
    res = {t: [] for t in tools}
    if size:
        print(f"{url}: a body of {size} bytes")
    print(f"  {'round':>5}  {'tool':10} {'requests/s':>12} {'p50':>10} {'p99':>10} {'CPU/request':>12}"
          f" {'server CPU/req':>14} {'busy':>6}")
    for r in range(rounds):
        if other:
            order = tools[r % 3:] + tools[:r % 3]
        else:
            order = ["wrk", "yardstick"] if r % 2 == 0 else ["yardstick", "wrk"]
        got = {t: [] for t in order}
        for k in range(slices):
            for tool in (order if k % 2 == 0 else order[::-1]):
                c0, s0 = cpu(), srv_cpu()
                rps, p50, p99, n = (wrk(url) if tool == "wrk" else
                                    yardstick(url, other) if tool == "base" else yardstick(url))
                got[tool].append((n, n / rps, p50, p99, cpu() - c0, srv_cpu() - s0))
        for tool in order:
            g = got[tool]
            n = sum(x[0] for x in g)
            rps = n / sum(x[1] for x in g)
            p50 = statistics.median(x[2] for x in g)
            p99 = statistics.median(x[3] for x in g)
            per = sum(x[4] for x in g) / n
            sper = sum(x[5] for x in g) / n
            busy = sum(x[5] for x in g) / sum(x[1] for x in g)
            res[tool].append((rps, p50, p99, per, sper, busy))
            print(f"  {r + 1:>5}  {tool:10} {rps:12.0f} {p50 * 1e6:8.1f}us {p99 * 1e6:8.1f}us {per * 1e6:10.2f}us"
                  f" {sper * 1e6:10.2f}us {100 * busy:6.1f}%", flush=True)
    print("medians:")
    for tool, v in res.items():
        med = [statistics.median(x[i] for x in v) for i in range(4)]
        print(f"  {tool:10} {med[0]:12.0f} requests/s   p50 {med[1] * 1e6:7.1f} us   p99 {med[2] * 1e6:7.1f} us"
              f"   CPU {med[3] * 1e6:6.2f} us/request (min {min(x[3] for x in v) * 1e6:6.2f})")
    for t in tools[1:]:
        name = "yardstick" if t == "yardstick" else "base"
        ratios(f"requests/s {name}", [y[0] / w[0] for y, w in zip(res[t], res["wrk"])])
        ratios(f"CPU/request {name}", [y[3] / w[3] for y, w in zip(res[t], res["wrk"])])
        ratios(f"server CPU/request {name}", [y[4] / w[4] for y, w in zip(res[t], res["wrk"])])
        ratios(f"server busy {name}", [y[5] / w[5] for y, w in zip(res[t], res["wrk"])])
PY
