/* The cuda sink's model step, alone: nvcc turns it into PTX at build time
 * (`nvcc -ptx`), and the sink loads that text with cuModuleLoadData, so no
 * CUDA runtime or C++ is linked and newer GPUs JIT it. extern "C" keeps
 * the name the sink asks cuModuleGetFunction for. The runtime API's sink
 * (sink-cuda.cu) compiles this file into itself.
 *
 * Every thread sums a strided share of the batch (16 bytes at a time, the
 * tail byte by byte), spins until spin_cycles of its SM's clock have
 * passed, and the warp's sum goes into a small output, so nothing can be
 * optimised away. Keep STEP_OUT_WORDS and the parameters as
 * sink-cuda-pipeline.h (LS_CUDA_STEP_OUT_WORDS) and the sinks' launches
 * have them. */
#define STEP_OUT_WORDS 64

extern "C" __global__ void
ls_model_step (const uint4 *words, size_t n_words, const unsigned char *tail, unsigned tail_n, long long spin_cycles,
               unsigned long long *out)
{
  size_t tid = (size_t) blockIdx.x * blockDim.x + threadIdx.x;
  size_t stride = (size_t) gridDim.x * blockDim.x;
  unsigned long long acc = 0;

  for (size_t i = tid; i < n_words; i += stride)
    {
      uint4 w = words[i];
      acc += ((unsigned long long) w.x | ((unsigned long long) w.y << 32)) ^ ((unsigned long long) w.z << 7)
             ^ ((unsigned long long) w.w << 21);
    }
  if (tid < tail_n)
    acc += tail[tid];

  if (spin_cycles > 0)
    {
      long long t0 = clock64 ();
      while (clock64 () - t0 < spin_cycles)
        ;
    }

  for (int off = 16; off > 0; off >>= 1)
    acc += __shfl_xor_sync (0xffffffffu, acc, off);
  if ((threadIdx.x & 31u) == 0)
    atomicAdd (&out[blockIdx.x % STEP_OUT_WORDS], acc);
}
