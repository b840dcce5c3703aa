/**
 * Fuzzing in CI: each parser (domains, instructions, the DSL's template tags, payloads) on a
 * few hundred inputs from fixed seeds, arbitrary strings and mutations of valid inputs
 * (test/support/fuzz-targets.ts). The property: only LoomErrors are thrown, and no input
 * takes longer than a second. Long runs with fresh seeds: `npx tsx bench/fuzz.ts`.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { check, FUZZ_TARGETS, inputsFor } from './support/fuzz-targets.ts';

const RUNS = 300;
const LIMIT_MS = 1000;

for (const target of FUZZ_TARGETS) {
  test(`fuzz ${target.name}: only LoomErrors, each input within ${LIMIT_MS} ms (seed 11, ${RUNS} inputs)`, () => {
    let checked = 0;
    fc.assert(
      fc.property(inputsFor(target), (input) => {
        checked++;
        const finding = check(target, input, LIMIT_MS);
        if (finding?.kind === 'exception') throw finding.error;
        if (finding?.kind === 'slow') throw new Error(`took ${finding.ms.toFixed(0)} ms`);
      }),
      { seed: 11, numRuns: RUNS },
    );
    assert.is(checked, RUNS);
  });
}

test('the fuzz inputs reach past the tokenizers: some mutated inputs are accepted', () => {
  for (const target of FUZZ_TARGETS) {
    const accepted = fc.sample(inputsFor(target), { seed: 11, numRuns: 200 }).filter((input) => {
      try {
        target.run(input);
        return true;
      } catch {
        return false;
      }
    });
    assert.ok(accepted.length > 0, `${target.name}: no input was accepted`);
  }
});

test.run();
