/**
 * Tensor tiles (`tensorize`) on the CPU device: each matrix instruction written out as the loops
 * it stands for, so that the reference device runs a tensorized kernel and checks what the
 * targets with tensor cores compute. Every work-item of a subgroup computes the whole tile (they
 * run one after another here), and writes the same values. Products of factors are exact, as a
 * tensor core's are (halves or bfloat16s, or floats rounded to TF32 by `loom.toTf32`, or truncated to it by
 * `loom.truncateToTf32` where the instruction reads them so), and each sum is rounded
 * to the accumulator's dtype, one product at a time along k.
 */
import { byteSize, type DType, type MatrixOp, type MatrixOperand, unreachable } from '@loom/core';
import { jsName } from './names.ts';

/** How the printer spells what a matrix instruction needs: an integer expression, and its lines. */
export interface MatrixPrinting {
  readonly integer: (e: MatrixOperand['offset']) => string;
  readonly line: (text: string) => void;
}

/** The number a fill's literal stands for. */
function literal(e: MatrixOperand['offset']): number {
  if (e.kind === 'int' || e.kind === 'float') return e.value;
  throw new Error(`a matrix fill of ${e.kind}`);
}

/** A sum rounded to the accumulator's dtype. */
function rounded(dtype: DType, value: string): string {
  if (dtype === 'float16') return `loom.toHalf(${value})`;
  if (dtype === 'bfloat16') return `loom.toBf16(${value})`;
  return dtype === 'float32' ? `Math.fround(${value})` : value;
}

/** An element read from memory as a number: a float16 or bfloat16 array holds bits. */
function valueOf(dtype: DType, read: string): string {
  if (dtype === 'float16') return `loom.halfValue(${read})`;
  if (dtype === 'bfloat16') return `loom.bf16Value(${read})`;
  return read;
}

/** A number as what an array of `dtype` holds (its bits, for float16 and bfloat16). */
function bitsOf(dtype: DType, value: string): string {
  if (dtype === 'float16') return `loom.halfBits(${value})`;
  if (dtype === 'bfloat16') return `loom.bf16Bits(${value})`;
  return value;
}

/** Element (r, c) of a tile in memory, as a number. */
function element(
  t: MatrixOperand,
  offset: string,
  r: string,
  c: string,
  precision: 'tf32' | undefined,
  truncates = false,
): string {
  const at = t.swizzle
    ? swizzled(t, offset, t.layout === 'row' ? r : c, t.layout === 'row' ? c : r)
    : t.cores
      ? `${offset} + ${t.cores.rows} * (${r} >> 3) + ${t.cores.columns} * (${c} >> 3) + ${t.layout === 'row' ? `8 * (${r} & 7) + (${c} & 7)` : `(${r} & 7) + 8 * (${c} & 7)`}`
      : t.layout === 'row'
        ? `${offset} + ${r} * ${t.leading} + ${c}`
        : `${offset} + ${r} + ${c} * ${t.leading}`;
  const value = valueOf(t.dtype, `${jsName(t.array)}[${at}]`);
  if (precision !== 'tf32') return value;
  return truncates ? `loom.truncateToTf32(${value})` : `loom.toTf32(${value})`;
}

/**
 * Where element (line, along) of a swizzled tile lies (`MatrixOperand.swizzle`): its place in lines of
 * `leading` elements, blocks of them `blocks` apart, then swizzled as every access of the array is
 * (core's swizzle.ts, its floor divisions as shifts of a non-negative index).
 */
function swizzled(t: MatrixOperand, offset: string, line: string, along: string): string {
  const { span, blocks } = t.swizzle!;
  const bytes = byteSize(t.dtype);
  const index = `(${offset} + ${t.leading} * ${line} + (${along}) % ${t.leading} + ${blocks} * Math.floor((${along}) / ${t.leading}))`;
  return `${index} ^ (((${index} >> ${Math.log2(128 / bytes)}) & ${span / 16 - 1}) << ${Math.log2(16 / bytes)})`;
}

/** The lines of one matrix instruction, as loops over its tile. */
export function printMatrixLoops(op: MatrixOp, out: MatrixPrinting): void {
  const { m, n, k } = op.accumulator.shape;
  const acc = jsName(op.accumulator.name);
  const base = `(${out.integer(op.accumulator.index)}) * ${m * n}`;
  switch (op.kind) {
    case 'fill':
      // a constant (matrix-tiles.ts takes no other fill)
      out.line(
        `for (let e = 0; e < ${m * n}; e++) ${acc}[${base} + e] = ${rounded(op.accumulator.dtype, String(literal(op.value)))};`,
      );
      return;
    case 'multiply': {
      const a = out.integer(op.a.offset);
      const b = out.integer(op.b.offset);
      out.line(`for (let r = 0; r < ${m}; r++)`);
      out.line(`  for (let c = 0; c < ${n}; c++) {`);
      out.line(`    let s = ${acc}[${base} + r * ${n} + c];`);
      out.line(`    for (let q = 0; q < ${k}; q++)`);
      const [x, y] = [
        element(op.a, a, 'r', 'q', op.precision, op.truncates),
        element(op.b, b, 'q', 'c', op.precision, op.truncates),
      ];
      const product = `${x} * ${y}`;
      out.line(`      s = ${rounded(op.accumulator.dtype, `s + ${product}`)};`);
      out.line(`    ${acc}[${base} + r * ${n} + c] = s;`);
      out.line('  }');
      return;
    }
    case 'store': {
      const c = op.c;
      const offset = out.integer(c.offset);
      const at = c.layout === 'row' ? `${offset} + r * ${c.leading} + col` : `${offset} + r + col * ${c.leading}`;
      const value = `${acc}[${base} + r * ${n} + col]`;
      const stored = bitsOf(c.dtype, value);
      out.line(`for (let r = 0; r < ${m}; r++)`);
      out.line(`  for (let col = 0; col < ${n}; col++) ${jsName(c.array)}[${at}] = ${stored};`);
      return;
    }
    default:
      unreachable(op, 'matrix instruction');
  }
}
