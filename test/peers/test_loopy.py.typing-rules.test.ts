/**
 * Ports of loopy's test/test_loopy.py tests of typing and tags (issue 27, "Typing, rules,
 * tags"): float literals sized as loopy sizes them, a read-modify-write typed from its
 * right-hand side, `unr_hint`. Names are the originals'; the ones that run do so on every
 * test device, against plain JavaScript.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { addDtypes, fixParameters, inferUnknownTypes, makeKernel, run, splitIname } from '@loom/core';
import { preprocess } from '../../packages/core/src/preprocess/pipeline.ts';
import { randomFloat32, testDevices } from '../support/devices.ts';

test('test_type_inference_with_type_dependencies', () => {
  const knl = inferUnknownTypes(
    makeKernel(
      '{[i]: i=0}',
      `
      <>a = 99
      a = a + 1
      <>b = 0
      <>c = 1
      b = b + c + 1.0
      c = b + c
      <>d = b + 2 + 1j
      `,
      ['...'],
    ),
  );
  const dtype = (name: string) => knl.temporaries.get(name)!.dtype;
  assert.is(dtype('a'), 'int32');
  // 1.0 is float32 (float32 holds it exactly), and int32 meets float32 in float32
  assert.is(dtype('b'), 'float32');
  assert.is(dtype('c'), 'float32');
  // loopy's 1j is a complex128 value; Loom's is weak, as a Python complex is (1jd is loopy's): README
  assert.is(dtype('d'), 'complex64');
  // a float literal float32 cannot hold exactly is float64, as in loopy
  assert.is(inferUnknownTypes(makeKernel('{[i]: i=0}', '<>e = i + 0.1')).temporaries.get('e')!.dtype, 'float64');
});

/** loopy's kernel of issue 231: two sums into one untyped output, under a condition. */
function depsFromConditionals() {
  return makeKernel(
    '{[i]: 0<=i<n}',
    `
    <> icontaining_tgt_box = 1 {id=flagset}
    if icontaining_tgt_box == 1
        result = result + simul_reduce(sum, i, i*i)
        result = result + simul_reduce(sum, i, 2*i*i)
    end
    `,
    undefined,
    { name: 'lpy_knl' },
  );
}

test('test_deps_from_conditionals', () => {
  const pp = preprocess(depsFromConditionals());
  const inits = pp.instructions.filter((insn) => insn.id.includes('init'));
  assert.ok(inits.length === 2, 'both accumulators are initialized');
  // accumulator initializers have no dependencies and did not inherit the predicates
  for (const insn of inits) {
    assert.equal(insn.dependsOn, [], insn.id);
    assert.equal(insn.predicates, [], insn.id);
  }
  // result is typed from its right-hand side: the sums of int32 values
  assert.is(pp.arg('result')!.dtype, 'int32');
});

for (const device of testDevices()) {
  test(`${device.name}: test_deps_from_conditionals (run)`, async () => {
    const n = 37;
    let expected = 5;
    for (let i = 0; i < n; i++) expected += i * i;
    for (let i = 0; i < n; i++) expected += 2 * i * i;
    const { result } = await run(depsFromConditionals(), device, { n, result: Int32Array.of(5) });
    assert.equal(Array.from(result as Int32Array), [expected]);
  });

  for (const unrTag of ['unr', 'unr_hint']) {
    test(`${device.name}: test_unr_and_conditionals[${unrTag}]`, async () => {
      let knl = makeKernel(
        '{[k]: 0<=k<n}',
        `
        for k
            <> Tcond[k] = T[k] < 0.5
            if Tcond[k]
                cp[k] = 2 * T[k] + Tcond[k]
            end
        end
        `,
      );
      knl = fixParameters(knl, { n: 200 });
      knl = addDtypes(knl, { T: 'float32' });
      knl = splitIname(knl, 'k', 2, { innerTag: unrTag });
      // values in [0, 1): about half below 0.5; cp where the condition fails keeps what was passed
      const T = randomFloat32(200, 5).map((x) => Math.abs(x) % 1);
      const before = new Float32Array(200).fill(-7);
      const { cp } = await run(knl, device, { T, cp: before.slice() });
      const expected = Float32Array.from(T, (t, k) => (t < 0.5 ? Math.fround(2 * t + 1) : before[k]));
      assert.equal(Array.from(cp as Float32Array), Array.from(expected));
    });
  }
}

test.run();
