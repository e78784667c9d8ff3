// Coalesced, strided, offset and float4 copies of 2^28 fp32 (performance-02).
// Useful bytes counted: one read plus one write of n fp32, whatever the access pattern.
#include "guide_common.cuh"

__global__ void copy_coalesced(const float* __restrict__ in, float* __restrict__ out, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

__global__ void copy_strided(const float* __restrict__ in, float* __restrict__ out, size_t n, int stride) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[(i * stride) % n];
}

__global__ void copy_offset(const float* __restrict__ in, float* __restrict__ out, size_t n, int offset) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i + offset < n) out[i] = in[i + offset];
}

__global__ void copy_float4(const float4* __restrict__ in, float4* __restrict__ out, size_t n4) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4) out[i] = in[i];
}

int main() {
  const size_t n = (size_t)1 << 28;
  const size_t bytes = n * sizeof(float);
  const int threads = 256, warm = 3, reps = 20;
  const unsigned blocks = (unsigned)((n + threads - 1) / threads);
  const unsigned blocks4 = (unsigned)((n / 4 + threads - 1) / threads);
  float *in, *out;
  CHECK(cudaMalloc(&in, bytes));
  CHECK(cudaMalloc(&out, bytes));
  CHECK(cudaMemset(in, 0, bytes));
  auto tbps = [&](double ms) { return 2.0 * bytes / (ms * 1e-3) / 1e12; };
  JsonLine j;
  j.str("figure", "coalescing").raw("device", device_json());
  j.num("coalesced_TBps", tbps(events_ms([&] { copy_coalesced<<<blocks, threads>>>(in, out, n); }, warm, reps)));
  j.num("stride2_TBps", tbps(events_ms([&] { copy_strided<<<blocks, threads>>>(in, out, n, 2); }, warm, reps)));
  j.num("stride32_TBps", tbps(events_ms([&] { copy_strided<<<blocks, threads>>>(in, out, n, 32); }, warm, reps)));
  j.num("offset1_TBps", tbps(events_ms([&] { copy_offset<<<blocks, threads>>>(in, out, n, 1); }, warm, reps)));
  j.num("float4_TBps", tbps(events_ms([&] {
    copy_float4<<<blocks4, threads>>>(reinterpret_cast<const float4*>(in), reinterpret_cast<float4*>(out), n / 4);
  }, warm, reps)));
  JsonLine cond;
  cond.num("elements", (double)n).str("dtype", "fp32").num("bytes_counted", 2.0 * bytes)
      .str("bytes_rule", "one read plus one write of n fp32 (useful bytes)")
      .num("threads_per_block", threads).num("warmup", warm).num("repetitions_mean_of", reps)
      .str("timing", "CUDA events around the loop").str("TBps", "10^12 bytes per second");
  j.raw("conditions", cond.text()).print();
  return 0;
}
