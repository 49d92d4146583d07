// Conditional link probe (bench/NOTES.md section 85): can an NVRTC program
// that sets a CUDA graph conditional (`cudaGraphSetConditional`, the
// device runtime's) be compiled and linked, with no GPU, into a cubin that
// a Stride module could carry? It compiles a one-thread kernel for sm_90
// with NVRTC (relocatable), links it with nvJitLink against the device
// runtime library, and writes the linked cubin; `readelf -s` on it shows
// whether the symbol is still left to the driver.
//
// Build and run here (the CUDA 13 toolkit, no GPU needed):
//   g++ -O1 -I/usr/local/cuda/include conditional_link_probe.cpp \
//     -L/usr/local/cuda/lib64 -lnvrtc -lnvJitLink \
//     -Wl,-rpath,/usr/local/cuda/lib64 -o link && ./link \
//     && readelf -s /tmp/choose.cubin | grep cudaGraph
// (`./link declare`: the kernel compiled whole-program, the function
// declared by hand).
#include <nvJitLink.h>
#include <nvrtc.h>

#include <cstdio>
#include <string>
#include <vector>

static const char *kSource = R"(
#ifdef DECLARE
extern "C" __device__ void cudaGraphSetConditional(unsigned long long handle, unsigned int value);
#endif
extern "C" __global__ void choose(unsigned long long handle, const long long *validLength,
                                  long long threshold) {
  if (threadIdx.x == 0 && blockIdx.x == 0)
    cudaGraphSetConditional(handle, *validLength <= threshold ? 1u : 0u);
}
)";

int main(int argc, char **argv) {
  // `./link declare`: whole-program code (not relocatable) with the
  // function declared by hand, as NVRTC declares it only for relocatable
  // code.
  const bool declare = argc > 1 && std::string(argv[1]) == "declare";
  const char *devrt = "/usr/local/cuda/lib64/libcudadevrt.a";
  nvrtcProgram program;
  nvrtcCreateProgram(&program, kSource, "choose.cu", 0, nullptr, nullptr);
  const char *options[] = {"--gpu-architecture=sm_90",
                           declare ? "--relocatable-device-code=false"
                                   : "--relocatable-device-code=true",
                           "-default-device", "--include-path=/usr/local/cuda/include",
                           "-DDECLARE"};
  nvrtcResult compiled = nvrtcCompileProgram(program, declare ? 5 : 4, options);
  size_t logSize = 0;
  nvrtcGetProgramLogSize(program, &logSize);
  std::string log(logSize, '\0');
  nvrtcGetProgramLog(program, log.data());
  std::printf("nvrtc: %s%s\n", nvrtcGetErrorString(compiled), log.c_str());
  if (compiled != NVRTC_SUCCESS)
    return 1;
  size_t cubinSize = 0;
  nvrtcGetCUBINSize(program, &cubinSize);
  std::vector<char> object(cubinSize);
  nvrtcGetCUBIN(program, object.data());
  std::printf("relocatable cubin: %zu bytes\n", cubinSize);

  nvJitLinkHandle link;
  const char *linkOptions[] = {"-arch=sm_90"};
  nvJitLinkResult r = nvJitLinkCreate(&link, 1, linkOptions);
  if (r == NVJITLINK_SUCCESS)
    r = nvJitLinkAddData(link, NVJITLINK_INPUT_CUBIN, object.data(), object.size(), "choose");
  if (r == NVJITLINK_SUCCESS)
    r = nvJitLinkAddFile(link, NVJITLINK_INPUT_LIBRARY, devrt);
  if (r == NVJITLINK_SUCCESS)
    r = nvJitLinkComplete(link);
  size_t errorSize = 0;
  nvJitLinkGetErrorLogSize(link, &errorSize);
  std::string errors(errorSize, '\0');
  if (errorSize)
    nvJitLinkGetErrorLog(link, errors.data());
  std::printf("nvJitLink: %d %s\n", int(r), errors.c_str());
  if (r != NVJITLINK_SUCCESS)
    return 1;
  size_t linkedSize = 0;
  nvJitLinkGetLinkedCubinSize(link, &linkedSize);
  std::vector<char> linked(linkedSize);
  nvJitLinkGetLinkedCubin(link, linked.data());
  std::FILE *out = std::fopen("/tmp/choose.cubin", "wb");
  std::fwrite(linked.data(), 1, linked.size(), out);
  std::fclose(out);
  std::printf("linked cubin: %zu bytes (/tmp/choose.cubin)\n", linkedSize);
  return 0;
}
