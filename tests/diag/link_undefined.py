# A declared function that no linked CUDA C defines: an error at its declaration (the call would
# otherwise reach nothing, or the generated function of the same name).
from numba import cuda

mul_f32_f32 = cuda.declare_device('mul_f32_f32', 'float32(float32, float32)')


@cuda.jit('void(float32[:])', link=['tests/python/linked/broken.cu'])
def k(a):
    a[0] = mul_f32_f32(a[0], a[0])
