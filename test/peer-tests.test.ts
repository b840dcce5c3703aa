/**
 * How completely the peers' test suites are ported (scripts/peer-tests.mjs; its header states the
 * matching rule). Over the checked-in snapshot of the peers' test names (test/peers/peer-tests.json):
 * every entry of test/peers/NOT-PORTED.md names a test of the peers, no test is both ported and
 * listed, and no more tests are missing than test/peers/COVERAGE.md records, so that the count can
 * only go down (after a port, `node scripts/peer-tests.mjs --report` regenerates the report).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  coverage,
  loadSnapshot,
  parseNotPorted,
  type PortFile,
  portsOf,
  pythonTestNames,
  recordedMissing,
  testTitles,
  totals,
} from '../scripts/peer-tests.mjs';

const cov = coverage(loadSnapshot());

test('pythonTestNames: module-level tests and methods of Test classes, once each', () => {
  const source = [
    'import pytest',
    '@pytest.mark.parametrize("n", [1, 2])',
    'def test_a(n):',
    '    def test_nested():',
    '        pass',
    'class Helper:',
    '    def test_not_collected(self):',
    '        pass',
    'class TestThing:',
    '    def test_b(self):',
    '        pass',
    'async def test_c():',
    '    pass',
    'def helper():',
    '    pass',
    'def test_a():',
    '    pass',
  ].join('\n');
  assert.equal(pythonTestNames(source), ['test_a', 'test_b', 'test_c']);
});

test('testTitles: titles as written, and literals that are one name; comments and other strings are not', () => {
  const source = [
    "// test('test_commented', () => {})",
    '/* test(`test_block`) */',
    "test('test_one, test_two', () => {});",
    'test(`${device.name}: test_loopy.py::test_three[${n}]`, async () => {});',
    "for (const name of ['test_four', 'test_five (a variant)']) test(`${name}`, () => {});",
    "assert.throws(() => f(), /it's 'test_six'/);",
    "const message = 'as test_seven does';",
  ].join('\n');
  assert.equal(testTitles(source), [
    'test_one, test_two',
    '${device.name}: test_loopy.py::test_three[${n}]',
    'test_four',
    '${name}',
  ]);
});

test("portsOf: a name belongs to its peer file through the port's file name, a qualifier, or being unique", () => {
  const ports: PortFile[] = [
    { file: 'a', rel: 'test_scan.py.test.ts', titles: ['${on}: test_argmax[${tag}]'] },
    { file: 'b', rel: 'test_loopy.py.misc.test.ts', titles: ['test_reduction.py::test_split_reduction', 'test_x2'] },
    { file: 'c', rel: 'test_transform/inames.test.ts', titles: ['test_fusion, and more'] },
  ];
  const where = (file: string, name: string, unique: boolean) => portsOf(ports, file, name, unique).map((w) => w.file);
  assert.equal(where('test/test_scan.py', 'test_argmax', false), ['a']);
  assert.equal(where('test/test_reduction.py', 'test_argmax', false), []);
  assert.equal(where('test/test_reduction.py', 'test_split_reduction', false), ['b']);
  assert.equal(where('test/test_loopy.py', 'test_split_reduction', false), []);
  assert.equal(where('test/test_transform.py', 'test_fusion', false), ['c']);
  assert.equal(where('test/test_apps.py', 'test_x2', true), ['b']);
  assert.equal(where('test/test_apps.py', 'test_x', true), [], 'a whole identifier only');
});

test('parseNotPorted: qualified names, bare names after them, whole files', () => {
  const text = [
    '# Peer tests not ported',
    '',
    '- loopy `test/test_misc.py::test_set_trie`: a `SetTrie`, `test_not_an_entry`.',
    '- FlagGems `tests/test_libentry.py::test_decorator_cascade`, `test_pass_kernel_arg_via_kw`,',
    '  `test_kernel_arg_apply_default`: they check how LibEntry re-binds `N`.',
    '- FlagGems `tests/test_quant.py`, `tests/ks_tests.py`: the operator library.',
  ].join('\n');
  assert.equal(
    parseNotPorted(text).map((e) => [e.peer, e.file, e.name, e.line]),
    [
      ['loopy', 'test/test_misc.py', 'test_set_trie', 3],
      ['flaggems', 'tests/test_libentry.py', 'test_decorator_cascade', 4],
      ['flaggems', 'tests/test_libentry.py', 'test_pass_kernel_arg_via_kw', 4],
      ['flaggems', 'tests/test_libentry.py', 'test_kernel_arg_apply_default', 4],
      ['flaggems', 'tests/test_quant.py', null, 6],
      ['flaggems', 'tests/ks_tests.py', null, 6],
    ],
  );
});

test('every entry of NOT-PORTED.md names a test (or a test file) of the snapshot', () => {
  const stale = cov.stale.map((e) => `line ${e.line}: ${e.peer} ${e.file}${e.name ? `::${e.name}` : ''}`);
  assert.equal(stale, [], `stale entries of test/peers/NOT-PORTED.md:\n${stale.join('\n')}`);
});

test('no test is both ported and listed in NOT-PORTED.md', () => {
  const both = cov.listedAndPorted.map((t) => `${t.file}::${t.name} (${t.where.map((w) => w.file).join(', ')})`);
  assert.equal(both, [], `ported, yet listed in NOT-PORTED.md:\n${both.join('\n')}`);
});

test('no more tests are missing than COVERAGE.md records', () => {
  const { missing } = totals(cov);
  const recorded = recordedMissing();
  const names = Object.values(cov.peers).flatMap((p) =>
    Object.entries(p.files).flatMap(([file, tests]) =>
      tests.filter((t) => t.status === 'missing').map((t) => `${file}::${t.name}`),
    ),
  );
  assert.ok(
    missing <= recorded,
    `${missing} peer tests are missing, COVERAGE.md records ${recorded}: port them or list them in ` +
      `NOT-PORTED.md with a reason, then run node scripts/peer-tests.mjs --report. Missing:\n${names.join('\n')}`,
  );
  if (missing < recorded) console.log(`  ${recorded - missing} fewer missing than COVERAGE.md: regenerate it`);
});

test.run();
