// Linked by test_linked_cuda.py: line 4 names what nothing declares.
extern "C" __device__ int broken(float *result, float x) {
  *result = x;
  return not_declared_anywhere;
}
