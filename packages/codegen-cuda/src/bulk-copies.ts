/**
 * Bulk copies as Hopper's tensor memory accelerator issues them (sm_90): the issuing thread of a
 * block (`loom_bulk_issuer`: the first, or a producer's, bulk-producer.ts) requests a box of a tensor
 * map (`cp.async.bulk.tensor`), which signals an mbarrier in shared memory with the bytes it wrote
 * (`complete_tx`); a group's barrier expects them (`mbarrier.expect_tx` before each request) and the
 * issuer's arrival (`mbarrier.arrive` when the group closes), and every thread waits for a group's phase (`mbarrier.try_wait.parity`)
 * before the barrier that lets it read the tile. Each thread counts the groups committed and
 * waited for; group g is phase g / slots of barrier g % slots (codegen-cfamily's bulk-copies.ts
 * says why a barrier is never reused before every thread has waited for it).
 *
 * Where a kernel's barriers are releases by arrival (`BulkPlan.releaseArrivals`), each is an
 * arrival of every thread at one of two more mbarriers in turn (release r is phase r / 2 of barrier
 * r % 2); the issuing thread waits for the latest release's phase before its next request or commit.
 * A thread arrives at release r only once release r - 2 is complete, so that no arrival counts
 * towards a phase before the last: every thread has arrived at r - 1, hence at r - 2, before any
 * of them waits there for long.
 *
 * The tensor maps are kernel parameters (`const __grid_constant__`: a request reads the map
 * through its address in the parameter space), 128 bytes each, which the device encodes at launch
 * (`cuTensorMapEncodeTiled`) from the array's address and `TensorMapSpec`.
 */
import type { BulkCopySpelling } from '@loom/codegen-cfamily';

/** The first thread of the block, which sets the barriers up. */
const FIRST = 'threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0';
const SHARED = (pointer: string) => `(unsigned int) __cvta_generic_to_shared(${pointer})`;

const MAP_TYPE = {
  name: 'loom_tensor_map',
  definition: [
    "/* a tensor map (the driver's CUtensorMap): 128 opaque bytes, 64-byte aligned, made by the device at launch */",
    'struct __align__(64) loom_tensor_map { unsigned long long opaque[16]; };',
  ].join('\n'),
};

const SETUP = {
  name: 'loom_bulk_setup',
  definition: [
    "/* bulk copies' barriers: each expects the issuing thread's arrival and its copies' bytes */",
    'static __device__ __forceinline__ void loom_bulk_setup(unsigned long long *barriers, unsigned int slots)',
    '{',
    `  if (${FIRST})`,
    '  {',
    '    for (unsigned int s = 0; s < slots; s++)',
    `      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\\n" :: "r"(${SHARED('barriers + s')}) : "memory");`,
    '    asm volatile("fence.mbarrier_init.release.cluster;\\n" ::: "memory");',
    '  }',
    '  __syncthreads();',
    '}',
  ].join('\n'),
};

/** The loop waiting for phase `parity` of the mbarrier at shared address `barrier` (C source, indented by `pad`). */
const waitPhase = (barrier: string, parity: string, pad: string) =>
  [
    `${pad}unsigned int done = 0;`,
    `${pad}while (!done)`,
    `${pad}  asm volatile("{\\n.reg .pred ready;\\nmbarrier.try_wait.parity.shared::cta.b64 ready, [%1], %2;\\nselp.u32 %0, 1, 0, ready;\\n}\\n" : "=r"(done) : "r"(${barrier}), "r"(${parity}) : "memory");`,
  ].join('\n');

/** An arrival of this thread at the mbarrier at shared address `barrier` (a C statement). */
const arrive = (barrier: string) =>
  `asm volatile("{\\n.reg .b64 state;\\nmbarrier.arrive.shared::cta.b64 state, [%0];\\n}\\n" :: "r"(${barrier}) : "memory");`;

const COMMIT = {
  name: 'loom_bulk_commit',
  definition: [
    '/* closes the current group of bulk copies: the issuing thread arrives at its barrier, whose phase completes when the bytes have landed */',
    'static __device__ __forceinline__ void loom_bulk_commit(unsigned long long *barriers, unsigned int &committed, unsigned int slots, bool issuer)',
    '{',
    '  if (issuer)',
    `    ${arrive(SHARED('barriers + committed % slots'))}`,
    '  committed++;',
    '}',
  ].join('\n'),
};

const WAIT = {
  name: 'loom_bulk_wait',
  definition: [
    '/* waits until at most the latest `leaving` groups of bulk copies are in flight */',
    'static __device__ __forceinline__ void loom_bulk_wait(unsigned long long *barriers, unsigned int &waited, unsigned int committed, unsigned int leaving, unsigned int slots)',
    '{',
    '  for (; waited + leaving < committed; waited++)',
    '  {',
    `    unsigned int const barrier = ${SHARED('barriers + waited % slots')}, parity = waited / slots % 2;`,
    waitPhase('barrier', 'parity', '    '),
    '  }',
    '}',
  ].join('\n'),
};

const RELEASE_SETUP = {
  name: 'loom_bulk_release_setup',
  definition: [
    '/* releases by arrival: two barriers, each expecting every thread of the block */',
    'static __device__ __forceinline__ void loom_bulk_release_setup(unsigned long long *releases, unsigned int threads)',
    '{',
    `  if (${FIRST})`,
    '  {',
    '    for (unsigned int s = 0; s < 2; s++)',
    `      asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\\n" :: "r"(${SHARED('releases + s')}), "r"(threads) : "memory");`,
    '    asm volatile("fence.mbarrier_init.release.cluster;\\n" ::: "memory");',
    '  }',
    '  __syncthreads();',
    '}',
  ].join('\n'),
};

