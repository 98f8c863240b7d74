#!/bin/sh
# `yardstick load` against wrk over https, the same load on the same server
# in one go: a local nginx (Debian's nginx-light, one worker, its own config
# in a temporary directory, on a free loopback port) serving files of each
# body SIZE (bytes; default 1 KB and 100 KB) over TLS with a self-signed
# certificate made here (openssl req, EC P-256, as wrk and yardstick both
# negotiate TLS 1.3 with it). For each size, `wrk -tT -cC -dD --latency`
# and `yardstick load -k --threads T --connections C --duration D` (-k:
# wrk does not verify certificates either) alternate for ROUNDS rounds
# (who goes first alternates too). With two CPUs or more, nginx runs on
# CPU 0 and the clients on CPU 1 (taskset). Prints requests/s, p50, p99
# and the client's CPU time per request (user + system of the tool's
# process) of each round, the medians and minimums of CPU per request,
# and the ratio of requests/s (yardstick / wrk), median and range.
#   bench/load_tls_vs_wrk.sh [build] [ROUNDS] [DURATION] [THREADS] [CONNECTIONS] [SIZES]
set -eu
build=${1:-build}
rounds=${2:-5}
duration=${3:-10}
threads=${4:-1}
conns=${5:-32}
sizes=${6:-1024 102400}
here=$(dirname "$0")
"$here/../scripts/deps.sh" bench
ys=$build/yardstick
[ -x "$ys" ] || { echo "no $ys: build first (make)" >&2; exit 2; }
dir=$(mktemp -d /tmp/ys-load-tls-bench-XXXXXX)
ngx=""
cleanup() {
	[ -n "$ngx" ] && kill "$ngx" 2>/dev/null && wait "$ngx" 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT INT TERM
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
	-days 2 -subj /CN=localhost -addext subjectAltName=IP:127.0.0.1 \
	-keyout "$dir/key.pem" -out "$dir/cert.pem" 2>/dev/null
mkdir "$dir/www"
chmod 755 "$dir" "$dir/www"	# for the worker, when nginx starts as root
for s in $sizes; do
	head -c "$s" /dev/zero | tr '\0' x >"$dir/www/$s"
done
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
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
    keepalive_requests 1000000000;
    server {
        listen 127.0.0.1:$port ssl;
        ssl_certificate $dir/cert.pem;
        ssl_certificate_key $dir/key.pem;
        root $dir/www;
    }
}
CONF
srv="" cli=""
if [ "$(nproc)" -ge 2 ]; then
	srv="taskset -c 0"
	cli="taskset -c 1"
fi
$srv nginx -c "$dir/nginx.conf" -p "$dir" -e "$dir/error.log" &
ngx=$!
python3 - "$port" <<'PY'
import socket, sys, time
for _ in range(100):
    try:
        socket.create_connection(("127.0.0.1", int(sys.argv[1])), 0.1).close()
        sys.exit(0)
    except OSError:
        time.sleep(0.05)
sys.exit("nginx did not start")
PY
python3 - "$ys" "https://127.0.0.1:$port" "$dir" "$rounds" "$duration" "$threads" "$conns" "$cli" $sizes <<'PY'
import json, re, resource, statistics, subprocess, sys
ys, base, d, rounds, dur, thr, con, cli = sys.argv[1:9]
sizes = sys.argv[9:]
pin = cli.split()
rounds = int(rounds)
unit = {"us": 1e-6, "ms": 1e-3, "s": 1.0}

def cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime

def wrk(url):
    out = subprocess.run(pin + ["wrk", f"-t{thr}", f"-c{con}", f"-d{dur}s", "--latency", url],
                         check=True, capture_output=True, text=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    n = int(re.search(r"(\d+) requests in", out).group(1))
    if re.search(r"Non-2xx|Socket errors", out):
        sys.exit(f"wrk had errors:\n{out}")
    pct = {p: float(v) * unit[u] for p, v, u in
           re.findall(r"^\s+(50|99)%\s+([\d.]+)(us|ms|s)\s*$", out, re.M)}
    return rps, pct["50"], pct["99"], n

def yardstick(url):
    subprocess.run(pin + [ys, "load", "-q", "-k", "--no-store", "--threads", thr, "--connections", con,
                    "--duration", f"{dur}s", "--json", f"{d}/y.json", url],
                   check=True, stdout=subprocess.DEVNULL)
    m = json.load(open(f"{d}/y.json"))["benchmarks"][0]["metrics"]
    if m["errors"]["median"]:
        sys.exit(f"yardstick load had {m['errors']['median']:g} errors")
    return m["throughput"]["rate"], m["latency"]["median"], m["latency"]["p99"], m["errors"]["requests"]

print(f"{base}: nginx (1 worker, TLS, self-signed P-256), -t{thr} -c{con}, {dur} s each, "
      f"{rounds} rounds alternating" + (f", clients on '{cli}'" if cli else ""))
for size in sizes:
    url = f"{base}/{size}"
    res = {"wrk": [], "yardstick": []}
    print(f"body {size} B: {url}")
    print(f"  {'round':>5}  {'tool':10} {'requests/s':>12} {'p50':>10} {'p99':>10} {'CPU/request':>12}")
    for r in range(rounds):
        order = ["wrk", "yardstick"] if r % 2 == 0 else ["yardstick", "wrk"]
        for tool in order:
            c0 = cpu()
            rps, p50, p99, n = wrk(url) if tool == "wrk" else yardstick(url)
            per = (cpu() - c0) / n
            res[tool].append((rps, p50, p99, per))
            print(f"  {r + 1:>5}  {tool:10} {rps:12.0f} {p50 * 1e6:8.1f}us {p99 * 1e6:8.1f}us {per * 1e6:10.2f}us", flush=True)
    print(f"  medians (CPU/request: median, minimum):")
    for tool, v in res.items():
        med = [statistics.median(x[i] for x in v) for i in range(4)]
        print(f"    {tool:10} {med[0]:12.0f} requests/s   p50 {med[1] * 1e6:7.1f} us   p99 {med[2] * 1e6:7.1f} us"
              f"   CPU {med[3] * 1e6:6.2f} us/request (min {min(x[3] for x in v) * 1e6:6.2f})")
    ratios = [y[0] / w[0] for y, w in zip(res["yardstick"], res["wrk"])]
    cpur = [y[3] / w[3] for y, w in zip(res["yardstick"], res["wrk"])]
    print(f"  {size} B requests/s yardstick / wrk: median {statistics.median(ratios):.3f}x, "
          f"min {min(ratios):.3f}x, max {max(ratios):.3f}x (rounds: {', '.join(f'{x:.3f}' for x in ratios)})")
    print(f"  {size} B CPU/request yardstick / wrk: median {statistics.median(cpur):.3f}x, "
          f"min {min(cpur):.3f}x, max {max(cpur):.3f}x", flush=True)
PY
