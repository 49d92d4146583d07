//===- EmuFibers.h - A block's GPU threads as fibers on one OS thread -----===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The emulator (CudaEmulation.h) runs the threads of a block, or of a
// thread-block cluster, as fibers that one OS thread switches
// between: a fiber runs until it waits at a barrier (__syncthreads, a warp
// shuffle, a cluster barrier) or ends, then the next one runs, in thread
// order. A barrier releases its fibers when the last one arrives.
//
// Why not OS threads: they are what the emulator had first, and a block of
// 256 threads crossing a barrier cost the kernel's scheduler 256 wake-ups.
// Emulating test/Emu/column-groups.test's graph took 29 s (27 s of it in
// the kernel) with a thread per GPU thread and well under a second with
// fibers, and the suite runs twice in CI, once under the sanitizers.
//
// What a fiber schedule still catches: a missing barrier makes a thread
// read what another has not written yet (thread 0 runs to its next barrier
// before thread 1 starts), and a barrier that not every thread reaches is a
// deadlock, which the scheduler reports at once (every live fiber waits and
// none can go on) where OS threads hung until the time-out. A data race
// between two threads that a GPU could interleave either way is not seen;
// neither was it with OS threads, in practice.
//
// Under AddressSanitizer (stride-emu of the hardened build), each switch is
// announced to it (__sanitizer_start_switch_fiber), so that it knows which
// stack is current; the kernel library itself is not instrumented.
//
// How a switch is made (FiberContext): on x86-64, by
// stride_emu_switch_stack below (the callee-saved registers and the
// floating-point control words pushed, the stack pointer swapped), because
// glibc's swapcontext also saves and restores the signal mask, a system
// call on every switch: the tensor-core emulation (a warp barrier per
// fragment exchange) spent half its time in the kernel, and
// test/Emu/staged-attention.test took 419 s with it. Elsewhere, ucontext.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_TEST_EMU_EMUFIBERS_H
#define STRIDE_TEST_EMU_EMUFIBERS_H

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#include <sys/mman.h>
#if !defined(__x86_64__)
#include <ucontext.h>
#endif

extern "C" {
// AddressSanitizer's fiber interface; null outside a sanitized process.
void __sanitizer_start_switch_fiber(void **fakeStackSave, const void *bottom,
                                    size_t size) __attribute__((weak));
void __sanitizer_finish_switch_fiber(void *fakeStackSave,
                                     const void **bottomOld,
                                     size_t *sizeOld) __attribute__((weak));
}

#if defined(__x86_64__)
// Saves the calling fiber's callee-saved registers and floating-point
// control words on its stack, stores its stack pointer in *from, and
// resumes the fiber whose stack pointer is `to` (System V x86-64 ABI).
// Weak: each kernel library includes this header once, and a program that
// includes it in two files still links.
extern "C" void stride_emu_switch_stack(void **from, void *to);
asm(R"(
  .text
  .weak stride_emu_switch_stack
  .hidden stride_emu_switch_stack
  .type stride_emu_switch_stack, @function
stride_emu_switch_stack:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size stride_emu_switch_stack, .-stride_emu_switch_stack
)");
#endif

namespace stride_emu {

/// Where a fiber (or the scheduler) resumes: `start` makes a new one run
/// `entry` on `stack`, `swap` saves the running one into `from` and
/// resumes `to`.
#if defined(__x86_64__)
struct FiberContext {
  void *stackPointer = nullptr; // while switched out

  void start(char *stack, size_t bytes, void (*entry)()) {
    // The frame stride_emu_switch_stack pops: the control words (MXCSR's
    // and x87's defaults), six zeroed registers, and `entry` as the return
    // address, placed so that `entry` starts with the stack aligned as
    // after a call (8 past a multiple of 16).
    auto *top = reinterpret_cast<uint64_t *>(stack + bytes);
    uint64_t *frame = top - 2 - 7;
    frame[0] = 0x1F80u | (uint64_t(0x037F) << 32);
    for (int i = 1; i <= 6; ++i)
      frame[i] = 0;
    frame[7] = reinterpret_cast<uint64_t>(entry);
    stackPointer = frame;
  }
  static void swap(FiberContext &from, FiberContext &to) {
    stride_emu_switch_stack(&from.stackPointer, to.stackPointer);
  }
};
#else
struct FiberContext {
  ucontext_t context;

  void start(char *stack, size_t bytes, void (*entry)()) {
    getcontext(&context);
    context.uc_stack.ss_sp = stack;
    context.uc_stack.ss_size = bytes;
    context.uc_link = nullptr;
    makecontext(&context, entry, 0);
  }
  static void swap(FiberContext &from, FiberContext &to) {
    swapcontext(&from.context, &to.context);
  }
};
#endif

/// One GPU thread: its context, its stack, and what it runs.
struct Fiber {
  FiberContext context;
  char *stack = nullptr;
  std::function<void()> body;
  /// Runs each time the fiber is switched to: sets the thread-locals
  /// (threadIdx, blockIdx, the block) that all fibers share.
  std::function<void()> enter;
  bool done = false;
  void *fakeStack = nullptr; // AddressSanitizer's, while switched out
};

/// Runs a set of fibers to completion on the calling OS thread.
class FiberScheduler {
public:
  /// A GPU thread's locals live on its stack: 1 MiB each, committed by the
  /// kernel as touched, below a guard page that turns an overflow into a
  /// fault rather than another thread's data.
  static constexpr size_t kStackBytes = size_t(1) << 20;
  static constexpr size_t kGuardBytes = 4096;

