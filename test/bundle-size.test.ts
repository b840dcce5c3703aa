/**
 * Loom in a browser (issue 13): every package bundles for the browser with no flags, reaching no
 * Node builtin (@loom/codegen-opencl's browser entry is its target alone: its device is native
 * code, through koffi), and the bundles stay within their budgets, minified and gzipped as a web
 * server sends them.
 *
 * Sizes, for scale: @loom/core + @loom/codegen-wgsl about 80 KB at issue 13, 143 KB after the
 * second wave (vector types, host loops around global barriers, declared temporaries, scans, the
 * statistics, loopy's transformation catalogue: transformations alone are 108 KB minified); with
 * @loom/elementwise 140 KB then, 204 KB now (acorn, the payload parser, is 34 KB of it). Before
 * issue 13 they were 269 KB and 293 KB (mathjs alone was 188 KB). The budgets leave about 15%
 * for growth: passing one means looking at what grew before raising it.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { bundleForBrowser } from './support/browser-bundle.ts';

const BROWSER_PACKAGES = ['@loom/core', '@loom/codegen-js', '@loom/codegen-opencl', '@loom/codegen-wgsl', '@loom/dsl', '@loom/elementwise', '@loom/computation'];

for (const name of BROWSER_PACKAGES) {
  test(`${name} bundles for the browser without reaching a Node builtin`, async () => {
    const bundle = await bundleForBrowser([name]);
    assert.equal(
      bundle.errors.map((e) => e.text),
      [],
      'esbuild errors',
    );
    assert.equal(bundle.nodeBuiltins, [], 'Node builtins reached from the browser entry');
  });
}

const BUDGETS: readonly [readonly string[], number][] = [
  [['@loom/core', '@loom/codegen-wgsl'], 165],
  [['@loom/core', '@loom/codegen-wgsl', '@loom/elementwise'], 235],
];

for (const [packages, kilobytes] of BUDGETS) {
  test(`${packages.join(' + ')}: at most ${kilobytes} KB minified and gzipped`, async () => {
    const bundle = await bundleForBrowser(packages);
    assert.equal(
      bundle.errors.map((e) => e.text),
      [],
    );
    const size = bundle.gzipped / 1024;
    assert.ok(size <= kilobytes, `${size.toFixed(1)} KB gzipped (${(bundle.minified / 1024).toFixed(1)} KB minified), over the budget of ${kilobytes} KB`);
  });
}

test.run();
