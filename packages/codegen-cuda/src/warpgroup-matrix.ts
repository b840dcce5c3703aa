/**
 * Tensor tiles of 64 rows as Hopper's warpgroup matrix instructions (`wgmma.mma_async`, sm_90a):
 * the 128 work-items of a warpgroup multiply a 64 x N x 16 tile together, both factors read from
 * shared memory through 64-bit descriptors (core matrices: core's codegen/matrix-cores.ts), the
 * accumulator in their registers, N/2 floats each. The layouts and fences are those the probe
 * `bench/wgmma/probe.cu` checked on the H200:
 *
 *  - a descriptor holds the tile's shared address, the bytes between core matrices along k (the
 *    "leading" offset) and along m or n (the "stride" offset), each in 16-byte units, no swizzling;
 *    a factor whose core matrices' lines run along m or n (b as Loom's `b[k, j]` stores it) is
 *    read transposed (the instruction's transpose bits; the offsets keep their meaning);
 *  - work-item t of the warpgroup holds rows 16 (t / 32) + (t % 32) / 4 and 8 below it, columns
 *    2 (t % 4) and the next, of each block of 8 columns: 4 floats a block, one block after another;
 *  - what ordinary stores (or cp.async copies) put in shared memory reaches the instruction, which
 *    reads through the "async proxy", only past `fence.proxy.async` (printed before every barrier
 *    of such a program, `factorsFence`); the products of a run are issued after `wgmma.fence` and
 *    committed as one group, and left in flight: the next run on the same accumulator follows
 *    them in order (as the probe's four products a step of k did), and every barrier, fill and
 *    store of such a program first waits for all of them (`wgmma.wait_group 0`), so that nothing
 *    overwrites a panel they read or reads an accumulator they write.
 */
import { InternalError, type Fragment } from '@loom/core';
import type { PrintedProduct, PrintedTile } from '@loom/codegen-cfamily';

/** The work-items of a warpgroup, which run one instruction together. */
export const WARPGROUP = 128;

/** The wait for every group of products this warpgroup has committed but the latest `groups`. */
export const warpgroupWait = (groups: number) =>
  `asm volatile("wgmma.wait_group.sync.aligned ${groups};\\n" ::: "memory");`;

/** The wait for every group of products this warpgroup has committed. */
export const WARPGROUP_WAIT = warpgroupWait(0);

/** The descriptor of a tile in shared memory, from its generic address and its two offsets in bytes. */
const DESCRIPTOR = {
  name: 'loom_wgmma_descriptor',
  definition: [
    '/* a wgmma operand in shared memory: its address and the bytes between core matrices along k and across, in 16-byte units */',
    'inline __device__ unsigned long long loom_wgmma_descriptor(void const *tile, unsigned int along_k, unsigned int across)',
    '{',
    '  unsigned int address = (unsigned int) __cvta_generic_to_shared(tile);',
    '  return (unsigned long long) ((address >> 4) & 0x3FFF) | ((unsigned long long) ((along_k >> 4) & 0x3FFF) << 16)',
    '    | ((unsigned long long) ((across >> 4) & 0x3FFF) << 32);',
    '}',
  ].join('\n'),
};

/** The descriptor's swizzling mode for a span of 128, 64 or 32 bytes. */
const SWIZZLE_MODES: Record<number, number> = { 128: 1, 64: 2, 32: 3 };

/**
 * The descriptor of a tile of a swizzled array (core's swizzle.ts): its address, the bytes between
 * blocks of lines along the contiguous axis (the leading offset; unused where that axis is k), the
 * bytes between repeats of 8 lines (the stride offset), and the swizzling mode (bits 62-63).
 */
const SWIZZLED_DESCRIPTOR = {
  name: 'loom_wgmma_descriptor_swizzled',
  definition: [
    '/* a wgmma operand swizzled in shared memory: its address, the bytes between blocks of lines and between repeats of 8 lines, the swizzling mode */',
    'inline __device__ unsigned long long loom_wgmma_descriptor_swizzled(void const *tile, unsigned int leading, unsigned int stride, unsigned int mode)',
    '{',
    '  unsigned int address = (unsigned int) __cvta_generic_to_shared(tile);',
    '  return (unsigned long long) ((address >> 4) & 0x3FFF) | ((unsigned long long) ((leading >> 4) & 0x3FFF) << 16)',
    '    | ((unsigned long long) ((stride >> 4) & 0x3FFF) << 32) | ((unsigned long long) mode << 62);',
    '}',
  ].join('\n'),
};

