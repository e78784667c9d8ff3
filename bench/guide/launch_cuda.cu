// Launch costs in CUDA C++ (fondations-02, programmation-06, cuda-moderne-08):
// per kernel, host time per asynchronous launch, GPU time per kernel in the same
// loop, per kernel inside a replayed CUDA graph, and launch + cudaDeviceSynchronize.
#include <chrono>
#include "guide_common.cuh"

__global__ void empty_kernel() {}

__global__ void one_block(float* x) {          // 256 threads, 32 useful elements
  if (threadIdx.x < 32) x[threadIdx.x] += 1.0f;
}

__global__ void vec_add(float* x, const float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += y[i];
}

static double now_us() {
  using namespace std::chrono;
  return duration<double, std::micro>(steady_clock::now().time_since_epoch()).count();
}

static const int N_ASYNC = 20000, N_SYNC = 2000, GRAPH_KERNELS = 100, GRAPH_REPLAYS = 50, REPEATS = 3;

template <class F>
static std::string measure(F launch, cudaStream_t s) {
  std::vector<double> host, gpu, graph, sync;
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  for (int i = 0; i < 100; ++i) launch();
  CHECK(cudaStreamSynchronize(s));
  for (int r = 0; r < REPEATS; ++r) {
    CHECK(cudaEventRecord(a, s));
    double t0 = now_us();
    for (int i = 0; i < N_ASYNC; ++i) launch();
    double t1 = now_us();
    CHECK(cudaEventRecord(b, s));
    CHECK(cudaEventSynchronize(b));
    float ms = 0.f;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    host.push_back((t1 - t0) / N_ASYNC);
    gpu.push_back(1000.0 * ms / N_ASYNC);
  }
  cudaGraph_t g;
  cudaGraphExec_t exec;
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  for (int k = 0; k < GRAPH_KERNELS; ++k) launch();
  CHECK(cudaStreamEndCapture(s, &g));
  CHECK(cudaGraphInstantiate(&exec, g, 0));
  CHECK(cudaGraphLaunch(exec, s));
  CHECK(cudaStreamSynchronize(s));
  for (int r = 0; r < REPEATS; ++r) {
    CHECK(cudaEventRecord(a, s));
    for (int i = 0; i < GRAPH_REPLAYS; ++i) CHECK(cudaGraphLaunch(exec, s));
    CHECK(cudaEventRecord(b, s));
    CHECK(cudaEventSynchronize(b));
    float ms = 0.f;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    graph.push_back(1000.0 * ms / (GRAPH_REPLAYS * GRAPH_KERNELS));
  }
  for (int r = 0; r < REPEATS; ++r) {
    double t0 = now_us();
    for (int i = 0; i < N_SYNC; ++i) {
      launch();
      CHECK(cudaDeviceSynchronize());
    }
    sync.push_back((now_us() - t0) / N_SYNC);
  }
  CHECK(cudaGetLastError());
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(g));
  CHECK(cudaEventDestroy(a));
  CHECK(cudaEventDestroy(b));
  JsonLine j;
  j.num("host_us_per_launch", median(host)).num("gpu_us_per_kernel", median(gpu))
   .num("graph_us_per_kernel", median(graph)).num("sync_us_per_kernel", median(sync));
  return j.text();
}

int main() {
  const int n = 1 << 20;
  float *x, *y;
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  CHECK(cudaMalloc(&y, n * sizeof(float)));
  CHECK(cudaMemset(x, 0, n * sizeof(float)));
  CHECK(cudaMemset(y, 0, n * sizeof(float)));
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CHECK(cudaDeviceSynchronize());
  JsonLine out;
  out.str("figure", "launch costs, CUDA C++")
     .raw("device", device_json())
     .raw("empty_1x32", measure([&] { empty_kernel<<<1, 32, 0, s>>>(); }, s))
     .raw("one_block_256", measure([&] { one_block<<<1, 256, 0, s>>>(x); }, s))
     .raw("vec_add_2p20", measure([&] { vec_add<<<(n + 255) / 256, 256, 0, s>>>(x, y, n); }, s));
  JsonLine cond;
  cond.num("async_launches", N_ASYNC).num("sync_launches", N_SYNC)
      .num("graph_kernels", GRAPH_KERNELS).num("graph_replays", GRAPH_REPLAYS)
      .num("repeats_median_of", REPEATS).str("stream", "one non-blocking stream")
      .str("clock", "host std::chrono::steady_clock for host and sync columns, CUDA events for GPU and graph columns")
      .str("vec_add", "2^20 fp32, 4096 blocks of 256 threads");
  out.raw("conditions", cond.text()).print();
  CHECK(cudaFree(x));
  CHECK(cudaFree(y));
  return 0;
}
