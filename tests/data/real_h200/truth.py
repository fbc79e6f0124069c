import sys, pandas as pd, numpy as np
def truth(d):
    c = pd.read_csv(f"{d}/colocated.csv"); r = pd.read_csv(f"{d}/remote.csv")
    hit = r.cache_hit_ratio.values
    bad = np.where(hit < 0.9)[0]
    k_hit = int(bad[-1] + 1) if len(bad) else 0
    # rolling data wait (window 16) settles to colocated's median rolling level *1.5 + small
    w = 16
    rc = c.data_wait_s.rolling(w).mean(); rr = r.data_wait_s.rolling(w).mean()
    base = float(np.nanmedian(rc.values[len(c)//2:]))
    thr = max(base * 2, base + 0.002)
    above = np.where(rr.values > thr)[0]
    above = above[above < len(r)//2]
    k_wait = int(above[-1] - w + 2) if len(above) else 0
    def ss(df):
        h = df.iloc[len(df)//2:]
        return h.step.count()*16 / h.step_time_s.sum()
    n = 100
    print(d, "steps", len(r), "k_hit>=0.9 from", k_hit, "t=%.1fs" % r.elapsed_s.iloc[k_hit], "wait settles ~", k_wait,
          "| first100 remote %.0f coloc %.0f" % (n*16/r.step_time_s[:n].sum(), n*16/c.step_time_s[:n].sum()),
          "| steady last half coloc %.1f remote %.1f ratio %.3f" % (ss(c), ss(r), ss(r)/ss(c)),
          "| gpu-drift coloc compute_s q1 %.4f q4 %.4f" % (c.compute_s[len(c)//8:len(c)//4].median(), c.compute_s[-len(c)//8:].median()))
for d in sys.argv[1:]: truth(d)
