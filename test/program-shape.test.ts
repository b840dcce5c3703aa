/**
 * programShape: a program's kernels with their parameters, grids and declarations but no
 * statements, what the device's limits and autoSchedule's cost model read. It must agree with
 * buildProgram on all of those, for kernels with local and private temporaries and for
 * programs split at global barriers, and the limits must refuse the same kernels through it.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addDtypes,
  addPrefetch,
  buildProgram,
  checkProgramLimits,
  COMMON_LIMITS,
  LoomError,
  makeKernel,
  programShape,
  splitIname,
  fixParameters,
  type KernelFunction,
} from '@loom/core';
import { openclTarget } from '@loom/codegen-opencl';

/** A tiled matmul with both panels in local memory and a private accumulator. */
function tiledMatmul(tile: number) {
  let knl = makeKernel('{ [i,j,k]: 0<=i,j,k<n }', 'c[i, j] = sum(k, a[i, k]*b[k, j])');
  knl = fixParameters(addDtypes(knl, { a: 'float32', b: 'float32' }), { n: 256 });
  knl = splitIname(knl, 'i', tile, { outerTag: 'g.1', innerTag: 'l.1' });
  knl = splitIname(knl, 'j', tile, { outerTag: 'g.0', innerTag: 'l.0' });
  knl = splitIname(knl, 'k', tile);
  knl = addPrefetch(knl, 'a', ['i_inner', 'k_inner'], { defaultTag: 'l.auto' });
  return addPrefetch(knl, 'b', ['k_inner', 'j_inner'], { defaultTag: 'l.auto' });
}

/** A kernel's top-level statements, and the declarations among them. */
const topLevel = (k: KernelFunction) => (k.body.kind === 'block' ? k.body.body : [k.body]);
const declarations = (k: KernelFunction) => topLevel(k).filter((s) => s.kind === 'declare');

test('the shape of a tiled matmul: the grid, parameters and declarations buildProgram gives, no statements', () => {
  const knl = tiledMatmul(16);
  const full = buildProgram(knl, openclTarget());
  const shape = programShape(knl, openclTarget());
  assert.is(shape.kernels.length, full.kernels.length);
  for (const [k, kernel] of shape.kernels.entries()) {
    const built = full.kernels[k]!;
    assert.equal(kernel.localSize, built.localSize);
    assert.equal(kernel.groupCount, built.groupCount);
    assert.equal(kernel.params, built.params);
    assert.equal(declarations(kernel), declarations(built));
    assert.ok(declarations(kernel).length >= 3, 'the panels and the accumulator');
    assert.is(topLevel(kernel).length, declarations(kernel).length, 'declarations only');
    assert.ok(topLevel(built).length > declarations(built).length);
  }
});

test('a program split at a global barrier: one shape per device kernel', () => {
  let knl = makeKernel(
    '{ [i]: 0<=i<n }',
    ['tmp[i] = 2*a[i]  {id=first}', '... gbarrier {id=wait, dep=first}', 'out[i] = tmp[(i + 1) % n]  {dep=wait}'].join(
      '\n',
    ),
  );
  knl = splitIname(addDtypes(knl, { a: 'float32', tmp: 'float32' }), 'i', 64, { outerTag: 'g.0', innerTag: 'l.0' });
  const full = buildProgram(knl, openclTarget());
  const shape = programShape(knl, openclTarget());
  assert.is(full.kernels.length, 2);
  assert.equal(
    shape.kernels.map((k) => [k.name, k.localSize, k.groupCount]),
    full.kernels.map((k) => [k.name, k.localSize, k.groupCount]),
  );
});

test('the limits refuse through the shape what they refuse through the full build', () => {
  // 32 x 32 panels of a and b: 8 KiB of local memory, past a 4 KiB device
  const knl = tiledMatmul(32);
  const small = { ...COMMON_LIMITS, maxLocalMemoryBytes: 4096 };
  const refusal = (program: ReturnType<typeof buildProgram>) => {
    try {
      checkProgramLimits(program, small, 'a small device');
    } catch (e) {
      assert.instance(e, LoomError);
      return (e as Error).message;
    }
    return 'accepted';
  };
  const message = refusal(programShape(knl, openclTarget()));
  assert.match(message, /local/);
  assert.is(message, refusal(buildProgram(knl, openclTarget())));
});

test.run();
