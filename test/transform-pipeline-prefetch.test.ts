/**
 * pipelinePrefetch: a fetch's values for the next iteration of a sequential loop are loaded
 * into registers while this iteration computes. Checked on a tiled matrix-vector product (a
 * 1-D sum staged through local memory, whole tiles and a partial last tile, a fixed and a
 * runtime length) against plain JavaScript on every device, on the generated OpenCL C (the
 * loads of step k+1 before the product's loop, two barriers as before), and its errors.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addDtypes,
  addPrefetch,
  fixParameters,
  generateCode,
  LoomError,
  makeKernel,
  pipelinePrefetch,
  run,
  splitIname,
  tagInames,
  type LoopKernel,
} from '@loom/core';
import { kernel } from '@loom/dsl';
import { openclTarget } from '@loom/codegen-opencl';
import { randomFloat32, testDevices } from './support/devices.ts';
import { expectMatvec } from './support/staged-matvec.ts';

/** y[i] = sum(j, m[i, j]*x[j]): rows over the work-items, x staged in local memory `tile` at a time (its fetch on l.0, or in unrolled rounds of 16). */
function matvec(tile = 16): LoopKernel {
  let knl = makeKernel('{ [i, j]: 0 <= i < n and 0 <= j < k }', 'y[i] = sum(j, m[i, j]*x[j])', undefined, {
    name: 'matvec',
  });
  knl = splitIname(knl, 'i', 16, { outerTag: 'g.0', innerTag: 'l.0' });
  knl = splitIname(knl, 'j', tile);
  knl = addPrefetch(knl, 'x', ['j_inner'], { temporaryAddressSpace: 'local' });
  knl =
    tile === 16
      ? tagInames(knl, { x_dim_0: 'l.0' })
      : splitIname(knl, 'x_dim_0', 16, { outerTag: 'unr', innerTag: 'l.0' });
  return addDtypes(knl, { m: 'float32', x: 'float32' });
}

/** The tile of 64 fetched in 4 rounds of 16 (an unrolled loop: one register per round). */
const matvecInRounds = () => matvec(64);

function reference(m: Float32Array, x: Float32Array, n: number, k: number): Float64Array {
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) for (let j = 0; j < k; j++) y[i] += m[i * k + j] * x[j];
  return y;
}

const openclCode = (knl: LoopKernel) => generateCode(knl, openclTarget()).code;

for (const device of testDevices()) {
  test(`${device.name}: a pipelined fetch computes what the plain one does (whole tiles, a partial last tile, a runtime length, rounds)`, async () => {
    const cases: [string, LoopKernel, number, number][] = [
      ['whole tiles', fixParameters(pipelinePrefetch(matvec(), 'x_fetch_rule', 'j_outer'), { n: 32, k: 64 }), 32, 64],
      [
        'a partial last tile',
        fixParameters(pipelinePrefetch(matvec(), 'x_fetch_rule', 'j_outer'), { n: 32, k: 40 }),
        32,
        40,
      ],
      ['a runtime length', pipelinePrefetch(matvec(), 'x_fetch_rule', 'j_outer'), 48, 37],
      ['a single tile', pipelinePrefetch(matvec(), 'x_fetch_rule', 'j_outer'), 16, 5],
      [
        'rounds of 16',
        fixParameters(pipelinePrefetch(matvecInRounds(), 'x_fetch_rule', 'j_outer'), { n: 32, k: 200 }),
        32,
        200,
      ],
    ];
    for (const [what, knl, n, k] of cases) {
      await expectMatvec(device, what, knl, n, k, reference);
    }
  });
}

