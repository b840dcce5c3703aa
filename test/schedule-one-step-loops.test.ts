/**
 * A loop of one step: k split by its own extent (0 <= k_outer < 1), as a tiled product does
 * where k equals the tile. The fetch of a panel starts at 0 then (its box does not move with
 * k_outer) but is still clipped in k_outer (`8*k_outer <= x_dim_0`), so its loops can only be
 * entered inside k_outer: the fetch runs there, as it does for more steps, and is scheduled
 * with the same barriers (a store outside k_outer had no valid order of loops at all). Each
 * kernel is checked against plain JavaScript on every device, and its code against the one of
 * two steps.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addDtypes,
  addPrefetch,
  generateCode,
  LinearizationError,
  makeKernel,
  pipelinePrefetch,
  prioritizeLoops,
  run,
  splitIname,
  tagInames,
  type LoopKernel,
} from '@loom/core';
import { openclTarget } from '@loom/codegen-opencl';
import { randomFloat32, testDevices } from './support/devices.ts';

/** The smallest: s = sum(k, a[k]), k split by `tile`, a's tile fetched into private memory. */
function sumInTiles(length: number, tile: number): LoopKernel {
  const knl = splitIname(
    makeKernel(`{ [k]: 0 <= k < ${length} }`, 's = sum(k, a[k])', undefined, { name: 'sum_tiles' }),
    'k',
    tile,
  );
  return addDtypes(addPrefetch(knl, 'a', ['k_inner']), { a: 'float32' });
}

/**
 * y[i] = sum(k, m[i, k]*x[k]) on one work-group of 16: x staged in local memory a tile at a
 * time, each work-item fetching its share; with `lanes`, the fetch goes through a second,
 * private fetch of `lanes` values a work-item (the float4 staging of examples/matmul.ts).
 * With `pipelined`, the tile's loads are issued a step ahead (pipelinePrefetch).
 */
function matvecInTiles(
  length: number,
  tile: number,
  options: { lanes?: number; pipelined?: boolean } = {},
): LoopKernel {
  let knl = makeKernel(`{ [i, k]: 0 <= i < 16 and 0 <= k < ${length} }`, 'y[i] = sum(k, m[i, k]*x[k])', undefined, {
    name: 'matvec_tiles',
  });
  knl = tagInames(splitIname(knl, 'k', tile), { i: 'l.0' });
  knl = addPrefetch(knl, 'x', ['k_inner'], { temporaryAddressSpace: 'local' });
  if (options.lanes) {
    knl = splitIname(knl, 'x_dim_0', options.lanes, { outerTag: 'l.0', innerTag: 'unr' });
    knl = addPrefetch(knl, 'x', ['x_dim_0_inner'], {
      temporaryAddressSpace: 'private',
      temporaryName: 'x_lanes',
      dimArgNames: ['x_lane'],
    });
    knl = prioritizeLoops(knl, 'k_outer,x_lane');
  } else knl = tagInames(knl, { x_dim_0: 'l.0' });
  if (options.pipelined) knl = pipelinePrefetch(knl, 'reads:x', 'k_outer');
  return addDtypes(knl, { m: 'float32', x: 'float32' });
}

