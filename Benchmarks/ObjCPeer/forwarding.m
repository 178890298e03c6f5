// The Objective-C peer of the TimerDispatch benchmarks: what a timer fire costs through the
// message-forwarding proxies the seeds recommend, measured on this machine with GNUstep.
//
// Usage:
//   forwarding                      time every variant (ns/call medians over repeated runs)
//   forwarding bench VARIANT...     time only the named variants
//   forwarding count VARIANT N      run VARIANT exactly N times, untimed (for callgrind)
//   forwarding list                 print the variant names
//
// Every variant ends in the same method, -[PeerTarget tick], which increments a counter.
//
// Weak references: Debian's GNUstep is built on GCC's libobjc, which has no zeroing weak
// references (no ARC, no objc_loadWeakRetained). The seeds' proxies hold their target
// `weak`, so this file emulates what Apple's runtime does for a `__weak` load: take the
// side-table lock, read the pointer, retain the object, unlock, and release the object after
// the call. The target zeroes the reference in -dealloc under the same lock.
//
// Blocks need clang (run.sh uses the Swift toolchain's clang with -fobjc-runtime=gcc); when
// compiled by gcc the block variants are left out.
#import <Foundation/Foundation.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// MARK: - Emulated zeroing weak reference

static pthread_mutex_t peerWeakTableLock = PTHREAD_MUTEX_INITIALIZER;

typedef struct PeerWeak {
  id object;
} PeerWeak;

/// Like objc_loadWeakRetained: a retained strong reference, or nil once the object died.
static inline id PeerWeakLoadRetained(PeerWeak *ref) {
  pthread_mutex_lock(&peerWeakTableLock);
  id object = [ref->object retain];
  pthread_mutex_unlock(&peerWeakTableLock);
  return object;
}

// MARK: - The target

/// The count at which -tick: invalidates its timer (0: never); makes run-loop runs exact.
static unsigned long peerStopAt;

@interface PeerTarget : NSObject {
 @public
  unsigned long count;
  PeerWeak *weakReferrer;  // zeroed in -dealloc, like the runtime's weak table
}
- (void)tick;
- (void)tick:(NSTimer *)timer;
@end

@implementation PeerTarget
- (void)tick {
  count++;
}
- (void)tick:(NSTimer *)timer {
  count++;
  if (count == peerStopAt) [timer invalidate];
}
- (void)dealloc {
  pthread_mutex_lock(&peerWeakTableLock);
  if (weakReferrer) weakReferrer->object = nil;
  pthread_mutex_unlock(&peerWeakTableLock);
  [super dealloc];
}
@end

// MARK: - Seed 000 (LBWeakProxy): NSProxy, methodSignatureForSelector: + forwardInvocation:

@interface PeerInvocationProxy : NSProxy {
 @public
  PeerWeak target;
}
@end

@implementation PeerInvocationProxy
- (NSMethodSignature *)methodSignatureForSelector:(SEL)sel {
  id strong = PeerWeakLoadRetained(&self->target);
  NSMethodSignature *signature = nil;
  if ([strong respondsToSelector:sel]) signature = [strong methodSignatureForSelector:sel];
  [strong release];
  // The seed falls back to [super methodSignatureForSelector:], which raises on NSProxy;
  // a signature for -init keeps a dead target silent, like YYWeakProxy.
  return signature ? signature : [NSObject instanceMethodSignatureForSelector:@selector(init)];
}
- (void)forwardInvocation:(NSInvocation *)invocation {
  id strong = PeerWeakLoadRetained(&self->target);
  if ([strong respondsToSelector:[invocation selector]]) {
    [invocation invokeWithTarget:strong];
  }
  [strong release];
}
@end

// Seed 001 (YYWeakProxy) adds -forwardingTargetForSelector: to an NSProxy. GNUstep on GCC's
// libobjc never asks an NSProxy for a forwarding target (checked here: the method is not called
// and every message goes to -forwardInvocation:), and YYWeakProxy's -forwardInvocation: only
// swallows messages to a dead target, so on this runtime it would drop every message. The
// NSObject variant below (seed 002) is the forwarding-target path that works here.

// MARK: - Seed 002 (MJProxy): NSObject subclass, forwardingTargetForSelector:

@interface PeerObjectProxy : NSObject {
 @public
  PeerWeak target;
}
@end

@implementation PeerObjectProxy
- (id)forwardingTargetForSelector:(SEL)sel {
  return [PeerWeakLoadRetained(&self->target) autorelease];
}
@end

// MARK: - Objects shared by the variants

