// Cost of atomics (programmation-04, programmation-05): a float sum by one atomicAdd per
// element on a single address vs a warp shuffle reduction then one atomicAdd per warp;
// a 256-bin histogram of bytes with one global atomic per element (uniform data, all in
// one bin) vs one privatised in shared memory.
#include "guide_common.cuh"

__global__ void sum_atomic(const float* x, float* s, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(s, x[i]);
}

__global__ void sum_warp(const float* x, float* s, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? x[i] : 0.f;
  for (int d = 16; d > 0; d /= 2) v += __shfl_down_sync(0xffffffffu, v, d);
  if (threadIdx.x % 32 == 0) atomicAdd(s, v);
}

__global__ void histo_global(const unsigned char* x, unsigned* h, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&h[x[i]], 1u);
}

__global__ void histo_private(const unsigned char* x, unsigned* h, size_t n) {
  __shared__ unsigned local[256];
  local[threadIdx.x] = 0;                       // blockDim.x == 256
  __syncthreads();
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    atomicAdd(&local[x[i]], 1u);
  __syncthreads();
  if (local[threadIdx.x]) atomicAdd(&h[threadIdx.x], local[threadIdx.x]);
}

__global__ void fill_uniform(unsigned char* x, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = (unsigned char)((i * 2654435761u) >> 13);
}

int main() {
  const size_t n = (size_t)1 << 26;
  const int threads = 256, reps = 10;
  const unsigned blocks = (unsigned)((n + threads - 1) / threads);
  cudaDeviceProp p;
  CHECK(cudaGetDeviceProperties(&p, 0));
  const unsigned private_blocks = 8u * p.multiProcessorCount;
  float *x, *s;
  unsigned char *uni, *same;
  unsigned* h;
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  CHECK(cudaMalloc(&s, sizeof(float)));
  CHECK(cudaMalloc(&uni, n));
  CHECK(cudaMalloc(&same, n));
  CHECK(cudaMalloc(&h, 256 * sizeof(unsigned)));
  CHECK(cudaMemset(x, 0, n * sizeof(float)));
  CHECK(cudaMemset(same, 7, n));
  fill_uniform<<<blocks, threads>>>(uni, n);
  CHECK(cudaDeviceSynchronize());
  auto ms = [&](auto f) { return events_ms(f, 1, reps); };
  double t_atomic = ms([&] { sum_atomic<<<blocks, threads>>>(x, s, n); });
  double t_warp = ms([&] { sum_warp<<<blocks, threads>>>(x, s, n); });
  double t_hg_uni = ms([&] { histo_global<<<blocks, threads>>>(uni, h, n); });
  double t_hg_same = ms([&] { histo_global<<<blocks, threads>>>(same, h, n); });
  double t_hp_uni = ms([&] { histo_private<<<private_blocks, threads>>>(uni, h, n); });
  double t_hp_same = ms([&] { histo_private<<<private_blocks, threads>>>(same, h, n); });
  JsonLine cond;
  cond.num("elements", (double)n).str("sum_dtype", "fp32").str("histogram_input", "2^26 uint8, 256 bins")
      .num("threads_per_block", threads).num("private_blocks", private_blocks)
      .num("warmup", 1).num("repetitions_mean_of", reps).str("timing", "CUDA events around the loop");
  JsonLine j;
  j.str("figure", "atomics").raw("device", device_json())
   .num("sum_atomic_per_element_ms", t_atomic).num("sum_warp_then_atomic_ms", t_warp)
   .num("histo_global_uniform_ms", t_hg_uni).num("histo_global_same_bin_ms", t_hg_same)
   .num("histo_private_uniform_ms", t_hp_uni).num("histo_private_same_bin_ms", t_hp_same)
   .num("histo_private_uniform_input_TBps", n / (t_hp_uni * 1e-3) / 1e12)
   .raw("conditions", cond.text()).print();
  return 0;
}
