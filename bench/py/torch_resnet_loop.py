"""ResNet-18 (torchvision, random weights, 1 thread) inferences in a loop
for bench/torchops.sh: argv[1] the mode (plain; profile: under
torch.profiler, writing argv[4] the Chrome trace and argv[5] its
key_averages() as JSON), argv[2] the input's side, argv[3] the inferences.
Prints the loop's wall time in seconds (the warm-up call not in it)."""
import json
import sys
import time

import torch
import torchvision

torch.set_num_threads(1)
torch.manual_seed(0)
mode, side, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
model = torchvision.models.resnet18().eval()
x = torch.randn(1, 3, side, side)


def loop():
    for _ in range(n):
        model(x)


with torch.no_grad():
    model(x)
    if mode == "profile":
        with torch.profiler.profile(
                activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
            t0 = time.perf_counter()
            loop()
            t1 = time.perf_counter()
        prof.export_chrome_trace(sys.argv[4])
        json.dump({e.key: {"self_us": e.self_cpu_time_total,
                           "count": e.count} for e in prof.key_averages()},
                  open(sys.argv[5], "w"))
    else:
        t0 = time.perf_counter()
        loop()
        t1 = time.perf_counter()
print("loop %.3f s" % (t1 - t0))
