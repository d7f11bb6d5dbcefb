"""Generalized ufuncs, @guvectorize(..., target='cuda') (docs/python.md): layouts with core
dimensions and scalars, several signatures, broadcasting over the loop dimensions (an input the
same for every loop index), scalar and array outputs, out= given (host, device, positional) or
allocated, host and device arguments, stream=, and the signature chosen by casting. Run with
pyk2cuda (test_gufunc.py) and under Numba's simulator (numba_shim.py): the same lines. An input
repeated over the loop dimensions (a scalar, or an input without the loop dimensions) and a call
without loop dimensions are tested against NumPy in test_gufunc.py: Numba's simulator cannot
run them (its gufuncs add the axis with a DeviceNDArray, which the simulator does not have)."""
import numpy as np

from pyk2cuda import cuda, guvectorize, float32, float64, void

if not hasattr(cuda, "is_cuda_array"):
    # Numba's simulator lacks numba.cuda.is_cuda_array, which compiled Numba documents and its
    # gufuncs call (numba/cuda/vectorizers.py), and its device arrays have no
    # __cuda_array_interface__: the simulator's own test stands in for it.
    cuda.is_cuda_array = cuda.cudadrv.devicearray.is_cuda_ndarray


def show(name, r):
    host = r.copy_to_host() if cuda.is_cuda_array(r) else np.asarray(r)
    kind = "device" if cuda.is_cuda_array(r) else "host"
    print("%s: %s %s %s %s" % (name, kind, host.dtype, host.shape, np.round(host, 4).tolist()))


@guvectorize([void(float32[:, :], float32[:, :], float32[:, :]),
              void(float64[:, :], float64[:, :], float64[:, :])],
             '(m,n),(n,p)->(m,p)', target='cuda')
def matmul(A, B, C):
    m, n = A.shape
    n, p = B.shape
    for i in range(m):
        for j in range(p):
            C[i, j] = 0
            for k in range(n):
                C[i, j] += A[i, k] * B[k, j]


@guvectorize(['void(float32, float32[:], float32[:], float32[:])'], '(),(t),(t)->(t)', target='cuda')
def saxpy(a, x, y, out):
    for i in range(out.shape[0]):
        out[i] = a * x[i] + y[i]


@guvectorize(['void(int32[:], int32[:])', 'void(float64[:], float64[:])'], '(n)->()', target='cuda')
def row_sum(inp, out):
    s = 0
    for i in range(inp.shape[0]):
        s += inp[i]
    out[0] = s


@guvectorize(['void(int32[:], int32[:], int32[:])'], '(n),()->(n)', target='cuda')
def add_first(x, y, res):
    for i in range(x.shape[0]):
        res[i] = x[i] + y[0]


A = np.arange(2 * 3 * 2 * 4, dtype=np.float32).reshape(2, 3, 2, 4) / 7
B = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5) / 5
show("matmul 2 loop dims", matmul(A, B))
show("matmul device in", matmul(cuda.to_device(A[0]), cuda.to_device(B[0])))
show("matmul mixed in", matmul(A[1], cuda.to_device(B[1])))
dC = cuda.device_array((3, 2, 5), dtype=np.float32)
stream = cuda.stream()
r = matmul(cuda.to_device(A[0], stream), cuda.to_device(B[0], stream), out=dC, stream=stream)
stream.synchronize()
show("matmul out device, stream", dC)
print("returned out:", r is dC)

X = np.arange(10, dtype=np.float32).reshape(5, 2)
show("saxpy per-row a", saxpy(np.arange(5, dtype=np.float32), X, X))

inp = np.arange(30, dtype=np.int32).reshape(10, 3)
show("row_sum int32", row_sum(inp))
show("row_sum float64", row_sum(inp.astype(np.float64) / 4))
host_out = np.zeros(10, dtype=np.int32)
r = row_sum(inp, out=host_out)
show("row_sum out host", host_out)
print("returned out:", r is host_out)
dev_out = cuda.device_array(10, dtype=np.int32)
row_sum(cuda.to_device(inp), out=dev_out)
show("row_sum out device", dev_out)
show("row_sum device result", row_sum(cuda.to_device(inp)))


a = np.array([1, 2, 3, 4] * 2, dtype=np.int32).reshape(2, 4)
res = np.zeros((2, 4), dtype=np.int32)
add_first(a, np.array([2, 10], dtype=np.int32), res)
show("add_first positional out", res)
