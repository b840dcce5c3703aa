/**
 * A temporary written in ILP or vec lanes (or an unrolled loop) and read after it in the same
 * lanes: each lane keeps its own value, whether the temporary is private or local (issue 24:
 * a local `a[i]` over `i: l.0, j: ilp` had one copy for all lanes, and 256 of 272 results
 * were the last lane's).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { collectWarnings, generateCode, globalArg, LoomError, makeKernel, run, tagInames } from '@loom/core';
import { jsTarget } from '@loom/codegen-js';
import { testDevices } from './support/devices.ts';

const NI = 16;
const NJ = 5;

/** What the kernel computes, in plain JS. */
function expected(): Float32Array {
  const b = new Float32Array(NI * NJ);
  for (let i = 0; i < NI; i++) for (let j = 0; j < NJ; j++) b[i * NJ + j] = 10 * i + j;
  return b;
}

for (const laneTag of ['ilp', 'ilp.seq', 'unr', 'vec']) {
  for (const space of ['local', 'private'] as const) {
    test(`a ${space} temporary written in '${laneTag}' lanes and read in them keeps each lane's value, on every device`, async () => {
      // j of extent 4 for vec (a float4 lane axis), 5 for the others
      const nj = laneTag === 'vec' ? 4 : NJ;
      // local: indexed by the l.0 iname; private: a scalar per work-item
      const [write, read] =
        space === 'local' ? ['<> a[i] = 10*i + j', 'b[i,j] = a[i]'] : ['<> a = 10*i + j', 'b[i,j] = a'];
      let knl = makeKernel(`{[i,j]: 0<=i<${NI} and 0<=j<${nj}}`, `${write}\n${read}`, [
        globalArg('b', { dtype: 'float32', shape: [NI, nj] }),
      ]);
      knl = tagInames(knl, { i: 'l.0', j: laneTag });
      const want = expected().filter((_, k) => k % NJ < nj);
      for (const device of testDevices()) {
        const { result, warnings } = collectWarnings(() => run(knl, device, {}));
        const b = (await result).b as Float32Array;
        assert.equal([...b], [...want], `${device.target.name}: ${space} a over j: ${laneTag}`);
        assert.equal(warnings.map(String), [], `${device.target.name}: no race left to report`);
      }
    });
  }
}

test('a local temporary with ILP copies read outside its lanes is a LoomError, as in loopy', () => {
  let knl = makeKernel('{[i,j]: 0<=i<16 and 0<=j<4}', '<> a[i] = 10*i + j {inames=i:j}\nb[i] = a[i] {inames=i}', [
    globalArg('b', { dtype: 'float32', shape: [16] }),
  ]);
  knl = tagInames(knl, { i: 'l.0', j: 'ilp' });
  assert.throws(
    () => generateCode(knl, jsTarget()),
    (e: unknown) =>
      e instanceof LoomError && /one copy per value of the ILP or vec iname\(s\) 'j', outside of them/.test(e.message),
  );
});

test.run();
