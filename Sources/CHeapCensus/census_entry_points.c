// malloc and free themselves (normal mode; under a sanitizer census_hooks.c interposes
// swift_allocObject instead): which function each forwards to, switched as the census starts
// recording and sampling.
//
// x86_64: malloc and free with no frame and no test: one indirect jump, through a word that
// names glibc's function or one of the census's. Written in C, each had a frame push and pop, a
// flag test and a PLT hop (SwiftPM builds keep frame pointers, and a package cannot change that
// for one file without unsafe flags). A thread that reads an old word calls a function that is
// still correct (a block allocated just as recording starts is not recorded; a free always
// forgets what the table holds, since the word changed before the first entry).
//
//   malloc → glibc | rg_malloc_sampling (count down; below 0: rg_malloc_sampled)
//                  | rg_malloc_recording | rg_malloc_recording_traced (record, trace)
//                  | rg_malloc_recording_sampling (record, trace, count down)
//   free   → glibc | rg_free_sampling[_bmi2] (filter; flagged: rg_free_sampled)
//                  | rg_free_recorded | rg_free_recorded_sampling (table, then filter)
// free's word only ever moves right, for good: once a block may be in the table or sampled,
// every free must look.
//
// Other architectures (and x86_64 built with -DRG_PORTABLE_ENTRY_POINTS, which checks that
// path here) use C entry points: a flag test and a tail call each.

#define _GNU_SOURCE
#include "CHeapCensus.h"
#include "census_internal.h"

#include <stdatomic.h>

#ifndef RG_UNDER_SANITIZER

extern void *__libc_malloc(size_t size);
extern void __libc_free(void *block);
extern RG_HIDDEN void *(*const volatile rg_next_malloc)(size_t);
extern RG_HIDDEN void (*const volatile rg_next_free)(void *);
RG_HIDDEN void *rg_malloc_recording(size_t size);
RG_HIDDEN void *rg_malloc_recording_traced(size_t size);
RG_HIDDEN void *rg_malloc_recording_sampling(size_t size);
RG_HIDDEN void *rg_malloc_sampled(size_t size);
RG_HIDDEN void rg_free_sampled(void *block);
RG_HIDDEN void rg_free_recorded(void *block);
RG_HIDDEN void rg_free_recorded_sampling(void *block);

#if defined(__x86_64__) && !defined(RG_PORTABLE_ENTRY_POINTS)

RG_HIDDEN void *rg_malloc_sampling(size_t size);
RG_HIDDEN void rg_free_sampling(void *block);
RG_HIDDEN void rg_free_sampling_bmi2(void *block);

RG_HIDDEN void *(*_Atomic rg_malloc_target)(size_t) = __libc_malloc;
RG_HIDDEN void (*_Atomic rg_free_target)(void *) = __libc_free;

void rg_switch_malloc(void) {
    int recording = atomic_load_explicit(&rg_recording, memory_order_relaxed);
    int sampling = atomic_load_explicit(&rg_sampling, memory_order_relaxed);
    int tracing = atomic_load_explicit(&rg_tracing, memory_order_relaxed);
    void *(*target)(size_t) = __libc_malloc;
    if (recording)
        target = sampling  ? rg_malloc_recording_sampling
                 : tracing ? rg_malloc_recording_traced
                           : rg_malloc_recording;
    else if (sampling)
        target = rg_malloc_sampling;
    atomic_store_explicit(&rg_malloc_target, target, memory_order_release);
}

/// Points free at the function both flags ask for. The flags only ever go from 0 to 1, so the
/// target only moves toward checking more; a thread whose compare-and-swap loses recomputes
/// from flags that include the other thread's.
static void switch_free(void) {
    void (*current)(void *) = atomic_load_explicit(&rg_free_target, memory_order_acquire);
    for (;;) {
        int table = atomic_load_explicit(&rg_table_in_use, memory_order_seq_cst);
        int samples = atomic_load_explicit(&rg_samples_in_use, memory_order_seq_cst);
        void (*target)(void *) = __libc_free;
        if (table)
            target = samples ? rg_free_recorded_sampling : rg_free_recorded;
        else if (samples)
            target = __builtin_cpu_supports("bmi2") ? rg_free_sampling_bmi2 : rg_free_sampling;
        if (target == current ||
            atomic_compare_exchange_strong_explicit(&rg_free_target, &current, target,
                                                    memory_order_acq_rel, memory_order_acquire))
            return;
    }
}

