/**
 * Type promotion against PyTorch's own answers: test/elementwise-promotion-table.json
 * was written by packages/elementwise/scripts/promotion-table.py with PyTorch 2.11 on
 * the GPU machine. Every promotion method, over every pair (and single) of operands:
 * tensors, zero-dimensional tensors and Python scalars of every dtype.
 */
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  canCast,
  elementwiseDTypes,
  pointwise,
  PROMOTION_METHODS,
  promoteTypes,
  tensor,
  type PromotionOperand,
  type ScalarKind,
  type TensorDType,
} from '@loom/elementwise';

interface Table {
  readonly torch: string;
  readonly methods: readonly string[];
  readonly promotion: Record<string, Record<string, readonly string[]>>;
  readonly operators: Record<string, Record<string, Record<string, string> | string>>;
  readonly canCast: Record<string, Record<string, boolean>>;
}

const table = JSON.parse(readFileSync(new URL('./elementwise-promotion-table.json', import.meta.url), 'utf8')) as Table;

/** PyTorch refuses to promote these with other integer types; its operators are the reference for them. */
const BAREBONES = ['uint16', 'uint32', 'uint64'];

function operand(desc: string): PromotionOperand {
  const [kind, name] = desc.split(':');
  if (kind === 's') return { kind: 'scalar', type: name as ScalarKind };
  return { kind: 'tensor', dtype: name as TensorDType, ndim: kind === 't' ? 1 : 0 };
}

function ours(descs: readonly string[], method: (typeof PROMOTION_METHODS)[number]): string {
  try {
    const { computation, result } = elementwiseDTypes(descs.map(operand), method);
    return `${computation}/${result}`;
  } catch {
    return 'error';
  }
}

test('the table is PyTorch 2.x and lists the six methods in order', () => {
  assert.match(table.torch, /^2\./);
  assert.equal(table.methods, PROMOTION_METHODS);
});

test('every method over every operand pair matches torch._prims_common.elementwise_dtypes', () => {
  let compared = 0;
  const mismatches: string[] = [];
  for (const [a, row] of Object.entries(table.promotion)) {
    for (const [b, answers] of Object.entries(row)) {
      const descs = b === '' ? [a] : [a, b];
      if (descs.some((d) => BAREBONES.some((u) => d.endsWith(`:${u}`)))) continue;
      PROMOTION_METHODS.forEach((method, m) => {
        const expected = answers[m].startsWith('error') ? 'error' : answers[m];
        const got = ours(descs, method);
        compared++;
        if (got !== expected) mismatches.push(`${method}(${descs.join(', ')}): ${got}, PyTorch ${expected}`);
      });
    }
  }
  assert.ok(compared > 4000, `compared ${compared}`);
  assert.equal(mismatches.slice(0, 10), []);
});

test('uint16/32/64 promote as PyTorch operators do (torch.add, torch.eq): refused across integer types', () => {
  const mismatches: string[] = [];
  for (const [a, row] of Object.entries(table.operators)) {
    for (const [b, ops] of Object.entries(row)) {
      if (typeof ops === 'string' || ![a, b].some((d) => BAREBONES.some((u) => d.endsWith(`:${u}`)))) continue;
      const refused = ops.add.includes('Promotion for uint16');
      const got = ours([a, b], 'DEFAULT');
      if (refused !== (got === 'error')) mismatches.push(`add(${a}, ${b}): ${got}, PyTorch ${ops.add}`);
      if (!refused && !ops.add.startsWith('error') && got.split('/')[1] !== ops.add)
        mismatches.push(`add(${a}, ${b}): ${got}, PyTorch ${ops.add}`);
    }
  }
  assert.equal(mismatches.slice(0, 10), []);
});

test('the methods agree with the operators they stand for (add, sin, eq, abs, true_divide)', () => {
  const check = (desc: string[], method: (typeof PROMOTION_METHODS)[number], op: string) => {
    if (op.startsWith('error') || desc.some((d) => BAREBONES.some((u) => d.endsWith(`:${u}`)))) return;
    assert.is(ours(desc, method).split('/')[1], op, `${method}(${desc.join(', ')})`);
  };
  for (const [a, row] of Object.entries(table.operators)) {
    check([a], 'INT_TO_FLOAT', row.sin as string);
    check([a], 'COMPLEX_TO_FLOAT', row.abs as string);
    for (const [b, ops] of Object.entries(row)) {
      if (typeof ops === 'string') continue;
      check([a, b], 'DEFAULT', ops.add);
      check([a, b], 'ALWAYS_BOOL', ops.eq);
      check([a, b], 'INT_TO_FLOAT', ops.true_divide);
    }
  }
});

