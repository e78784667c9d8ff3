// CUDA transposes of 16384 x 16384 fp32 (performance-04, -06, -07): naive (strided
// writes), tiled 32 x 32 in shared memory without padding, and with one column of padding.
// Bytes counted: one read plus one write of the matrix. With the argument `profile`,
// launches each kernel once and prints nothing else (for ncu_transpose_cuda.py).
#include <cstring>
#include "guide_common.cuh"

constexpr int TILE = 32, ROWS = 8;

__global__ void transpose_naive(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  int c = blockIdx.x * TILE + threadIdx.x;
  int r0 = blockIdx.y * TILE + threadIdx.y;
  for (int k = 0; k < TILE; k += ROWS) {
    int r = r0 + k;
    if (r < rows && c < cols) out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
  }
}

template <int PAD>
__global__ void transpose_tiled(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  __shared__ float tile[TILE][TILE + PAD];
  int c = blockIdx.x * TILE + threadIdx.x;
  int r = blockIdx.y * TILE + threadIdx.y;
  for (int k = 0; k < TILE; k += ROWS)
    if (r + k < rows && c < cols) tile[threadIdx.y + k][threadIdx.x] = in[(size_t)(r + k) * cols + c];
  __syncthreads();
  int oc = blockIdx.y * TILE + threadIdx.x;
  int orow = blockIdx.x * TILE + threadIdx.y;
  for (int k = 0; k < TILE; k += ROWS)
    if (orow + k < cols && oc < rows) out[(size_t)(orow + k) * rows + oc] = tile[threadIdx.x][threadIdx.y + k];
}

__global__ void fill(float* x, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = (float)(i % 9973);
}

__global__ void count_errors(const float* in, const float* out, int rows, int cols, unsigned long long* errors) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= (size_t)rows * cols) return;
  size_t r = i / cols, c = i % cols;
  if (out[c * rows + r] != in[i]) atomicAdd(errors, 1ull);
}

int main(int argc, char** argv) {
  const bool profile = argc > 1 && std::strcmp(argv[1], "profile") == 0;
  const int rows = 16384, cols = 16384, warm = 5, reps = 50;
  const size_t n = (size_t)rows * cols, bytes = n * sizeof(float);
  float *in, *out;
  unsigned long long* errors;
  CHECK(cudaMalloc(&in, bytes));
  CHECK(cudaMalloc(&out, bytes));
  CHECK(cudaMalloc(&errors, sizeof(unsigned long long)));
  fill<<<(unsigned)((n + 255) / 256), 256>>>(in, n);
  CHECK(cudaDeviceSynchronize());
  dim3 block(TILE, ROWS), grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
  auto launch = [&](int v) {
    if (v == 0) transpose_naive<<<grid, block>>>(in, out, rows, cols);
    else if (v == 1) transpose_tiled<0><<<grid, block>>>(in, out, rows, cols);
    else transpose_tiled<1><<<grid, block>>>(in, out, rows, cols);
  };
  if (profile) {
    for (int v = 0; v < 3; ++v) launch(v);
    CHECK(cudaDeviceSynchronize());
    return 0;
  }
  const char* names[] = {"naive", "tiled_pad0", "tiled_pad1"};
  JsonLine j;
  j.str("figure", "CUDA transposes").raw("device", device_json());
  for (int v = 0; v < 3; ++v) {
    double ms = events_ms([&] { launch(v); }, warm, reps);
    CHECK(cudaMemset(errors, 0, sizeof(unsigned long long)));
    count_errors<<<(unsigned)((n + 255) / 256), 256>>>(in, out, rows, cols, errors);
    unsigned long long e = 0;
    CHECK(cudaMemcpy(&e, errors, sizeof e, cudaMemcpyDeviceToHost));
    double tbps = 2.0 * bytes / (ms * 1e-3) / 1e12;
    JsonLine r;
    r.num("ms", ms).num("TBps", tbps).num("pct_of_4p8", 100.0 * tbps / 4.8).num("errors", (double)e);
    j.raw(names[v], r.text());
  }
  JsonLine cond;
  cond.str("size", "16384 x 16384").str("dtype", "fp32").num("bytes_counted", 2.0 * bytes)
      .str("bytes_rule", "one read plus one write").str("block", "32 x 8 threads, 32 x 32 tiles")
      .num("warmup", warm).num("repetitions_mean_of", reps).str("timing", "CUDA events around the loop")
      .str("peak", "4.8 TB/s datasheet");
  j.raw("conditions", cond.text()).print();
  return 0;
}
