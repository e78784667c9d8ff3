// Branch divergence (programmation-04): a loop of length L or 2L chosen by the parity
// of threadIdx.x (divergent inside every warp) or of the warp number (uniform per warp).
#include "guide_common.cuh"

constexpr int L = 1024;

// Two different loop bodies, so that the compiler cannot merge the branches into one
// loop with a per-thread trip count (which would cost 2L, not L + 2L, when divergent).
__device__ float work_a(float v, int iters) {
  for (int k = 0; k < iters; ++k) v = v * 0.999f + 0.5f;
  return v;
}

__device__ float work_b(float v, int iters) {
  for (int k = 0; k < iters; ++k) v = v * 1.0001f - 0.25f;
  return v;
}

__global__ void by_thread(float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = (float)i;
  if (threadIdx.x % 2 == 0) v = work_a(v, L); else v = work_b(v, 2 * L);
  out[i] = v;
}

__global__ void by_warp(float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = (float)i;
  if ((threadIdx.x / 32) % 2 == 0) v = work_a(v, L); else v = work_b(v, 2 * L);
  out[i] = v;
}

int main() {
  const int blocks = 4096, threads = 256, reps = 10;
  float* out;
  CHECK(cudaMalloc(&out, (size_t)blocks * threads * sizeof(float)));
  double t_thread = 1000.0 * events_ms([&] { by_thread<<<blocks, threads>>>(out); }, 1, reps);
  double t_warp = 1000.0 * events_ms([&] { by_warp<<<blocks, threads>>>(out); }, 1, reps);
  JsonLine cond;
  cond.num("blocks", blocks).num("threads_per_block", threads).num("L", L)
      .str("work", "dependent fp32 multiply-add chain, L or 2L iterations")
      .num("warmup", 1).num("repetitions_mean_of", reps).str("timing", "CUDA events around the loop");
  JsonLine j;
  j.str("figure", "branch divergence").raw("device", device_json())
   .num("divergent_in_warp_us", t_thread).num("uniform_per_warp_us", t_warp)
   .num("ratio", t_thread / t_warp).raw("conditions", cond.text()).print();
  CHECK(cudaFree(out));
  return 0;
}