test('canCast is torch.can_cast (what an out= tensor may receive)', () => {
  for (const [from, row] of Object.entries(table.canCast)) {
    for (const [to, expected] of Object.entries(row))
      assert.is(canCast(from as TensorDType, to as TensorDType), expected, `${from} -> ${to}`);
  }
});

test('hand-written expectations: the cases PyTorch users meet first', () => {
  const t = (dtype: TensorDType, ndim = 1): PromotionOperand => ({ kind: 'tensor', dtype, ndim });
  const s = (type: ScalarKind): PromotionOperand => ({ kind: 'scalar', type });
  const dtypes = (ops: PromotionOperand[], method: (typeof PROMOTION_METHODS)[number] = 'DEFAULT') =>
    elementwiseDTypes(ops, method);
  assert.equal(dtypes([t('int32'), s('float')]), { computation: 'float32', result: 'float32' }); // int tensor + 2.5
  assert.equal(dtypes([t('int8'), t('uint8')]), { computation: 'int16', result: 'int16' });
  assert.equal(dtypes([t('bool'), s('int')]), { computation: 'int64', result: 'int64' });
  assert.equal(dtypes([t('bool'), t('int8')]), { computation: 'int8', result: 'int8' });
  assert.equal(dtypes([t('uint8'), s('int')]), { computation: 'uint8', result: 'uint8' }); // weak: no widening
  assert.equal(dtypes([t('float16'), s('float')]), { computation: 'float32', result: 'float16' }); // opmath
  assert.equal(dtypes([t('bfloat16'), s('float')]), { computation: 'float32', result: 'bfloat16' });
  assert.equal(dtypes([t('bfloat16'), t('float16')]), { computation: 'float32', result: 'float32' });
  assert.equal(dtypes([t('bfloat16'), s('complex')]), { computation: 'complex64', result: 'complex64' });
  assert.equal(dtypes([t('float16'), t('float32', 0)]), { computation: 'float32', result: 'float16' }); // 0-d loses
  assert.equal(dtypes([t('int32'), t('float64', 0)]), { computation: 'float64', result: 'float64' }); // 0-d raises the category
  assert.equal(dtypes([t('float64'), t('complex64')]), { computation: 'complex128', result: 'complex128' });
  assert.equal(dtypes([t('int32')], 'INT_TO_FLOAT'), { computation: 'float32', result: 'float32' });
  assert.equal(dtypes([t('complex64')], 'COMPLEX_TO_FLOAT'), { computation: 'complex64', result: 'float32' });
  assert.equal(dtypes([t('bool'), t('bool')], 'BOOL_TO_LONG'), { computation: 'int64', result: 'int64' });
  assert.equal(dtypes([t('int16'), s('float')], 'ALWAYS_BOOL'), { computation: 'float32', result: 'bool' });
  assert.equal(dtypes([t('float16'), t('float16')], 'NO_OPMATH'), { computation: 'float16', result: 'float16' });
  assert.is(promoteTypes('uint8', 'int8'), 'int16');
  assert.throws(() => promoteTypes('uint16', 'int32'), /not supported/);
});

test('a call reports the promoted dtypes in its plan (tensors and weak scalars)', () => {
  const add = pointwise(
    { isTensor: [true, true, false], promotionMethods: [[0, 1, 'DEFAULT']] },
    '(x, y, alpha) => x + y * alpha',
  );
  const i32 = tensor([1, 2, 3], undefined, { dtype: 'int32' });
  const plan = add.plan(i32, 2.5, 2);
  assert.equal(plan.dtypes.outputs, ['float32']);
  assert.equal(plan.dtypes.inputs, ['float32', 'float32', 'float32']); // alpha takes the computation dtype
  assert.equal(add.plan(i32, 7, 2).dtypes.outputs, ['int32']);
  const i8 = tensor([1, 2, 3], undefined, { dtype: 'int8' });
  assert.equal(add.plan(i8, tensor(300, [], { dtype: 'int32' }), 1).dtypes.outputs, ['int8']); // a 0-d tensor does not widen
  // dtypes: 'float' makes a whole number a Python float
  const scaled = pointwise({ dtypes: [null, 'float'] }, '(x, s) => x * s');
  assert.equal(scaled.plan(i32, 2).dtypes.outputs, ['float32']);
});

test.run();
