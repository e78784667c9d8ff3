// Shared-memory bank conflicts seen by one warp (performance-04): clock64() cycles per
// warp read of shared memory at a stride of 1, 2, 4, 8, 16, 32 and 33 words.
#include "guide_common.cuh"

constexpr int REPS = 1024;

__global__ void bank_probe(int stride, float* out, long long* cycles) {
  __shared__ float buf[4096];
  for (int i = threadIdx.x; i < 4096; i += blockDim.x) buf[i] = (float)i;
  __syncthreads();
  int idx = (threadIdx.x * stride) % 4096;
  float acc = 0.f;
  long long t0 = clock64();
  for (int r = 0; r < REPS; ++r) {
    acc += buf[idx];
    idx = (idx + 4095) % 4096;                 // moving address: the load stays in the loop
  }
  long long t1 = clock64();
  out[threadIdx.x] = acc;
  if (threadIdx.x == 0) *cycles = t1 - t0;
}

int main() {
  float* out;
  long long* d_cycles;
  CHECK(cudaMalloc(&out, 32 * sizeof(float)));
  CHECK(cudaMalloc(&d_cycles, sizeof(long long)));
  const int strides[] = {1, 2, 4, 8, 16, 32, 33};
  std::string rows = "[";
  for (int k = 0; k < 7; ++k) {
    std::vector<double> runs;
    bank_probe<<<1, 32>>>(strides[k], out, d_cycles);          // warm-up
    for (int r = 0; r < 5; ++r) {
      bank_probe<<<1, 32>>>(strides[k], out, d_cycles);
      CHECK(cudaGetLastError());
      long long c = 0;
      CHECK(cudaMemcpy(&c, d_cycles, sizeof c, cudaMemcpyDeviceToHost));
      runs.push_back((double)c / REPS);
    }
    JsonLine r;
    r.num("stride", strides[k]).num("cycles_per_warp_read", median(runs));
    rows += (k ? ", " : "") + r.text();
  }
  rows += "]";
  JsonLine cond;
  cond.str("probe", "one warp, 1024 dependent-accumulation reads of shared memory, clock64()")
      .str("dtype", "fp32 words").num("repetitions_median_of", 5).num("warmup", 1);
  JsonLine j;
  j.str("figure", "bank conflicts, one warp").raw("device", device_json())
   .raw("rows", rows).raw("conditions", cond.text()).print();
  return 0;
}
