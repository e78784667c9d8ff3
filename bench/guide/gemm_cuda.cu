// nvcc-flags: -ldl
// The GEMM ladder of performance-08, 4096 x 4096 fp32: naive, shared-memory tiles 32 x 32,
// register blocking 64 x 64 with 4 x 4 per thread, cuBLAS SGEMM (default math) and cuBLAS
// in TF32 tensor-op math. 2 n^3 FLOP per GEMM; 16 elements checked against fp64 on the host.
// cuBLAS is opened at run time (libcublas.so.13 of the toolkit or of torch's wheels, found
// through LD_LIBRARY_PATH), so that this file builds where the cuBLAS headers are absent.
#include <cmath>
#include <dlfcn.h>
#include "guide_common.cuh"

typedef void* cublasHandle_t;
typedef int (*CreateFn)(cublasHandle_t*);
typedef int (*DestroyFn)(cublasHandle_t);
typedef int (*MathFn)(cublasHandle_t, int);
typedef int (*SgemmFn)(cublasHandle_t, int, int, int, int, int, const float*, const float*, int,
                       const float*, int, const float*, float*, int);
constexpr int CUBLAS_OP_N = 0, CUBLAS_DEFAULT_MATH = 0, CUBLAS_TF32_TENSOR_OP_MATH = 3;

static void* open_cublas(std::string& why) {
  const char* names[] = {"libcublas.so.13", "libcublas.so", "libcublas.so.12"};
  for (const char* name : names)
    if (void* lib = dlopen(name, RTLD_NOW | RTLD_GLOBAL)) return lib;
  const char* e = dlerror();
  why = e ? e : "libcublas not found";
  return nullptr;
}

__global__ void gemm_naive(int n, const float* A, const float* B, float* C) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.f;
  for (int k = 0; k < n; ++k) acc += A[row * n + k] * B[k * n + col];
  C[row * n + col] = acc;
}

template <int T>
__global__ void gemm_smem(int n, const float* A, const float* B, float* C) {
  __shared__ float As[T][T];
  __shared__ float Bs[T][T];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
  float acc = 0.f;
  for (int k0 = 0; k0 < n; k0 += T) {
    As[ty][tx] = A[row * n + k0 + tx];
    Bs[ty][tx] = B[(k0 + ty) * n + col];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < T; ++k) acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  C[row * n + col] = acc;
}

constexpr int BM = 64, BN = 64, BK = 16, TM = 4, TN = 4;
__global__ void gemm_regblock(int n, const float* A, const float* B, float* C) {
  __shared__ float As[BK][BM + 4];
  __shared__ float Bs[BK][BN];
  int tid = threadIdx.x;
  int tr = tid / (BN / TN), tc = tid % (BN / TN);
  int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  float acc[TM][TN] = {};
  for (int k0 = 0; k0 < n; k0 += BK) {
    for (int i = tid; i < BM * BK; i += blockDim.x) {
      int m = i / BK, k = i % BK;
      As[k][m] = A[(row0 + m) * n + k0 + k];
    }
    for (int i = tid; i < BK * BN; i += blockDim.x) {
      int k = i / BN, c = i % BN;
      Bs[k][c] = B[(k0 + k) * n + col0 + c];
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float a[TM], b[TN];
#pragma unroll
      for (int i = 0; i < TM; ++i) a[i] = As[k][tr * TM + i];
#pragma unroll
      for (int j = 0; j < TN; ++j) b[j] = Bs[k][tc * TN + j];
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
    }
    __syncthreads();
  }
  for (int i = 0; i < TM; ++i)
    for (int j = 0; j < TN; ++j) C[(row0 + tr * TM + i) * n + col0 + tc * TN + j] = acc[i][j];
}

#define CUBLAS_CHECK(call)                                                   \
  do {                                                                       \
    int s_ = (call);                                                         \
    if (s_ != 0) {                                                           \
      std::fprintf(stderr, "%s:%d: cuBLAS status %d\n", __FILE__, __LINE__, (int)s_); \
      std::exit(1);                                                          \
    }                                                                        \
  } while (0)

