// What the card and its software say about themselves (cuda-moderne-01, pratique-02,
// performance-05): driver and runtime CUDA versions, capability, SMs, L2, shared memory
// per SM and per block (opt-in), memory size in 10^9 bytes and in GiB, bus width, memory
// clock, cluster launch support, and whether a minimal kernel runs.
#include "guide_common.cuh"

__global__ void hello(int* flag) {
  if (threadIdx.x == 0 && blockIdx.x == 0) *flag = 1;
}

int main() {
  int drv = 0, rt = 0, cluster = 0, optin = 0, mem_clock_khz = 0;
  CHECK(cudaDriverGetVersion(&drv));
  CHECK(cudaRuntimeGetVersion(&rt));
  cudaDeviceProp p;
  CHECK(cudaGetDeviceProperties(&p, 0));
  CHECK(cudaDeviceGetAttribute(&cluster, cudaDevAttrClusterLaunch, 0));
  CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
  CHECK(cudaDeviceGetAttribute(&mem_clock_khz, cudaDevAttrMemoryClockRate, 0));
  int* flag;
  CHECK(cudaMalloc(&flag, sizeof(int)));
  CHECK(cudaMemset(flag, 0, sizeof(int)));
  hello<<<1, 32>>>(flag);
  cudaError_t launch = cudaDeviceSynchronize();
  int ran = 0;
  CHECK(cudaMemcpy(&ran, flag, sizeof(int), cudaMemcpyDeviceToHost));
  JsonLine j;
  j.str("figure", "device properties").raw("device", device_json())
   .str("driver_cuda_version", std::to_string(drv / 1000) + "." + std::to_string((drv % 1000) / 10))
   .str("runtime_cuda_version", std::to_string(rt / 1000) + "." + std::to_string((rt % 1000) / 10))
   .str("name", p.name).str("capability", std::to_string(p.major) + "." + std::to_string(p.minor))
   .num("sms", p.multiProcessorCount).num("l2_bytes", p.l2CacheSize).num("l2_MiB", p.l2CacheSize / 1048576.0)
   .num("smem_per_sm_KiB", p.sharedMemPerMultiprocessor / 1024.0).num("smem_per_block_optin_KiB", optin / 1024.0)
   .num("total_memory_bytes", (double)p.totalGlobalMem).num("total_memory_GB", p.totalGlobalMem / 1e9)
   .num("total_memory_GiB", p.totalGlobalMem / 1073741824.0).num("memory_bus_bits", p.memoryBusWidth)
   .num("memory_clock_kHz", mem_clock_khz)
   .num("peak_from_clock_and_bus_TBps", 2.0 * mem_clock_khz * 1e3 * p.memoryBusWidth / 8 / 1e12)
   .num("regs_per_sm", p.regsPerMultiprocessor).num("max_threads_per_sm", p.maxThreadsPerMultiProcessor)
   .str("cluster_launch", cluster ? "yes" : "no")
   .str("minimal_kernel", launch == cudaSuccess && ran ? "ran, no error" : cudaGetErrorString(launch))
   .raw("conditions", "{\"source\": \"cudaGetDeviceProperties, cudaDeviceGetAttribute, device 0\"}").print();
  return 0;
}