const RELEASE = {
  name: 'loom_bulk_release',
  definition: [
    "/* a barrier as an arrival: this thread's reads before it are done; it goes on without waiting for the others */",
    'static __device__ __forceinline__ void loom_bulk_release(unsigned long long *releases, unsigned int &released)',
    '{',
    `  unsigned int const barrier = ${SHARED('releases + released % 2')};`,
    '  if (released >= 2)',
    '  {',
    '    /* the barrier object is complete for release - 2 before this arrival may count towards its next phase */',
    waitPhase('barrier', '(released - 2) / 2 % 2', '    '),
    '  }',
    `  ${arrive('barrier')}`,
    '  released++;',
    '}',
  ].join('\n'),
};

const ACQUIRE = {
  name: 'loom_bulk_acquire',
  definition: [
    '/* the issuing thread waits until every thread has arrived at the latest release, before it refills what they read */',
    'static __device__ __forceinline__ void loom_bulk_acquire(unsigned long long *releases, unsigned int released, unsigned int &acquired, bool issuer)',
    '{',
    '  if (issuer && acquired < released)',
    '  {',
    `    unsigned int const barrier = ${SHARED('releases + (released - 1) % 2')};`,
    waitPhase('barrier', '(released - 1) / 2 % 2', '    '),
    '  }',
    '  acquired = released;',
    '}',
  ].join('\n'),
};

/** The request of a box of `rank` axes. */
function copyHelper(rank: number) {
  const name = `loom_bulk_copy_${rank}d`;
  const coordinates = Array.from({ length: rank }, (_, i) => `int c${i}`).join(', ');
  const operands = Array.from({ length: rank }, (_, i) => `%${i + 2}`).join(', ');
  const inputs = Array.from({ length: rank }, (_, i) => `"r"(c${i})`).join(', ');
  const definition = [
    `/* requests the box of ${rank} axes at (c0...) of tensor map \`map\` into \`to\`, on the current group's barrier */`,
    `static __device__ __forceinline__ void ${name}(void const *map, void *to, unsigned long long *barriers, unsigned int committed, unsigned int slots, ${coordinates}, unsigned int bytes, bool issuer)`,
    '{',
    '  if (issuer)',
    '  {',
    `    unsigned int const barrier = ${SHARED('barriers + committed % slots')};`,
    '    asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;\\n" :: "r"(barrier), "r"(bytes) : "memory");',
    `    asm volatile("cp.async.bulk.tensor.${rank}d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {${operands}}], [%${rank + 2}];\\n"`,
    `      :: "r"(${SHARED('to')}), "l"(map), ${inputs}, "r"(barrier) : "memory");`,
    '  }',
    '}',
  ].join('\n');
  return { name, definition };
}

/** The barriers and counters every kernel with bulk copies declares. */
const BARRIERS = 'loom_bulk_barriers';
/** The barriers of releases by arrival. */
const RELEASES = 'loom_bulk_releases';

/** Bulk copies through the tensor memory accelerator, for the C printer (`CDialect.bulkCopy`). */
export const cudaBulkCopy: BulkCopySpelling = {
  maxRank: 5,
  maxBox: 256,
  strideBytes: 16,
  localAlignment: 128,
  alignedLocal: (bytes) => `__align__(${bytes}) `,
  mapParameter: (name) => ({ text: `const __grid_constant__ loom_tensor_map ${name}`, helper: MAP_TYPE }),
  prologue: (slots, issuer) => ({
    lines: [
      `__shared__ __align__(8) unsigned long long ${BARRIERS}[${slots}];`,
      'unsigned int loom_bulk_committed = 0u, loom_bulk_waited = 0u;',
      `bool const loom_bulk_issuer = ${issuer};`,
      `loom_bulk_setup(${BARRIERS}, ${slots}u);`,
    ],
    helper: SETUP,
  }),
  copy: (rank, map, to, coordinates, bytes, slots) => ({
    text: `loom_bulk_copy_${rank}d(&${map}, ${to}, ${BARRIERS}, loom_bulk_committed, ${slots}u, ${coordinates.join(', ')}, ${bytes}u, loom_bulk_issuer);`,
    helper: copyHelper(rank),
  }),
  commit: (slots) => ({
    text: `loom_bulk_commit(${BARRIERS}, loom_bulk_committed, ${slots}u, loom_bulk_issuer);`,
    helper: COMMIT,
  }),
  waitLeaving: (groups, slots) => ({
    text: `loom_bulk_wait(${BARRIERS}, loom_bulk_waited, loom_bulk_committed, ${groups}u, ${slots}u);`,
    helper: WAIT,
  }),
  releasePrologue: (threads) => ({
    lines: [
      `__shared__ __align__(8) unsigned long long ${RELEASES}[2];`,
      'unsigned int loom_bulk_released = 0u, loom_bulk_acquired = 0u;',
      `loom_bulk_release_setup(${RELEASES}, ${threads}u);`,
    ],
    helper: RELEASE_SETUP,
  }),
  release: (comment) => ({
    text: `loom_bulk_release(${RELEASES}, loom_bulk_released);${comment ? ` /* ${comment} */` : ''}`,
    helper: RELEASE,
  }),
  acquire: () => ({
    text: `loom_bulk_acquire(${RELEASES}, loom_bulk_released, loom_bulk_acquired, loom_bulk_issuer);`,
    helper: ACQUIRE,
  }),
};