int main() {
  const int n = 4096, reps = 10;
  const size_t bytes = (size_t)n * n * sizeof(float);
  std::vector<float> hA((size_t)n * n), hB((size_t)n * n), hC((size_t)n * n);
  for (size_t i = 0; i < hA.size(); ++i) {
    hA[i] = (float)((i * 7) % 13) / 13.f - 0.5f;
    hB[i] = (float)((i * 5) % 11) / 11.f - 0.5f;
  }
  float *A, *B, *C;
  CHECK(cudaMalloc(&A, bytes));
  CHECK(cudaMalloc(&B, bytes));
  CHECK(cudaMalloc(&C, bytes));
  CHECK(cudaMemcpy(A, hA.data(), bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(B, hB.data(), bytes, cudaMemcpyHostToDevice));
  // Without cuBLAS the hand-written kernels are still measured and the record says why.
  std::string why;
  void* lib = open_cublas(why);
  CreateFn cublasCreate = lib ? (CreateFn)dlsym(lib, "cublasCreate_v2") : nullptr;
  DestroyFn cublasDestroy = lib ? (DestroyFn)dlsym(lib, "cublasDestroy_v2") : nullptr;
  MathFn cublasSetMathMode = lib ? (MathFn)dlsym(lib, "cublasSetMathMode") : nullptr;
  SgemmFn cublasSgemm = lib ? (SgemmFn)dlsym(lib, "cublasSgemm_v2") : nullptr;
  const bool have_cublas = cublasCreate && cublasDestroy && cublasSetMathMode && cublasSgemm;
  if (lib && !have_cublas) why = "libcublas lacks an expected symbol";
  cublasHandle_t h = nullptr;
  if (have_cublas) CUBLAS_CHECK(cublasCreate(&h));
  const float one = 1.f, zero = 0.f;
  // Row-major C = A B is column-major C^T = B^T A^T: swap the operands.
  auto sgemm = [&] { CUBLAS_CHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, B, n, A, n, &zero, C, n)); };
  const char* names[] = {"naive_16x16", "smem_32x32", "regblock_64x64_4x4", "cublas_sgemm_fp32", "cublas_tf32"};
  JsonLine j;
  j.str("figure", "GEMM ladder").raw("device", device_json());
  if (!have_cublas) j.str("cublas", "absent: " + why);
  for (int v = 0; v < (have_cublas ? 5 : 3); ++v) {
    if (v == 3) CUBLAS_CHECK(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
    if (v == 4) CUBLAS_CHECK(cublasSetMathMode(h, CUBLAS_TF32_TENSOR_OP_MATH));
    auto launch = [&] {
      if (v == 0) gemm_naive<<<dim3(n / 16, n / 16), dim3(16, 16)>>>(n, A, B, C);
      else if (v == 1) gemm_smem<32><<<dim3(n / 32, n / 32), dim3(32, 32)>>>(n, A, B, C);
      else if (v == 2) gemm_regblock<<<dim3(n / BN, n / BM), 256>>>(n, A, B, C);
      else sgemm();
    };
    double ms = events_ms(launch, 1, reps);
    CHECK(cudaMemcpy(hC.data(), C, bytes, cudaMemcpyDeviceToHost));
    double max_err = 0;
    for (int s = 0; s < 16; ++s) {
      int r = (s * 977) % n, c = (s * 331) % n;
      double ref = 0;
      for (int k = 0; k < n; ++k) ref += (double)hA[(size_t)r * n + k] * hB[(size_t)k * n + c];
      max_err = std::fmax(max_err, std::fabs(ref - hC[(size_t)r * n + c]));
    }
    double tflops = 2.0 * n * n * (double)n / (ms * 1e-3) / 1e12;
    JsonLine r;
    r.num("ms", ms).num("TFLOPs", tflops).num("max_abs_error_16_samples", max_err);
    j.raw(names[v], r.text());
  }
  JsonLine cond;
  cond.str("size", "4096 x 4096 x 4096").str("dtype", "fp32 in and out (TF32 inputs for the last)")
      .str("flop_rule", "2 n^3").num("warmup", 1).num("repetitions_mean_of", reps)
      .str("timing", "CUDA events around the loop");
  j.raw("conditions", cond.text()).print();
  if (have_cublas) CUBLAS_CHECK(cublasDestroy(h));
  return 0;
}
