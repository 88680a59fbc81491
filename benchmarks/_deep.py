import time, statistics, sys, jax
import workloads, tapejax as tj
n = int(sys.argv[1])
run = workloads.build_deep("tapejax", n, jax.devices()[0])
run()
ts = []
for i in range(3):
    t = time.perf_counter(); run(); ts.append(time.perf_counter() - t)
tj.config.lazy = False
run()
te = []
for i in range(3):
    t = time.perf_counter(); run(); te.append(time.perf_counter() - t)
print(n, "default us/op %.1f   lazy=False us/op %.1f" % (min(ts)/n*1e6, min(te)/n*1e6))
