# Every CUDA vector type Numba defines (10 base types, 1 to 4 lanes), built and read once, so
# that the golden file shows each one's CUDA C name and make_ function and the NVRTC suite
# compiles them all; and each of Numba's aliases (Linux: long is 64 bits).
from numba import cuda


@cuda.jit
def every_vector(out):
    out[0] = cuda.int8x1(1).x
    out[1] = cuda.int8x2(1, 2).y
    out[2] = cuda.int8x3(1, 2, 3).z
    out[3] = cuda.int8x4(1, 2, 3, 4).w
    out[4] = cuda.int16x1(1).x
    out[5] = cuda.int16x2(1, 2).y
    out[6] = cuda.int16x3(1, 2, 3).z
    out[7] = cuda.int16x4(1, 2, 3, 4).w
    out[8] = cuda.int32x1(1).x
    out[9] = cuda.int32x2(1, 2).y
    out[10] = cuda.int32x3(1, 2, 3).z
    out[11] = cuda.int32x4(1, 2, 3, 4).w
    out[12] = cuda.int64x1(1).x
    out[13] = cuda.int64x2(1, 2).y
    out[14] = cuda.int64x3(1, 2, 3).z
    out[15] = cuda.int64x4(1, 2, 3, 4).w
    out[16] = cuda.uint8x1(1).x
    out[17] = cuda.uint8x2(1, 2).y
    out[18] = cuda.uint8x3(1, 2, 3).z
    out[19] = cuda.uint8x4(1, 2, 3, 4).w
    out[20] = cuda.uint16x1(1).x
    out[21] = cuda.uint16x2(1, 2).y
    out[22] = cuda.uint16x3(1, 2, 3).z
    out[23] = cuda.uint16x4(1, 2, 3, 4).w
    out[24] = cuda.uint32x1(1).x
    out[25] = cuda.uint32x2(1, 2).y
    out[26] = cuda.uint32x3(1, 2, 3).z
    out[27] = cuda.uint32x4(1, 2, 3, 4).w
    out[28] = cuda.uint64x1(1).x
    out[29] = cuda.uint64x2(1, 2).y
    out[30] = cuda.uint64x3(1, 2, 3).z
    out[31] = cuda.uint64x4(1, 2, 3, 4).w
    out[32] = cuda.float32x1(1).x
    out[33] = cuda.float32x2(1, 2).y
    out[34] = cuda.float32x3(1, 2, 3).z
    out[35] = cuda.float32x4(1, 2, 3, 4).w
    out[36] = cuda.float64x1(1).x
    out[37] = cuda.float64x2(1, 2).y
    out[38] = cuda.float64x3(1, 2, 3).z
    out[39] = cuda.float64x4(1, 2, 3, 4).w
    out[40] = cuda.char4(cuda.char2(1, 2), cuda.char1(3), 4).z
    out[41] = cuda.short4(cuda.short2(1, 2), cuda.short1(3), 4).z
    out[42] = cuda.int4(cuda.int2(1, 2), cuda.int1(3), 4).z
    out[43] = cuda.long4(cuda.long2(1, 2), cuda.long1(3), 4).z
    out[44] = cuda.longlong4(cuda.longlong2(1, 2), cuda.longlong1(3), 4).z
    out[45] = cuda.uchar4(cuda.uchar2(1, 2), cuda.uchar1(3), 4).z
    out[46] = cuda.ushort4(cuda.ushort2(1, 2), cuda.ushort1(3), 4).z
    out[47] = cuda.uint4(cuda.uint2(1, 2), cuda.uint1(3), 4).z
    out[48] = cuda.ulong4(cuda.ulong2(1, 2), cuda.ulong1(3), 4).z
    out[49] = cuda.ulonglong4(cuda.ulonglong2(1, 2), cuda.ulonglong1(3), 4).z
    out[50] = cuda.float4(cuda.float2(1, 2), cuda.float1(3), 4).z
    out[51] = cuda.double4(cuda.double2(1, 2), cuda.double1(3), 4).z
