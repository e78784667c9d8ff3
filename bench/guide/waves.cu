// Waves and the tail effect (performance-03): a compute-only kernel whose 1024-thread
// blocks each reserve 200 KB of shared memory, so one block fits per SM; the grid size
// is varied around multiples of the SM count.
#include "guide_common.cuh"

constexpr int ITERS = 1 << 16;

__global__ void spin(float* out) {
  extern __shared__ float big[];
  float v = threadIdx.x;
  for (int k = 0; k < ITERS; ++k) v = v * 0.9999f + 0.0001f;
  if (v == -1.f) big[threadIdx.x] = v;         // never true; keeps the reservation
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

int main() {
  cudaDeviceProp p;
  CHECK(cudaGetDeviceProperties(&p, 0));
  const int sms = p.multiProcessorCount;
  const size_t smem = 200 * 1024;
  CHECK(cudaFuncSetAttribute(spin, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  int per_sm = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, spin, 1024, smem));
  float* out;
  CHECK(cudaMalloc(&out, (size_t)3 * sms * 1024 * sizeof(float)));
  const int grids[] = {sms / 2, sms, sms + 1, 3 * sms / 2, 2 * sms, 2 * sms + 1};
  std::string rows = "[";
  for (int g = 0; g < 6; ++g) {
    double ms = events_ms([&] { spin<<<grids[g], 1024, smem>>>(out); }, 1, 5);
    JsonLine r;
    int wave = per_sm * sms;
    r.num("blocks", grids[g]).num("waves", (grids[g] + wave - 1) / wave).num("ms", ms);
    rows += (g ? ", " : "") + r.text();
  }
  rows += "]";
  JsonLine cond;
  cond.num("threads_per_block", 1024).num("smem_bytes_per_block", (double)smem).num("blocks_per_sm", per_sm)
      .num("iterations", ITERS).str("work", "dependent fp32 multiply-add chain per thread")
      .num("warmup", 1).num("repetitions_mean_of", 5).str("timing", "CUDA events around the loop");
  JsonLine j;
  j.str("figure", "waves and tail effect").raw("device", device_json())
   .raw("rows", rows).raw("conditions", cond.text()).print();
  return 0;
}
