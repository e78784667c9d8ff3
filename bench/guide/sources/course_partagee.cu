// The shared-memory race of pratique-03: write s[t], read s[(t + 1) % 256] with no
// __syncthreads() in between. Built with -DWITH_BARRIER, the barrier is there.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void course(float* out) {
  __shared__ float s[256];
  s[threadIdx.x] = (float)threadIdx.x;
#ifdef WITH_BARRIER
  __syncthreads();
#endif
  out[threadIdx.x] = s[(threadIdx.x + 1) % 256];
}

int main() {
  float* out;
  cudaMalloc(&out, 256 * sizeof(float));
  course<<<1, 256>>>(out);
  cudaError_t err = cudaDeviceSynchronize();
  printf("statut : %s\n", cudaGetErrorString(err));
  cudaFree(out);
  return 0;
}