const withinOf = (knl: LoopKernel, id: string) => knl.instruction(id).withinInames;
const openclCode = (knl: LoopKernel) => generateCode(knl, openclTarget()).code;
/** The code's loops, barriers and what each statement writes, in order: the shape of the schedule. */
const scheduleShape = (code: string) =>
  code
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => /^(for|barrier|x_fetch|acc|y\[|a_fetch|s\[|[{}])/.test(l))
    .map((l) => (l.startsWith('for') ? l.replace(/ = .*/, '') : l.split(/[\s[(=]/)[0]));

test('a fetch over a loop of one step runs inside that loop, as over more steps', () => {
  for (const knl of [sumInTiles(8, 8), sumInTiles(16, 8)])
    assert.ok(withinOf(knl, 'a_fetch_rule').includes('k_outer'), withinOf(knl, 'a_fetch_rule').join(', '));
  // the second, private fetch (x_fetch_rule_0) runs in the first one's other inames, bounded in k_outer too
  for (const knl of [matvecInTiles(16, 16, { lanes: 4 }), matvecInTiles(32, 16, { lanes: 4 })])
    assert.ok(withinOf(knl, 'x_fetch_rule_0').includes('k_outer'));
});

test('one step is scheduled as two are: the fetch, a barrier, the product, a barrier', () => {
  const one = openclCode(matvecInTiles(16, 16));
  const two = openclCode(matvecInTiles(32, 16));
  assert.equal(scheduleShape(one), scheduleShape(two));
  assert.match(
    one,
    /for \(int k_outer = 0; k_outer <= 0; \+\+k_outer\)\n\s*\{\n\s*x_fetch\[lid\(0\)\] = x\[lid\(0\)\];\n\s*barrier\(CLK_LOCAL_MEM_FENCE\)/,
  );
  assert.equal(one.match(/barrier\(/g)?.length, 2);
  assert.equal(scheduleShape(openclCode(sumInTiles(8, 8))), scheduleShape(openclCode(sumInTiles(16, 8))));
});

test('pipelined over a loop of one step: the first step is loaded before the loop, and no next step', () => {
  const knl = matvecInTiles(16, 16, { pipelined: true });
  assert.equal(
    knl.instructions.map((i) => i.id).filter((id) => id.startsWith('x_fetch_rule')),
    ['x_fetch_rule_first', 'x_fetch_rule'],
  );
  const code = openclCode(knl);
  assert.ok(code.indexOf('x_fetch_next = x[lid(0)];') < code.indexOf('for (int k_outer'), code);
  assert.equal(code.match(/barrier\(/g)?.length, 2);
});

test('an instruction in a loop bounded by a loop it is not inside: the error names both', () => {
  const knl = makeKernel(
    ['{ [k]: 0 <= k < 4 }', '[k] -> { [j]: 0 <= j <= k }'],
    ['out[j] = 1 {id=w, inames=j}', 'x[k] = 2 {id=v}'],
    undefined,
    { name: 'outside_bounds' },
  );
  assert.throws(
    () => generateCode(knl, openclTarget()),
    (e: unknown) =>
      e instanceof LinearizationError &&
      (e as Error).message.includes(
        "kernel 'outside_bounds': no valid order: instruction 'w' runs in loop 'j', whose bounds depend on loop 'k' ([k] -> { [j] : 0 <= j <= k }), but 'w' is not inside 'k'",
      ),
  );
});

for (const device of testDevices()) {
  test(`${device.name}: one step of k (k equal to the tile) equals plain JavaScript: private and local fetches, through lanes, pipelined`, async () => {
    for (const [length, tile] of [
      [8, 8],
      [16, 8],
    ]) {
      const a = randomFloat32(length, 1);
      const { s } = await run(sumInTiles(length, tile), device, { a });
      const expected = a.reduce((acc, v) => acc + v, 0);
      assert.ok(
        Math.abs((s as Float32Array)[0] - expected) <= 1e-5 * length,
        `sum of ${length} in tiles of ${tile}: ${(s as Float32Array)[0]}, expected ${expected}`,
      );
    }
    for (const [length, options] of [
      [16, {}],
      [16, { lanes: 4 }],
      [16, { pipelined: true }],
      [16, { lanes: 4, pipelined: true }],
      [32, { lanes: 4, pipelined: true }],
    ] as const) {
      const m = randomFloat32(16 * length, 2);
      const x = randomFloat32(length, 3);
      const { y } = await run(matvecInTiles(length, 16, options), device, { m, x });
      for (let i = 0; i < 16; i++) {
        let expected = 0;
        for (let k = 0; k < length; k++) expected += m[i * length + k] * x[k];
        assert.ok(
          Math.abs((y as Float32Array)[i] - expected) <= 1e-5 * length,
          `${length} ${JSON.stringify(options)}: y[${i}] = ${(y as Float32Array)[i]}, expected ${expected}`,
        );
      }
    }
  });
}

test.run();
