/**
 * Reikna's structure type (tests/test_algorithms/test_reduce.py::test_structure_type and
 * test_scan.py::test_scan_structure_type), its values and the fieldwise sums that Reikna's
 * predicate computes, in plain JS: uint32 sums wrap at 2^32 and uint64 sums at 2^64, as the
 * C code does. A 32-bit twin (the nested field a uint32) runs where uint64 cannot (WebGPU).
 */
import { structDType, type StructDType } from '@loom/core';

/** `{ i1: uint32, nested: { v: uint64 (or uint32) }, i2: uint32 }`, aligned as grunnur's dtypes.align does. */
export function structureType(wide: boolean): StructDType {
  const nested = structDType(wide ? 'nested64' : 'nested32', [['v', wide ? 'uint64' : 'uint32']]);
  return structDType(wide ? 'structure64' : 'structure32', [
    ['i1', 'uint32'],
    ['nested', nested],
    ['i2', 'uint32'],
  ]);
}

/** One element of the structure type, its fields as the host gives and reads them. */
// a type, not an interface: packStructs takes it as an object of fields (an index signature)
export type Structure = {
  readonly i1: number;
  readonly nested: { readonly v: bigint | number };
  readonly i2: number;
};

/** `n` elements with values across each field's range (a linear congruential sequence). */
export function structureValues(n: number, wide: boolean, seed = 1): Structure[] {
  let s = BigInt(seed);
  const next = () => {
    s = (s * 6364136223846793005n + 1442695040888963407n) & 0xffffffffffffffffn;
    return s;
  };
  return Array.from({ length: n }, () => ({
    i1: Number(next() >> 32n),
    nested: { v: wide ? next() : Number(next() >> 32n) },
    i2: Number(next() >> 40n),
  }));
}

/** The fieldwise sum of two structures, wrapping as C's unsigned arithmetic does. */
export function addStructures(a: Structure, b: Structure, wide: boolean): Structure {
  const v = wide
    ? (BigInt(a.nested.v) + BigInt(b.nested.v)) & 0xffffffffffffffffn
    : (Number(a.nested.v) + Number(b.nested.v)) >>> 0;
  return { i1: (a.i1 + b.i1) >>> 0, nested: { v }, i2: (a.i2 + b.i2) >>> 0 };
}

/** The empty structure: every field 0. */
export const zeroStructure = (wide: boolean): Structure => ({ i1: 0, nested: { v: wide ? 0n : 0 }, i2: 0 });