void rg_table_now_in_use(void) { switch_free(); }

void rg_samples_now_in_use(void) {
    atomic_store_explicit(&rg_samples_in_use, 1, memory_order_seq_cst);
    switch_free();
}

__attribute__((naked)) void *malloc(size_t size) { __asm__("jmp *rg_malloc_target(%rip)\n\t"); }

__attribute__((naked)) void free(void *block) { __asm__("jmp *rg_free_target(%rip)\n\t"); }

// Sampling costs an unsampled allocation 4 instructions (the countdown lives in this thread's
// TLS block, addressed from %fs with its offset read through the GOT: the initial-exec model,
// which links into an executable, where the linker turns the load into a constant, and into a
// library loaded at startup such as the LD_PRELOAD one of SuiteLeaks; the local-exec model
// links into an executable only) and a free 4 or 5 (the
// filter's bit for the block: bits 4-19 of its address as a signed 16-bit offset around the
// middle of an 8 KiB bitmap, which `bt` addresses directly; with BMI2, `rorx` brings those bits
// down in one instruction). Measured with callgrind: 10 instructions per allocate + free over
// glibc's own, 1.028x a small object's whole allocate + free (Benchmarks/Scripts/census-cost.sh).

__attribute__((naked)) void *rg_malloc_sampling(size_t size) {
    __asm__("movq rg_sample_countdown@gottpoff(%rip), %rax\n\t"
            "subq %rdi, %fs:(%rax)\n\t"
            "js rg_malloc_sampled\n\t"
            "jmp *rg_next_malloc(%rip)\n\t");
}

__attribute__((naked)) void rg_free_sampling(void *block) {
    __asm__("movl %edi, %eax\n\t"
            "shrl $4, %eax\n\t"
            "btw %ax, rg_sample_filter+4096(%rip)\n\t"
            "jc rg_free_sampled\n\t"
            "jmp *rg_next_free(%rip)\n\t");
}

__attribute__((naked, target("bmi2"))) void rg_free_sampling_bmi2(void *block) {
    __asm__("rorxl $4, %edi, %eax\n\t"
            "btw %ax, rg_sample_filter+4096(%rip)\n\t"
            "jc rg_free_sampled\n\t"
            "jmp *rg_next_free(%rip)\n\t");
}

#else

void rg_switch_malloc(void) {}
void rg_table_now_in_use(void) {}
void rg_samples_now_in_use(void) {
    atomic_store_explicit(&rg_samples_in_use, 1, memory_order_release);
}

void *malloc(size_t size) {
    if (atomic_load_explicit(&rg_recording, memory_order_relaxed)) {
        if (atomic_load_explicit(&rg_sampling, memory_order_relaxed))
            __attribute__((musttail)) return rg_malloc_recording_sampling(size);
        if (atomic_load_explicit(&rg_tracing, memory_order_relaxed))
            __attribute__((musttail)) return rg_malloc_recording_traced(size);
        __attribute__((musttail)) return rg_malloc_recording(size);
    }
    if (atomic_load_explicit(&rg_sampling, memory_order_relaxed) &&
        (rg_sample_countdown -= (int64_t)size) < 0)
        __attribute__((musttail)) return rg_malloc_sampled(size);
    // Neither: a tail call to glibc (two loads, two tests and a jump per allocation).
    return rg_next_malloc(size);
}

void free(void *block) {
    // Until the table's first insert there is nothing to forget: a load, a test and a jump.
    if (atomic_load_explicit(&rg_table_in_use, memory_order_relaxed))
        __attribute__((musttail)) return rg_free_recorded_sampling(block);
    if (atomic_load_explicit(&rg_samples_in_use, memory_order_relaxed) &&
        rg_sample_filter_hit((uintptr_t)block))
        __attribute__((musttail)) return rg_free_sampled(block);
    rg_next_free(block);
}

#endif
#endif