/** The PTX name of a factor's element type (floats are read as TF32) and its bytes. */
const PTX_TYPE: Record<string, { readonly ptx: string; readonly bytes: number }> = {
  __half: { ptx: 'f16', bytes: 2 },
  __nv_bfloat16: { ptx: 'bf16', bytes: 2 },
  float: { ptx: 'tf32', bytes: 4 },
};

/** The helper issuing one product of `shape`, its factors' type and transpose bits fixed. */
function productHelper(shape: Fragment['shape'], type: string, transposeA: number, transposeB: number) {
  const ptx = PTX_TYPE[type]?.ptx;
  // core offers wgmma's shapes for float16, bfloat16 and TF32 factors only (WGMMA_SHAPES)
  if (!ptx) throw new InternalError(`wgmma has no factors of ${type}`);
  // TF32 factors are read with their lines along k only (MatrixShape.kMajor): the instruction has no transpose bits
  const transposable = ptx !== 'tf32';
  if (!transposable && (transposeA || transposeB))
    throw new InternalError('wgmma reads no TF32 factor transposed (core checks kMajor)');
  const floats = shape.n / 2;
  const name = `loom_wgmma_m64n${shape.n}k${shape.k}_${ptx}${transposable ? `_${transposeA}${transposeB}` : ''}`;
  const registers = Array.from({ length: floats }, (_, e) => `%${e}`).join(', ');
  const outputs = Array.from({ length: floats }, (_, e) => `"+f"(d[${e}])`).join(', ');
  const flags = transposable ? `p, 1, 1, ${transposeA}, ${transposeB}` : 'p, 1, 1';
  const how = transposable ? `, ${transposeA ? 'a' : 'neither'}${transposeB ? ' b' : ''} read transposed` : '';
  const definition = [
    `/* d += a * b for a 64 x ${shape.n} x ${shape.k} tile of ${ptx} factors in shared memory (descriptors)${how} */`,
    `inline __device__ void ${name}(float (&d)[${floats}], unsigned long long a, unsigned long long b)`,
    '{',
    '  asm volatile(',
    '    "{\\n.reg .pred p;\\nsetp.ne.b32 p, 1, 0;\\n"',
    `    "wgmma.mma_async.sync.aligned.m64n${shape.n}k${shape.k}.f32.${ptx}.${ptx} {${registers}}, %${floats}, %${floats + 1}, ${flags};\\n}\\n"`,
    `    : ${outputs}`,
    '    : "l"(a), "l"(b));',
    '}',
  ].join('\n');
  return { name, definition };
}

/** The bytes of a tile's element. */
const bytesOf = (t: PrintedTile) => PTX_TYPE[t.type]?.bytes ?? 2;

/** The declaration of `count` accumulators of a 64 x N tile: N/2 floats a work-item each. */
export function warpgroupFragments(name: string, shape: Fragment['shape'], type: string, count: number): string {
  return `${type} ${name}[${count}][${shape.n / 2}];`;
}

/** An accumulator set to `value` in every work-item's registers. */
export function warpgroupFill(fragment: string, value: string, accumulator: Fragment): string[] {
  return [
    WARPGROUP_WAIT,
    `for (int loom_e = 0; loom_e < ${accumulator.shape.n / 2}; loom_e++) ${fragment}[loom_e] = ${value};`,
  ];
}

