"""The real programs mem's benchmarks run (bench/mem_workloads.sh,
bench/mem_heldout.sh): sqlite3 building and querying a table, python3
building, serializing and sorting a dict, git walking this repository's
history, and the C compiler proper compiling one of yardstick's files."""
import subprocess


# heaptrack on mem's job: "python3 objects" is "python3" with heaptrack
# run under PYTHONMALLOC=malloc, so that it traces each object as mem
# does (mem sets it itself); on "python3" heaptrack traces pymalloc's
# large blocks only (objects come from arenas CPython maps itself)
HEAPTRACK_ENV = {"python3 objects": {"PYTHONMALLOC": "malloc"}}


def programs(src, d):
    """name -> argv; their inputs are made in the scratch directory d."""
    sql = f"{d}/w.sql"
    with open(sql, "w") as f:
        f.write("create table t(a integer primary key, b text, c real);\nbegin;\n")
        for i in range(20000):
            f.write(f"insert into t(b, c) values ('row {i} {'x' * (i % 50)}', {i * 0.5});\n")
        f.write("commit;\ncreate index tb on t(b);\n"
                "select count(*), sum(c), max(length(b)) from t where b like '%7%';\n"
                "select b, count(*) from t group by length(b) order by 2 desc limit 3;\n")
    cc1 = subprocess.run(["cc", "-print-prog-name=cc1"], capture_output=True,
                         text=True).stdout.strip()
    subprocess.run(["cc", "-E", "-D_GNU_SOURCE", f"-I{src}/src", f"-I{src}/build",
                    f"{src}/src/util/options.c", "-o", f"{d}/s.i"], check=True)
    # the interpreter itself: python3 on PATH may be a launcher (a pyenv
    # shim is a shell script that execs it), and heaptrack does not follow
    # an exec (it traced the shell's 89 allocations before session 18)
    py = subprocess.run(["python3", "-c", "import sys; print(sys.executable)"],
                        capture_output=True, text=True, check=True).stdout.strip()
    pywork = [py, "-c", "import json\n"
              "d = {str(i): [i, str(i) * 3, {'k': i}] for i in range(200000)}\n"
              "e = json.loads(json.dumps(d))\n"
              "print(len(sorted(e, key=lambda k: e[k][1])))"]
    return {
        "sqlite3": ["sqlite3", "-init", sql, f"{d}/w.db", ".quit"],
        "python3": pywork,
        "git log": ["git", "-C", src, "log", "--stat", "-n", "200"],
        # the compiler proper: the driver (cc) runs it as a child, which
        # neither profiler follows in the same way
        "cc1 -O2": [cc1, "-quiet", "-O2", "-fpreprocessed", f"{d}/s.i", "-o", f"{d}/s.s"],
    }
