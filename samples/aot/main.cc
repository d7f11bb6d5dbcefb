// samples/aot/main.cc: the C++ side of samples/aot (docs/aot.md). The same bundles as main.c
// (out/vec from samples/vecadd.py, out/img from samples/smooth.py), used from C++ with
// std::vector and RAII for device memory, compiled by the C++ compiler with the bundles' C files
// compiled by the C compiler:
//
//   cc -c -Iout out/vec.c out/img.c && c++ -Iout samples/aot/main.cc vec.o img.o -ldl -lpthread
//
// It checks a vecadd and a smooth over a larger image against the same computations in C++,
// and exits 0 when all matched (1 with a message otherwise).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "img.h"
#include "vec.h"

namespace {

// Device memory of one bundle, freed when it goes out of scope.
struct DeviceBuffer {
  void *ptr = nullptr;
  explicit DeviceBuffer(size_t bytes) {
    if (vec_malloc(&ptr, bytes) != vec_OK) throw std::runtime_error(vec_last_error());
  }
  ~DeviceBuffer() { vec_free(ptr); }
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
};

void check(bool ok, const std::string &what) {
  if (!ok) throw std::runtime_error(what);
}

void vecadd(int n) {
  std::vector<int32_t> a(n), b(n);
  std::vector<double> c(n, -1.0);
  for (int i = 0; i < n; i++) a[i] = -i * 3, b[i] = i * i % 1009;
  DeviceBuffer da(n * 4), db(n * 4), dc(n * 8);
  check(vec_upload(da.ptr, a.data(), n * 4) == vec_OK && vec_upload(db.ptr, b.data(), n * 4) == vec_OK,
        vec_last_error());
  const int64_t shape[1] = {n};
  vec_status s = vec_vecadd__i32c1_i32c1_f64c1(nullptr, vec_dim3_of((n + 255) / 256, 1, 1), vec_dim3_of(256, 1, 1),
                                               0, vec_array_c(da.ptr, vec_INT32, 1, shape),
                                               vec_array_c(db.ptr, vec_INT32, 1, shape),
                                               vec_array_c(dc.ptr, vec_FLOAT64, 1, shape));
  check(s == vec_OK, std::string("vecadd: ") + vec_last_error());
  check(vec_download(c.data(), dc.ptr, n * 8) == vec_OK, vec_last_error());
  for (int i = 0; i < n; i++) check(c[i] == double(a[i]) + double(b[i]), "vecadd: c[" + std::to_string(i) + "]");
}

// Python's floor division.
int64_t floordiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

void smooth(int n, int m) {
  std::vector<int32_t> x(size_t(n) * m), out(size_t(n) * m, 0);
  for (size_t i = 0; i < x.size(); i++) x[i] = int32_t(i % 97) * 31 - 1500;
  void *dx = nullptr, *dout = nullptr;
  check(img_malloc(&dx, x.size() * 4) == img_OK && img_malloc(&dout, x.size() * 4) == img_OK, img_last_error());
  check(img_upload(dx, x.data(), x.size() * 4) == img_OK && img_upload(dout, out.data(), x.size() * 4) == img_OK,
        img_last_error());
  const int64_t shape[2] = {n, m};
  img_status s = img_smooth_gpu__i32c2_i32c2(nullptr, img_dim3_of((n + 7) / 8, (m + 31) / 32, 1),
                                             img_dim3_of(8, 32, 1), 0, img_array_c(dx, img_INT32, 2, shape),
                                             img_array_c(dout, img_INT32, 2, shape));
  check(s == img_OK, std::string("smooth: ") + img_last_error());
  check(img_download(out.data(), dout, x.size() * 4) == img_OK, img_last_error());
  img_free(dx), img_free(dout);
  for (int i = 1; i < n - 1; i++)
    for (int j = 1; j < m - 1; j++) {
      int64_t total = 0;
      for (int di = -1; di <= 1; di++)
        for (int dj = -1; dj <= 1; dj++) total += x[size_t(i + di) * m + j + dj];
      check(out[size_t(i) * m + j] == floordiv(total, 9), "smooth: out[" + std::to_string(i) + ", " + std::to_string(j) + "]");
    }
}

}  // namespace

int main() {
  try {
    vecadd(5000);
    smooth(100, 70);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "main.cc: %s\n", e.what());
    return 1;
  }
  std::printf("aot C++ sample: ok on %s\n", vec_backend());
  return 0;
}