/** A run of products: fenced, issued, committed as one group and waited for. */
export function warpgroupMultiply(
  shape: Fragment['shape'],
  as: readonly PrintedTile[],
  bs: readonly PrintedTile[],
  products: readonly PrintedProduct[],
  use: (helper: { readonly name: string; readonly definition: string }) => void,
): string[] {
  use(DESCRIPTOR);
  // a (m x k): its core matrices' lines along k ('row') is wgmma's plain a; b (k x n): lines along n ('row') is b transposed
  const descriptor = (t: PrintedTile, side: 'a' | 'b') => {
    if (t.swizzle) {
      use(SWIZZLED_DESCRIPTOR);
      // along k (a's 'row', b's 'col') the hardware steps through the line itself: the leading offset is unused
      const kMajor = (side === 'a') === (t.layout === 'row');
      const leading = kMajor ? 16 : bytesOf(t) * t.swizzle.blocks;
      return `loom_wgmma_descriptor_swizzled(${t.pointer}, ${leading}, ${8 * t.swizzle.span}, ${SWIZZLE_MODES[t.swizzle.span]})`;
    }
    const cores = t.cores!;
    const [alongK, across] = side === 'a' ? [cores.columns, cores.rows] : [cores.rows, cores.columns];
    return `loom_wgmma_descriptor(${t.pointer}, ${bytesOf(t) * alongK}, ${bytesOf(t) * across})`;
  };
  const lines = ['{', '  asm volatile("wgmma.fence.sync.aligned;\\n" ::: "memory");'];
  for (const { fragment, a, b } of products) {
    const [ta, tb] = [as[a], bs[b]];
    const helper = productHelper(shape, ta.type, ta.layout === 'row' ? 0 : 1, tb.layout === 'row' ? 1 : 0);
    use(helper);
    lines.push(`  ${helper.name}(${fragment}, ${descriptor(ta, 'a')}, ${descriptor(tb, 'b')});`);
  }
  // left in flight: waited for at the next barrier, fill or store (factorsFence, warpgroupFill, warpgroupStore)
  lines.push('  asm volatile("wgmma.commit_group.sync.aligned;\\n" ::: "memory");', '}');
  return lines;
}

/** The conversion of a float into a narrower element type that a store rounds to. */
const ROUNDING: Record<string, string> = { __half: '__float2half_rn', __nv_bfloat16: '__float2bfloat16_rn' };

/**
 * Two neighbours of a row as one value of the pair type, rounded as `ROUNDING` rounds one (the
 * pair type, and the expression making it from two floats).
 */
const PAIRS: Record<string, { type: string; make: string }> = {
  float: { type: 'float2', make: 'make_float2' },
  __half: { type: '__half2', make: '__floats2half2_rn' },
  __nv_bfloat16: { type: '__nv_bfloat162', make: '__floats2bfloat162_rn' },
};

/**
 * An accumulator stored into tile `c`, each work-item its own elements: a row's two neighbouring
 * columns at once (a `float2`) where every such pair is aligned (`PrintedTile.evenPairs`), which
 * halves the stores and fills each 32-byte sector of a row with one of them.
 */
export function warpgroupStore(fragment: string, c: PrintedTile, accumulator: Fragment): string[] {
  // floats stored into halves or bfloat16s are rounded to nearest, even (WGMMA_SHAPES' storedAs)
  const round = ROUNDING[c.type];
  const value = (e: string) => (round ? `${round}(${e})` : e);
  const at = (r: string, col: string) =>
    c.layout === 'row' ? `${r} * ${c.leading} + ${col}` : `${r} + ${col} * ${c.leading}`;
  const pair = c.layout === 'row' && c.evenPairs ? PAIRS[c.type] : undefined;
  const stores = pair
    ? [
        '    for (int loom_h = 0; loom_h < 2; loom_h++)',
        `      *(${pair.type} *) &loom_c[${at('(loom_row + 8 * loom_h)', '(8 * loom_j + loom_col)')}] = ${pair.make}(${fragment}[4 * loom_j + 2 * loom_h], ${fragment}[4 * loom_j + 2 * loom_h + 1]);`,
      ]
    : [
        '    for (int loom_e = 0; loom_e < 4; loom_e++)',
        `      loom_c[${at('(loom_row + 8 * (loom_e / 2))', '(8 * loom_j + loom_col + loom_e % 2)')}] = ${value(`${fragment}[4 * loom_j + loom_e]`)};`,
      ];
  return [
    '{',
    `  ${WARPGROUP_WAIT}`,
    `  int const loom_t = (int) threadIdx.x % ${WARPGROUP};`,
    '  int const loom_row = 16 * (loom_t / 32) + loom_t % 32 / 4, loom_col = 2 * (loom_t % 4);',
    `  ${c.type} *loom_c = ${c.pointer};`,
    `  for (int loom_j = 0; loom_j < ${accumulator.shape.n / 8}; loom_j++)`,
    ...stores,
    '}',
  ];
}
