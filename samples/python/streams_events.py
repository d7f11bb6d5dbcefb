# streams_events.py -- ten arrays, each normalized on its own stream (copy in, kernel, copy
# out, all queued), timed with events against the same work on one stream.
# Run: python3 samples/python/streams_events.py [N]
import sys

import numpy as np
from pyk2cuda import cuda


@cuda.jit
def scale(x, factor):
    for k in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        x[k] = x[k] * factor


n_streams = 10
n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
blocks = min(64, (n + 255) // 256)   # a grid-stride loop covers the rest
rng = np.random.default_rng(3)
inputs = [cuda.pinned_array(n, dtype=np.float64) for _ in range(n_streams)]
outputs = [cuda.pinned_array(n, dtype=np.float64) for _ in range(n_streams)]
for a in inputs:
    a[:] = rng.random(n)


def run(streams):
    start, end = cuda.event(), cuda.event()
    start.record()
    for k in range(n_streams):
        s = streams[k % len(streams)]
        d = cuda.to_device(inputs[k], stream=s)
        scale[blocks, 256, s](d, 1.0 / (k + 1))
        d.copy_to_host(outputs[k], stream=s)
    end.record()
    end.synchronize()
    return start.elapsed_time(end)


run([cuda.stream()])   # warm-up: the first launch compiles the kernel
many = run([cuda.stream() for _ in range(n_streams)])
for k in range(n_streams):
    assert np.allclose(outputs[k], inputs[k] / (k + 1))
    outputs[k][:] = 0
one = run([cuda.stream()])
for k in range(n_streams):
    assert np.allclose(outputs[k], inputs[k] / (k + 1))
print("streams_events: ok (10 streams %.2f ms, 1 stream %.2f ms)" % (many, one))


# One stream's result feeds another's kernel, as in a pipeline of streams: an event recorded on
# the first stream after its kernel, which the second stream waits for (work queued on it after
# the wait starts only when the event is reached; the host does not wait), and device memory
# dropped inside the block kept until it ends (cuda.defer_cleanup), so that no free makes the
# streams meet.
first, second = cuda.stream(), cuda.stream()
with cuda.defer_cleanup():
    for k in range(n_streams):
        d = cuda.to_device(inputs[k], stream=first)
        scale[blocks, 256, first](d, 4.0)
        ready = cuda.event()
        ready.record(first)
        ready.wait(stream=second)
        scale[blocks, 256, second](d, 0.25 / (k + 1))
        d.copy_to_host(outputs[k], stream=second)
        del d
second.synchronize()
for k in range(n_streams):
    assert np.allclose(outputs[k], inputs[k] / (k + 1))
print("streams_events: chained streams ok")
