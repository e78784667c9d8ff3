// Occupancy against instruction-level parallelism (performance-03): a grid-stride float4
// copy of 1 GiB, 256-thread blocks, blocks per SM capped by a dummy dynamic shared-memory
// reservation, with 1 or 4 independent float4 loads in flight per thread.
#include "guide_common.cuh"

template <int ILP>
__global__ void copy_ilp(const float4* __restrict__ in, float4* __restrict__ out, size_t n4) {
  extern __shared__ char reserve[];            // only there to cap blocks per SM
  if (n4 == 0) reserve[threadIdx.x] = 0;
  size_t stride = (size_t)gridDim.x * blockDim.x;
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  for (; i + (ILP - 1) * stride < n4; i += ILP * stride) {
    float4 v[ILP];
#pragma unroll
    for (int k = 0; k < ILP; ++k) v[k] = in[i + k * stride];
#pragma unroll
    for (int k = 0; k < ILP; ++k) out[i + k * stride] = v[k];
  }
  for (; i < n4; i += stride) out[i] = in[i];
}

template <int ILP>
static std::string run(const float4* in, float4* out, size_t n4, int want_per_sm, int sms, size_t smem_per_sm) {
  auto k = copy_ilp<ILP>;
  CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
  // Reserve just over 1/(want+1) of the SM's shared memory so that at most `want` blocks fit.
  size_t smem = smem_per_sm / (want_per_sm + 1) + 1024;
  if (smem > 200 * 1024) smem = 200 * 1024;
  int per_sm = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, 256, smem));
  unsigned blocks = (unsigned)(per_sm * sms);
  double ms = events_ms([&] { k<<<blocks, 256, smem>>>(in, out, n4); }, 2, 20);
  JsonLine j;
  j.num("requested_blocks_per_sm", want_per_sm).num("blocks_per_sm", per_sm)
   .num("warps_per_sm", per_sm * 8).num("grid", blocks).num("smem_bytes", (double)smem)
   .num("TBps", 2.0 * n4 * sizeof(float4) / (ms * 1e-3) / 1e12);
  return j.text();
}

int main() {
  const size_t bytes = (size_t)1 << 30, n4 = bytes / sizeof(float4);
  cudaDeviceProp p;
  CHECK(cudaGetDeviceProperties(&p, 0));
  size_t smem_per_sm = p.sharedMemPerMultiprocessor;
  float4 *in, *out;
  CHECK(cudaMalloc(&in, bytes));
  CHECK(cudaMalloc(&out, bytes));
  CHECK(cudaMemset(in, 0, bytes));
  std::string ilp1 = "[", ilp4 = "[";
  const int wants[] = {1, 2, 4, 8};
  for (int w = 0; w < 4; ++w) {
    ilp1 += (w ? ", " : "") + run<1>(in, out, n4, wants[w], p.multiProcessorCount, smem_per_sm);
    ilp4 += (w ? ", " : "") + run<4>(in, out, n4, wants[w], p.multiProcessorCount, smem_per_sm);
  }
  ilp1 += "]";
  ilp4 += "]";
  JsonLine cond;
  cond.num("bytes", (double)bytes).str("dtype", "float4 (fp32)").num("threads_per_block", 256)
      .str("bytes_counted", "one read plus one write of 1 GiB").num("warmup", 2).num("repetitions_mean_of", 20)
      .str("grid", "blocks_per_sm x SMs, grid-stride loop").str("timing", "CUDA events around the loop");
  JsonLine j;
  j.str("figure", "occupancy vs ILP").raw("device", device_json())
   .raw("ilp1", ilp1).raw("ilp4", ilp4).raw("conditions", cond.text()).print();
  return 0;
}