static PeerTarget *gTarget;
static PeerInvocationProxy *gInvocationProxy;
static PeerObjectProxy *gObjectProxy;
static NSTimer *gTimerDirect, *gTimerProxy;
#ifdef __BLOCKS__
static void (^gBlock)(void);
static void (^gWeakBlock)(void);
#endif

/// Builds the shared objects. The blocks are set up by main() (see there).
static void setUp(void) {
  gTarget = [PeerTarget new];
  gInvocationProxy = [PeerInvocationProxy alloc];
  gInvocationProxy->target.object = gTarget;
  gObjectProxy = [PeerObjectProxy new];
  gObjectProxy->target.object = gTarget;
  gTarget->weakReferrer = &gInvocationProxy->target;  // only one is zeroed; none dies here
  // Repeating timers that are never scheduled: -fire sends the action without invalidating.
  gTimerDirect = [[NSTimer timerWithTimeInterval:1000 target:gTarget selector:@selector(tick:)
                                        userInfo:nil repeats:YES] retain];
  gTimerProxy = [[NSTimer timerWithTimeInterval:1000 target:gInvocationProxy
                                       selector:@selector(tick:) userInfo:nil repeats:YES] retain];
}

// MARK: - Variants: each runs `n` calls; the loop bodies are not inlined into each other

#define PEER_LOOP(name, body)                                              \
  static void __attribute__((noinline)) name(unsigned long n) {           \
    NSAutoreleasePool *pool = [NSAutoreleasePool new];                     \
    for (unsigned long i = 0; i < n; i++) {                                \
      body;                                                                \
      if ((i & 1023) == 1023) {                                            \
        [pool release];                                                    \
        pool = [NSAutoreleasePool new];                                    \
      }                                                                    \
    }                                                                      \
    [pool release];                                                        \
  }

PEER_LOOP(runDirect, [gTarget tick])
PEER_LOOP(runPerformSelector, [gTarget performSelector:@selector(tick)])
#ifdef __BLOCKS__
PEER_LOOP(runBlock, gBlock())
PEER_LOOP(runWeakBlock, gWeakBlock())
#endif
PEER_LOOP(runInvocationProxy, [(id)gInvocationProxy tick])
PEER_LOOP(runObjectProxy, [(id)gObjectProxy tick])
PEER_LOOP(runTimerFireDirect, [gTimerDirect fire])
PEER_LOOP(runTimerFireProxy, [gTimerProxy fire])

/// Schedules a repeating timer on this thread's run loop and runs the loop until it fired `n`
/// times: the whole cost of a fire, run loop included.
static void runLoopTimer(unsigned long n, id target) {
  NSAutoreleasePool *pool = [NSAutoreleasePool new];
  NSRunLoop *loop = [NSRunLoop currentRunLoop];
  NSTimer *timer = [NSTimer timerWithTimeInterval:0.000001 target:target selector:@selector(tick:)
                                         userInfo:nil repeats:YES];
  [loop addTimer:timer forMode:NSDefaultRunLoopMode];
  unsigned long end = gTarget->count + n;
  peerStopAt = end;  // the n-th fire invalidates the timer: exactly n fires
  NSDate *limit = [NSDate distantFuture];
  while (gTarget->count < end) {
    NSAutoreleasePool *inner = [NSAutoreleasePool new];
    [loop runMode:NSDefaultRunLoopMode beforeDate:limit];
    [inner release];
  }
  [timer invalidate];
  peerStopAt = 0;
  [pool release];
}
static void __attribute__((noinline)) runRunLoopDirect(unsigned long n) {
  runLoopTimer(n, gTarget);
}
static void __attribute__((noinline)) runRunLoopProxy(unsigned long n) {
  runLoopTimer(n, gInvocationProxy);
}

typedef struct Variant {
  const char *name;
  void (*run)(unsigned long);
  unsigned long iterations;  // per timed repetition
  const char *summary;
} Variant;

static const Variant variants[] = {
    {"direct", runDirect, 2000000, "[target tick]"},
#ifdef __BLOCKS__
    {"block", runBlock, 2000000, "block capturing target strongly"},
    {"block-weak", runWeakBlock, 1000000, "block capturing a weak reference (emulated __weak)"},
#endif
    {"perform-selector", runPerformSelector, 1000000, "[target performSelector:@selector(tick)]"},
    {"nsproxy-forward-invocation", runInvocationProxy, 10000,
     "NSProxy weak proxy: methodSignatureForSelector: + forwardInvocation: (seed 000)"},
    {"nsobject-forwarding-target", runObjectProxy, 10000,
     "NSObject weak proxy: forwardingTargetForSelector: (MJProxy, seed 002)"},
    {"timer-fire-direct", runTimerFireDirect, 500000, "[timer fire], target = the object"},
    {"timer-fire-proxy", runTimerFireProxy, 10000, "[timer fire], target = NSProxy (seed 000)"},
    {"runloop-timer-direct", runRunLoopDirect, 5000, "scheduled NSTimer, run loop driven"},
    {"runloop-timer-proxy", runRunLoopProxy, 5000,
     "scheduled NSTimer through NSProxy, run loop driven"},
};
static const size_t variantCount = sizeof(variants) / sizeof(variants[0]);

