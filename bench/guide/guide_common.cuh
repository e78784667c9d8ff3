// Shared helpers of the guide's CUDA measurements: error checks, event timing,
// and one JSON line on stdout (figures plus the conditions they were taken in).
#pragma once
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>

#define CHECK(call)                                                           \
  do {                                                                        \
    cudaError_t e_ = (call);                                                  \
    if (e_ != cudaSuccess) {                                                  \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                 \
                   cudaGetErrorString(e_));                                   \
      std::exit(1);                                                           \
    }                                                                         \
  } while (0)

// Builds one flat JSON object; nested objects are added as raw JSON text.
struct JsonLine {
  std::string body;
  void key(const char* k) {
    if (!body.empty()) body += ", ";
    body += "\"";
    body += k;
    body += "\": ";
  }
  JsonLine& num(const char* k, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    key(k);
    body += buf;
    return *this;
  }
  JsonLine& str(const char* k, const std::string& v) {
    key(k);
    body += "\"";
    for (char c : v) {
      if (c == '"' || c == '\\') body += '\\';
      if (c == '\n') { body += "\\n"; continue; }
      body += c;
    }
    body += "\"";
    return *this;
  }
  JsonLine& raw(const char* k, const std::string& json) {
    key(k);
    body += json;
    return *this;
  }
  std::string text() const { return "{" + body + "}"; }
  void print() const { std::printf("%s\n", text().c_str()); std::fflush(stdout); }
};

inline std::string device_json() {
  cudaDeviceProp p;
  CHECK(cudaGetDeviceProperties(&p, 0));
  int drv = 0, rt = 0;
  CHECK(cudaDriverGetVersion(&drv));
  CHECK(cudaRuntimeGetVersion(&rt));
  JsonLine j;
  j.str("name", p.name).num("sms", p.multiProcessorCount)
   .str("cc", std::to_string(p.major) + "." + std::to_string(p.minor))
   .num("driver_cuda", drv).num("runtime_cuda", rt);
  return j.text();
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Mean milliseconds per launch of `launch`, over `reps` launches after `warm`,
// timed by one pair of CUDA events around the whole loop.
template <class F>
double events_ms(F launch, int warm, int reps, cudaStream_t s = 0) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  for (int i = 0; i < warm; ++i) launch();
  CHECK(cudaGetLastError());
  CHECK(cudaEventRecord(a, s));
  for (int i = 0; i < reps; ++i) launch();
  CHECK(cudaEventRecord(b, s));
  CHECK(cudaEventSynchronize(b));
  CHECK(cudaGetLastError());
  float ms = 0.f;
  CHECK(cudaEventElapsedTime(&ms, a, b));
  CHECK(cudaEventDestroy(a));
  CHECK(cudaEventDestroy(b));
  return ms / reps;
}
