"""The permutation test's size on heavily tied samples: N values a side drawn
alike from {50, 51, 52}; the share of gate failures at alpha 0.05 (the median).
   bench/judge_ties_size.py YARDSTICK N REPS"""
import json, subprocess, numpy as np, sys
Y=sys.argv[1]; N=int(sys.argv[2]); reps=int(sys.argv[3])
def w(p,v): json.dump({"schema":"yardstick/result/v1","benchmarks":[{"name":"x","metrics":{"wall_time":{"unit":"s","values":[float(x) for x in v]}}}]},open(p,"w"))
fails=0; ps=[]
for i in range(reps):
    r=np.random.default_rng(1000+i)
    a=r.choice([50,51,52],N,p=[.45,.1,.45]); b=r.choice([50,51,52],N,p=[.45,.1,.45])
    w('a.json',a); w('b.json',b)
    out=subprocess.run([Y,'gate','--alpha','0.05','--baseline','a.json','--max-increase','wall_time.median=0%','b.json'],capture_output=True,text=True)
    fails+= out.returncode==1
    for l in out.stdout.splitlines():
        if 'p = ' in l: ps.append(float(l.split('p = ')[1].split()[0].rstrip(',')))
print("fail rate", fails/reps, "mean p", np.mean(ps) if ps else None, "n p", len(ps))
