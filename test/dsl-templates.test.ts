/**
 * The `domain` and `insn` tags: what interpolation makes of values, and errors that point
 * into the template — at the file, line and column where the offending text was written.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LoomError, makeKernel } from '@loom/core';
import { domain, insn, kernel, templateLocationOf, Fragment } from '@loom/dsl';

const thisFile = fileURLToPath(import.meta.url);
const source = readFileSync(thisFile, 'utf8').split('\n');

/** Line (1-based) and column of `needle` on the line of this file containing `marker`. */
function positionOf(marker: string, needle: string): { line: number; column: number } {
  const index = source.findIndex((l) => l.includes(marker));
  assert.ok(index >= 0, `marker ${marker} not found`);
  return { line: index + 1, column: source[index].indexOf(needle) + 1 };
}

function caught(fn: () => unknown): LoomError {
  try {
    fn();
  } catch (e) {
    assert.instance(e, LoomError);
    return e as LoomError;
  }
  throw new Error('expected an error');
}

test('numbers become literals, strings names, fragments text', () => {
  const n = 16;
  const name = 'a';
  const offset = -1;
  const body = insn`out[i] = ${2.5}*${name}[i] + ${offset}`;
  assert.instance(body, Fragment);
  assert.is(body.text, 'out[i] = 2.5*a[i] + (-1)');
  assert.is(domain`{ [i]: 0<=i<${n} }`.text, '{ [i]: 0<=i<16 }');
  assert.is(insn`x = ${12n}`.text, 'x = 12');
  const both = insn`
    ${body}
    y[i] = ${name}[i]`;
  assert.is(both.text, '\n    out[i] = 2.5*a[i] + (-1)\n    y[i] = a[i]');
});

test('arrays: names and numbers joined by commas, fragments by lines', () => {
  const inames = ['i', 'j'];
  assert.is(domain`{ [${inames}]: 0<=${inames}<n }`.text, '{ [i, j]: 0<=i, j<n }');
  const lines = [insn`a[i] = 1`, insn`b[i] = 2`];
  assert.is(insn`${lines}`.text, 'a[i] = 1\nb[i] = 2');
});

test('a template kernel is the kernel of its text', () => {
  const factor = 2;
  const fromTemplates = kernel(domain`{ [i]: 0<=i<n }`, insn`out[i] = ${factor}*a[i]`);
  assert.is(fromTemplates.toString(), makeKernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i]').toString());
  // strings and fragments mix, in lists too
  const mixed = kernel(['{ [i]: 0<=i<n }', domain`{ [j]: 0<=j<=i }`], ['out[i, j] = a[i]', insn`b[i] = 1`]);
  assert.is(
    mixed.toString(),
    makeKernel(['{ [i]: 0<=i<n }', '{ [j]: 0<=j<=i }'], 'out[i, j] = a[i]\nb[i] = 1').toString(),
  );
});

test('values that cannot be interpolated are refused, pointing at the ${...}', () => {
  const bad = 'a b';
  const e = caught(() => insn`out[i] = ${bad}[i]`); // marker:bad-name
  assert.match(e.message, /an interpolated string becomes a name, and "a b" is not one/);
  const { line, column } = positionOf('marker:bad-name', '${bad}');
  assert.match(e.message, `at ${thisFile}:${line}:${column}`);
  assert.equal(templateLocationOf(e), { file: thisFile, line, column, template: 'insn' });

  assert.match(caught(() => insn`x = ${Number.NaN}`).message, /only finite numbers/);
  assert.match(caught(() => insn`x = ${{} as never}`).message, /cannot interpolate an object/);
  assert.match(
    caught(() => insn`x = ${domain`{ [i]: 0<=i<n }`}`).message,
    /a domain fragment cannot be spliced into a insn template/,
  );
});

test('a syntax error in an instruction points at the file, line and column', () => {
  const e = caught(() =>
    kernel(
      domain`{ [i]: 0<=i<n }`,
      insn`
        <> t = a[i]
        q[i] = t + @
      `, // the '@' above is the error
    ),
  );
  assert.match(e.message, /unexpected character '@'/);
  const { line, column } = positionOf('q[i] = t + @', '@');
  assert.match(e.message, `at ${thisFile}:${line}:${column}`);
  // the core's own pointer stays: the line of the instruction text, with a caret
  assert.match(e.message, /line 3:\s+q\[i\] = t \+ @\n\s+\^/);
});

test('an error in a spliced fragment points into that fragment', () => {
  const shared = insn`
    out[i] = 2*a[i] + (b[i]
  `; // marker:unclosed
  const e = caught(() =>
    kernel(
      domain`{ [i]: 0<=i<n }`,
      insn`<> t = 1
    ${shared}`,
    ),
  );
  assert.match(e.message, /expected '\)'/);
  const { line } = positionOf('out[i] = 2*a[i] + (b[i]', 'o');
  assert.is(templateLocationOf(e)?.line, line);
  assert.is(templateLocationOf(e)?.file, thisFile);
});

test('an error in a domain template points into it', () => {
  const e = caught(() => kernel(domain`{ [i]: 0<=i<n and }`, 'out[i] = 1')); // marker:domain
  const { line, column } = positionOf('marker:domain', '}`');
  assert.equal(templateLocationOf(e), { file: thisFile, line, column, template: 'domain' });
});

test('errors of later transformations point into the templates too', () => {
  const e = caught(() => kernel(domain`{ [i]: 0<=i<n }`, insn`out[i] = a[i % 7]`).prefetch('a', ['i'])); // marker:prefetch
  assert.match(e.message, /not affine/);
  assert.is(templateLocationOf(e)?.line, positionOf('marker:prefetch', 'x').line);
});

test('templates are raw: a backslash is a backslash, as in the source', () => {
  const e = caught(() => kernel('{ [i]: 0<=i<n }', insn`a[i] = 1\nb[i] = 2`)); // marker:raw
  assert.match(e.message, /unexpected character '\\'/);
  assert.equal(templateLocationOf(e), { ...positionOf('marker:raw', '\\n'), file: thisFile, template: 'insn' });
});

test('when the template cannot be found in a file, the position is counted in the template', () => {
  // a tag called with made-up strings: no source text matches them
  const raw = ['\n  x = 1\n  y[i] = ', ' + @'];
  const e = caught(() => kernel('{ [i]: 0<=i<n }', insn(Object.assign([...raw], { raw }), 2)));
  // line 3 of the template as written: '  y[i] = ${…} + @'
  assert.equal(templateLocationOf(e), { line: 3, column: 17, template: 'insn' });
  assert.match(e.message, 'at line 3, column 17 of the insn template');
});

test.run();