test('the loads of step j_outer + 1 go before the product of step j_outer, the first step before the loop, with the barriers as before', () => {
  const plain = fixParameters(matvec(), { n: 32, k: 64 });
  const code = openclCode(pipelinePrefetch(plain, 'x_fetch_rule', 'j_outer'));
  const loop = code.indexOf('for (int j_outer');
  const product = code.indexOf('for (int j_inner');
  // the first step's load into the register, before the loop
  const first = code.indexOf('x_fetch_next = x[lid(0)];');
  assert.ok(first >= 0 && first < loop, code);
  // in the loop: the register to local memory, then the next step's load (guarded: there is one), then the product
  const store = code.indexOf('x_fetch[lid(0)] = x_fetch_next;');
  const guard = code.indexOf('if (j_outer <= 2)');
  const next = code.indexOf('x_fetch_next = x[16 * j_outer + lid(0) + 16];');
  assert.ok(loop < store && store < guard && guard < next && next < product, code);
  // the same two barriers as without pipelining (after the store, and before the next store)
  assert.is((code.match(/barrier\(/g) ?? []).length, 2);
  assert.is((openclCode(plain).match(/barrier\(/g) ?? []).length, 2);
  assert.match(code, 'float x_fetch_next;');
  assert.not.match(code, '__local float x_fetch_next');
});

/** y[i] = sum(j, m[i, j]*x[j]) with x[j] fetched into a private scalar at each step of j (a fetch with no loop of its own). */
function matvecScalarFetch(length: string): LoopKernel {
  let knl = makeKernel(`{ [i, j]: 0 <= i < 16 and ${length} }`, 'y[i] = sum(j, m[i, j]*x[j])', undefined, {
    name: 'matvec_scalar',
  });
  knl = addPrefetch(tagInames(knl, { i: 'l.0' }), 'x', [], { temporaryAddressSpace: 'private' });
  return addDtypes(pipelinePrefetch(knl, 'reads:x', 'j'), { m: 'float32', x: 'float32' });
}

for (const device of testDevices()) {
  test(`${device.name}: a fetch with no loop of its own: the next step's load is guarded by the loop's bounds`, async () => {
    for (const [length, n, k] of [
      ['0 <= j < 5', 16, 5],
      ['0 <= j < k', 16, 7],
      ['0 <= j < 1', 16, 1],
    ] as const) {
      const knl = matvecScalarFetch(length);
      const m = randomFloat32(n * k, 7);
      const x = randomFloat32(k, 8);
      const expected = reference(m, x, n, k);
      const { y } = await run(knl, device, { m, x, ...(knl.arg('k') ? { k } : {}) });
      for (let i = 0; i < n; i++)
        assert.ok(
          Math.abs((y as Float32Array)[i] - expected[i]) <= 1e-5 * k,
          `${length}: y[${i}] = ${(y as Float32Array)[i]}, expected ${expected[i]}`,
        );
    }
  });
}

test("a fetch with no loop of its own: the load of step j + 1 runs only where there is one (x's last element is x[4])", () => {
  const code = openclCode(matvecScalarFetch('0 <= j < 5'));
  assert.match(code, /if \(-j \+ 3 >= 0\)\n\s*x_fetch_next = x\[j \+ 1\];/);
  // one step: no next step at all
  assert.not.match(openclCode(matvecScalarFetch('0 <= j < 1')), 'x[j + 1]');
});

test('a fetch in unrolled rounds: one register per round, loaded and stored unrolled', () => {
  const code = openclCode(
    fixParameters(pipelinePrefetch(matvecInRounds(), 'x_fetch_rule', 'j_outer'), { n: 32, k: 256 }),
  );
  assert.match(code, 'float x_fetch_next[4];');
  for (const round of [0, 1, 2, 3]) {
    const offset = round === 0 ? '' : ` + ${16 * round}`;
    assert.match(code, `x_fetch[lid(0)${offset}] = x_fetch_next[${round}];`);
    assert.match(code, `x_fetch_next[${round}] = x[64 * j_outer + lid(0) + ${16 * round + 64}];`);
  }
});

test('the kernel it returns is new; the one it was given is unchanged', () => {
  const plain = matvec();
  const before = plain.toString();
  const piped = pipelinePrefetch(plain, 'writes:x_fetch', 'j_outer', { temporaryName: 'x_regs' });
  assert.is(plain.toString(), before);
  assert.ok(piped.temporaries.get('x_regs')?.addressSpace === 'private');
  assert.equal(
    piped.instructions.map((i) => i.id),
    ['x_fetch_rule_first', 'x_fetch_rule', 'x_fetch_rule_next', 'insn'],
  );
});

test('the builder verb is the same transformation', () => {
  const built = kernel('{ [i, j]: 0 <= i < n and 0 <= j < k }', 'y[i] = sum(j, m[i, j]*x[j])', { name: 'matvec' })
    .split('i', 16, { outer: 'g.0', inner: 'l.0' })
    .split('j', 16)
    .prefetch('x', ['j_inner'], { space: 'local' })
    .tag({ x_dim_0: 'l.0' })
    .pipelinePrefetch('x_fetch_rule', 'j_outer')
    .dtypes({ m: 'float32', x: 'float32' }).kernel;
  assert.is(openclCode(built), openclCode(pipelinePrefetch(matvec(), 'x_fetch_rule', 'j_outer')));
});

test('what it cannot pipeline is a LoomError saying why', () => {
  const knl = matvec();
  const fails = (f: () => unknown, message: RegExp) =>
    assert.throws(
      f,
      (e: unknown) => e instanceof LoomError && message.test((e as Error).message),
      `expected ${message}`,
    );
  fails(() => pipelinePrefetch(knl, 'x_fetch_rule', 'nope'), /unknown iname 'nope'/);
  fails(() => pipelinePrefetch(knl, 'x_fetch_rule', 'i_inner'), /'i_inner' is tagged local; only a sequential loop/);
  fails(() => pipelinePrefetch(tagInames(knl, { j_outer: 'unr' }), 'x_fetch_rule', 'j_outer'), /tagged unroll/);
  fails(() => pipelinePrefetch(knl, 'no_such_insn', 'j_outer'), /matches no instruction/);
  fails(() => pipelinePrefetch(knl, 'x_fetch_rule', 'j_inner'), /does not run in loop 'j_inner'/);
  fails(() => pipelinePrefetch(knl, 'x_fetch_rule', 'j_outer', { temporaryName: 'a b' }), /temporaryName/);
  fails(
    () => pipelinePrefetch(knl, 'x_fetch_rule', 'j_outer', { temporaryName: 'x_fetch' }),
    /temporaryName: the name 'x_fetch' is already used/,
  );
  // a reduction is no load
  fails(() => pipelinePrefetch(knl, 'insn', 'j_outer'), /does not run in loop 'j_outer'|contains a reduction/);
  // the next step's value would be read before this step writes it
  const written = makeKernel(
    '{ [t, s]: 0 <= t < 8 and 0 <= s < 4 }',
    ['u[t + 1, s] = v[t, s] {id=stepper}', 'v[t + 1, s] = u[t + 1, s] + 1 {id=copy, dep=stepper}'],
    undefined,
    {
      name: 'recurrence',
    },
  );
  fails(() => pipelinePrefetch(written, 'stepper', 't'), /reads 'v', which 'copy' writes inside loop 't'/);
  // a first iteration that is the larger of two bounds
  const band = makeKernel(
    ['{ [r]: 0 <= r < 8 }', '[r] -> { [c]: r - 2 <= c < 8 and c >= 0 }'],
    'out[r, c] = a[c]',
    undefined,
    { name: 'band' },
  );
  fails(() => pipelinePrefetch(band, 'insn', 'c'), /loop 'c' has no single affine first value/);
  // registers need a fixed count
  const ragged = makeKernel('{ [t, s]: 0 <= t < 8 and 0 <= s < w }', 'out[t, s] = a[t, s]', undefined, {
    name: 'ragged',
  });
  fails(() => pipelinePrefetch(ragged, 'insn', 't'), /its loop 's' has no constant bounds/);
});

test.run();
