# A small PyTorch model's forward pass in a loop, small tensors, for mem's
# stack walks (bench/RESULTS.md, Session 17, h1). Debian's python3.11
# (python3-torch).
#   python3.11 mem_torch_small.py
import torch
torch.manual_seed(0)
torch.set_num_threads(1)
m = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(),
                        torch.nn.Linear(32, 4))
x = torch.randn(8, 16)
s = 0.0
with torch.no_grad():
    for i in range(6000):
        s += float(m(x).sum())
print(round(s, 3))
