// Small kernels whose ptxas report and SASS pratique-05 reads: a float4 scale with
// const __restrict__ pointers, the same in scalar floats, a kernel with 1 KiB of shared
// memory, and a dynamically indexed local array (stack, then spills under -maxrregcount=24).

__global__ void scale4(const float4* __restrict__ x, float4* __restrict__ y, float a, int n4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4) {
    float4 v = x[i];
    y[i] = make_float4(a * v.x, a * v.y, a * v.z, a * v.w);
  }
}

__global__ void scale1(const float* __restrict__ x, float* __restrict__ y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i];
}

__global__ void racy(float* out) {
  __shared__ float s[256];
  s[threadIdx.x] = (float)threadIdx.x;
  out[threadIdx.x] = s[(threadIdx.x + 1) % 256];
}

__global__ void spill(const float* x, float* y, int k) {
  float t[64];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll
  for (int j = 0; j < 64; ++j) t[j] = x[i * 64 + j] * (float)(j + 1);
  float acc = 0.f;
#pragma unroll
  for (int j = 0; j < 64; ++j) acc += t[(j * k + i) & 63] * t[j];
  y[i] = acc + t[k & 63];
}
