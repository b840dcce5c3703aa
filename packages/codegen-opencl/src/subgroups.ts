/**
 * OpenCL C's two spellings of subgroup functions: the built-ins of `cl_khr_subgroups` (and
 * `cl_khr_subgroup_shuffle` for shuffles) where the device has the extension, and, on NVIDIA's
 * OpenCL, which has neither, the warp's PTX shuffles as inline assembly (`shfl.sync`), from
 * which the C printer builds the reductions and scans (@loom/codegen-cfamily's subgroups.ts).
 */
import { InternalError, type DType, type SubgroupFunctionName } from '@loom/core';
import type { ShuffleMode, SubgroupSpelling } from '@loom/codegen-cfamily';

/** The built-in of each value function of cl_khr_subgroups (and cl_khr_subgroup_shuffle). */
const KHR_BUILTINS: Readonly<Record<SubgroupFunctionName, string>> = {
  subgroupAdd: 'sub_group_reduce_add',
  subgroupMin: 'sub_group_reduce_min',
  subgroupMax: 'sub_group_reduce_max',
  subgroupInclusiveAdd: 'sub_group_scan_inclusive_add',
  subgroupExclusiveAdd: 'sub_group_scan_exclusive_add',
  subgroupShuffle: 'sub_group_shuffle',
  subgroupShuffleXor: 'sub_group_shuffle_xor',
  subgroupBroadcast: 'sub_group_broadcast',
  subgroupLocalId: 'get_sub_group_local_id',
  subgroupSize: 'get_sub_group_size',
  subgroupId: 'get_sub_group_id',
};

/** cl_khr_subgroups' built-ins: lanes and ids are uint there, int in Loom. */
export const KHR_SUBGROUPS: SubgroupSpelling = {
  kind: 'builtins',
  call: (fn, args) => {
    const name = KHR_BUILTINS[fn];
    if (args.length === 0) return `((int) ${name}())`;
    if (args.length === 1) return `${name}(${args[0]})`;
    return `${name}(${args[0]}, (uint) (${args[1]}))`;
  },
  extensions: (fn) =>
    fn === 'subgroupShuffle' || fn === 'subgroupShuffleXor'
      ? ['cl_khr_subgroup_shuffle', 'cl_khr_subgroups']
      : ['cl_khr_subgroups'],
};

/** PTX's `c` operand per mode: the lane range of idx and bfly (31), the clamp of up (0). */
const PTX_CLAMP: Readonly<Record<ShuffleMode, string>> = { idx: '0x1f', bfly: '0x1f', up: '0x0' };

/** The reinterpretation of a value's bits as the unsigned word its shuffle moves (`as_uint`), and back. */
const PTX_BITS: Partial<Record<DType, { readonly word: 32 | 64; readonly back?: string; readonly to?: string }>> = {
  uint32: { word: 32 },
  int32: { word: 32, to: 'as_uint', back: 'as_int' },
  float32: { word: 32, to: 'as_uint', back: 'as_float' },
  uint64: { word: 64 },
  int64: { word: 64, to: 'as_ulong', back: 'as_long' },
  float64: { word: 64, to: 'as_ulong', back: 'as_double' },
};

/** NVIDIA's warp shuffles in inline PTX: 32 lanes of consecutive linear local ids, every one taking part. */
export const PTX_SUBGROUPS: SubgroupSpelling = {
  kind: 'shuffles',
  width: 32,
  linearLocalId:
    '((int) (get_local_id(0) + get_local_size(0) * (get_local_id(1) + get_local_size(1) * get_local_id(2))))',
  shuffle: (mode, t, value, arg) => {
    const bits = PTX_BITS[t];
    if (!bits) throw new InternalError(`no PTX shuffle of ${t} (core refuses it first)`);
    const word32 = `loom_shfl_${mode}_b32`;
    const helpers: [string, string][] = [
      [
        word32,
        [
          `inline uint ${word32}(uint x, int a)`,
          '{',
          '  uint r;',
          `  asm volatile ("shfl.sync.${mode}.b32 %0, %1, %2, ${PTX_CLAMP[mode]}, 0xffffffff;" : "=r"(r) : "r"(x), "r"(a));`,
          '  return r;',
          '}',
        ].join('\n'),
      ],
    ];
    let fn = word32;
    if (bits.word === 64) {
      fn = `loom_shfl_${mode}_b64`;
      // the two halves moved one after the other, put back together with upsample(hi, lo)
      helpers.push([
        fn,
        [
          `inline ulong ${fn}(ulong x, int a)`,
          '{',
          `  return upsample(${word32}((uint) (x >> 32), a), ${word32}((uint) x, a));`,
          '}',
        ].join('\n'),
      ]);
    }
    const moved = `${fn}(${bits.to ? `${bits.to}(${value})` : value}, ${arg})`;
    return { text: bits.back ? `${bits.back}(${moved})` : moved, helpers };
  },
};
