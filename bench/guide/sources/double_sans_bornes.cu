// The bounds bug of pratique-03: no `if (i < n)`, grid rounded up to 4 x 256 threads.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void double_sans_bornes(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  y[i] = 2.0f * x[i];          // bug: if (i < n) is missing
}

int main() {
  const int n = 1000;
  float *x, *y;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  cudaMemset(x, 0, n * sizeof(float));
  double_sans_bornes<<<(n + 255) / 256, 256>>>(x, y, n);
  cudaError_t err = cudaDeviceSynchronize();
  printf("statut : %s\n", cudaGetErrorString(err));
  cudaFree(x);
  cudaFree(y);
  return 0;
}