static const Variant *findVariant(const char *name) {
  for (size_t i = 0; i < variantCount; i++) {
    if (strcmp(variants[i].name, name) == 0) return &variants[i];
  }
  return NULL;
}

// MARK: - Timing

static double nowNanoseconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int compareDoubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

enum { repetitions = 15 };

/// Median ns/call over `repetitions` timed runs (after one warm-up run); `best` gets the minimum.
static double measure(const Variant *variant, double *best) {
  double samples[repetitions];
  variant->run(variant->iterations / 10 + 1);
  for (int r = 0; r < repetitions; r++) {
    double start = nowNanoseconds();
    variant->run(variant->iterations);
    samples[r] = (nowNanoseconds() - start) / (double)variant->iterations;
  }
  qsort(samples, repetitions, sizeof(double), compareDoubles);
  *best = samples[0];
  return samples[repetitions / 2];
}

static void bench(const Variant **chosen, size_t count) {
  double medians[variantCount];
  printf("%-28s %12s %12s %10s %12s  %s\n", "variant", "median ns", "min ns", "x direct",
         "x block-weak", "what");
  double direct = 0, weakBlock = 0;
  for (size_t i = 0; i < count; i++) {
    double best;
    medians[i] = measure(chosen[i], &best);
    if (strcmp(chosen[i]->name, "direct") == 0) direct = medians[i];
    if (strcmp(chosen[i]->name, "block-weak") == 0) weakBlock = medians[i];
    printf("%-28s %12.2f %12.2f %10.1f %12.2f  %s\n", chosen[i]->name, medians[i], best,
           direct > 0 ? medians[i] / direct : 0.0, weakBlock > 0 ? medians[i] / weakBlock : 0.0,
           chosen[i]->summary);
    fflush(stdout);
  }
}

int main(int argc, const char **argv) {
  NSAutoreleasePool *pool = [NSAutoreleasePool new];
  setUp();
#ifdef __BLOCKS__
  // Stack blocks living in main's frame for the whole run: GNUstep's Block_copy on GCC's
  // libobjc does not recognise clang's stack-block isa and returns the stack block itself,
  // so a copied block would dangle. Calling a stack or a heap block costs the same (an
  // indirect call through the block's invoke pointer).
  PeerTarget *strongTarget = gTarget;
  void (^block)(void) = ^{ [strongTarget tick]; };
  // `__weak typeof(self) weakSelf = self;` emulated: the block captures the weak slot.
  PeerWeak *weakSlot = &gObjectProxy->target;
  void (^weakBlock)(void) = ^{
    PeerTarget *strong = PeerWeakLoadRetained(weakSlot);
    [strong tick];
    [strong release];
  };
  gBlock = block;
  gWeakBlock = weakBlock;
#endif
  int status = 0;
  if (argc >= 2 && strcmp(argv[1], "list") == 0) {
    for (size_t i = 0; i < variantCount; i++) printf("%s\n", variants[i].name);
  } else if (argc >= 2 && strcmp(argv[1], "count") == 0) {
    const Variant *variant = argc == 4 ? findVariant(argv[2]) : NULL;
    unsigned long n = argc == 4 ? strtoul(argv[3], NULL, 10) : 0;
    if (variant == NULL) {
      fprintf(stderr, "usage: %s count VARIANT N  (see `%s list`)\n", argv[0], argv[0]);
      status = 2;
    } else {
      unsigned long before = gTarget->count;
      variant->run(n);
      printf("%s %lu calls\n", variant->name, gTarget->count - before);
      status = gTarget->count - before == n ? 0 : 1;
    }
  } else {
    const Variant *chosen[variantCount];
    size_t count = 0;
    if (argc >= 3 && strcmp(argv[1], "bench") == 0) {
      for (int i = 2; i < argc && count < variantCount; i++) {
        const Variant *variant = findVariant(argv[i]);
        if (variant == NULL) {
          fprintf(stderr, "unknown variant %s\n", argv[i]);
          status = 2;
        } else {
          chosen[count++] = variant;
        }
      }
    } else {
      for (size_t i = 0; i < variantCount; i++) chosen[count++] = &variants[i];
    }
    if (status == 0) bench(chosen, count);
  }
  [pool release];
  return status;
}