  ~FiberScheduler() {
    for (char *stack : stacks)
      munmap(stack - kGuardBytes, kStackBytes + kGuardBytes);
  }

  /// Runs every fiber until all have ended; a deadlock (every live fiber
  /// waiting, none released) ends the process with an error.
  void run(std::vector<Fiber> &fibers) {
    while (stacks.size() < fibers.size())
      stacks.push_back(newStack());
    for (size_t i = 0; i < fibers.size(); ++i)
      prepare(fibers[i], stacks[i]);
    FiberScheduler *outer = active;
    active = this;
    for (bool live = true; live;) {
      live = false;
      progressed = false;
      for (Fiber &fiber : fibers) {
        if (fiber.done)
          continue;
        live = true;
        switchTo(fiber);
      }
      if (live && !progressed)
        deadlock(fibers);
    }
    active = outer;
  }

  /// From a fiber: note that it got further (arrived at a barrier, left
  /// one), so the round is not a deadlock.
  void noteProgress() { progressed = true; }

  /// From a fiber: back to the scheduler, which resumes the fiber after the
  /// others have had their turn.
  void yield() { switchOut(/*ending=*/false); }

  /// The scheduler running the calling fiber.
  static inline thread_local FiberScheduler *active = nullptr;

private:
  static char *newStack() {
    void *memory = mmap(nullptr, kStackBytes + kGuardBytes,
                        PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                        -1, 0);
    if (memory == MAP_FAILED) {
      std::fprintf(stderr, "stride-emu: out of memory for a GPU thread's "
                           "stack\n");
      std::_Exit(5);
    }
    mprotect(memory, kGuardBytes, PROT_NONE);
    return static_cast<char *>(memory) + kGuardBytes;
  }

  void prepare(Fiber &fiber, char *stack) {
    fiber.stack = stack;
    fiber.done = false;
    fiber.context.start(stack, kStackBytes, &FiberScheduler::entry);
  }

  static void entry() {
    FiberScheduler &self = *active;
    self.finishSwitchIn(nullptr);
    Fiber &fiber = *self.current;
    fiber.body();
    fiber.done = true;
    self.progressed = true;
    self.switchOut(/*ending=*/true);
  }

  void switchTo(Fiber &fiber) {
    current = &fiber;
    fiber.enter();
    void *fakeStack = nullptr;
    if (__sanitizer_start_switch_fiber)
      __sanitizer_start_switch_fiber(&fakeStack, fiber.stack, kStackBytes);
    FiberContext::swap(schedulerContext, fiber.context);
    if (__sanitizer_finish_switch_fiber)
      __sanitizer_finish_switch_fiber(fakeStack, nullptr, nullptr);
    current = nullptr;
  }

  void switchOut(bool ending) {
    Fiber &fiber = *current;
    if (__sanitizer_start_switch_fiber)
      __sanitizer_start_switch_fiber(ending ? nullptr : &fiber.fakeStack,
                                     schedulerBottom, schedulerSize);
    // An ended fiber's context is saved and never resumed.
    FiberContext::swap(fiber.context, schedulerContext);
    if (ending)
      std::abort(); // the scheduler does not resume an ended fiber
    finishSwitchIn(fiber.fakeStack);
  }

  /// In a fiber, just switched to: tells AddressSanitizer, and learns the
  /// scheduler's stack the first time.
  void finishSwitchIn(void *fakeStack) {
    if (__sanitizer_finish_switch_fiber)
      __sanitizer_finish_switch_fiber(fakeStack, &schedulerBottom,
                                      &schedulerSize);
  }

  [[noreturn]] static void deadlock(const std::vector<Fiber> &fibers) {
    size_t waiting = 0;
    for (const Fiber &fiber : fibers)
      waiting += !fiber.done;
    std::fprintf(stderr,
                 "stride-emu: deadlock: %zu of the %zu threads wait at a "
                 "barrier (__syncthreads, a warp shuffle or a cluster "
                 "barrier) that the others have passed or will not reach\n",
                 waiting, fibers.size());
    std::fflush(stderr);
    std::_Exit(5);
  }

  FiberContext schedulerContext;
  const void *schedulerBottom = nullptr;
  size_t schedulerSize = 0;
  Fiber *current = nullptr;
  bool progressed = false;
  std::vector<char *> stacks;
};

/// No work when a barrier completes.
struct NoCompletion {
  void operator()() noexcept {}
};

/// A barrier of `count` fibers: the last to arrive runs `completion`, then
/// all go on. Reusable, like std::barrier.
template <typename Completion = NoCompletion> class FiberBarrier {
public:
  explicit FiberBarrier(unsigned count, Completion completion = {})
      : count(count), completion(completion) {}

  void arrive_and_wait() {
    FiberScheduler &scheduler = *FiberScheduler::active;
    scheduler.noteProgress();
    unsigned arrivedIn = generation;
    if (++arrived == count) {
      arrived = 0;
      completion();
      ++generation;
      return;
    }
    while (generation == arrivedIn)
      scheduler.yield();
    scheduler.noteProgress();
  }

private:
  unsigned count;
  Completion completion;
  unsigned arrived = 0;
  unsigned generation = 0;
};

} // namespace stride_emu

#endif // STRIDE_TEST_EMU_EMUFIBERS_H
