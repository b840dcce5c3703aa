// How completely the peers' own test suites are ported into test/peers/: each test function of
// loopy's, Reikna's and FlagGems' suites is ported, listed in test/peers/NOT-PORTED.md with a reason,
// or missing.
//
//   node scripts/peer-tests.mjs --snapshot <loopy-git-dir> <reikna-git-dir> <flaggems-git-dir>
//       reads the test function names from the HEAD of the three repositories (bare git directories
//       are fine) and writes test/peers/peer-tests.json, the checked-in snapshot (CI has no network)
//   node scripts/peer-tests.mjs --report
//       writes test/peers/COVERAGE.md from the snapshot and the ports
//   node scripts/peer-tests.mjs
//       prints the totals, and the stale entries of NOT-PORTED.md if any
//
// A peer test is a module-level `def test_...` (or `async def`) of the peer's test files, or a
// method `def test_...` of a module-level `class Test...` (pytest's collection; none of the three
// suites has one today); a parametrized test counts once. The test files: loopy's
// test/test_*.py, Reikna's tests/**/test_*.py, FlagGems' tests/test_*.py and tests/ks_tests.py.
//
// The matching rule. A test `name` of the peer file `dir/F.py` is ported when the title of a
// `test(...)` call (its first argument, a string or template literal, taken as written, `${...}`
// included) of a *.test.ts file in the peer's folder of test/peers/ (Reikna: reikna/, FlagGems:
// flaggems/, loopy: every other file) contains `name` as a whole identifier (no letter, digit or
// `_` either side), and that occurrence belongs to F.py:
//   - written `F.py::name` in the title, whatever the file holding it; or
//   - not qualified (no `X.py::` right before it), in a file whose path under the peer's folder
//     starts with `F.py.` (test_loopy.py.splitting.test.ts) or with the folder `F/`
//     (test_transform/inames.test.ts); or
//   - not qualified, in any file of the peer's folder, when no other test file of the peer has a
//     test of that name (loopy's test_apps.py::test_unsigned_types_to_mod is ported in
//     test_loopy.py.public-api-2.test.ts). A name two files share (loopy's test_argmax of
//     test_reduction.py and test_scan.py, Reikna's test_errors, test_trivial) needs the first two.
// Only titles count, not comments or code, since ports mention their neighbours' names in passing
// ("as test_atomic_init does"). A test neither ported nor matched is listed when NOT-PORTED.md has
// an entry for it: a bullet `- <peer> \`path.py::name\`, \`name\`, ...: reason` (a bare name
// takes the last path before it), or `\`path.py\`` for the whole file. The rest are missing.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
export const SNAPSHOT = path.join(root, 'test/peers/peer-tests.json');
export const NOT_PORTED = path.join(root, 'test/peers/NOT-PORTED.md');
export const COVERAGE = path.join(root, 'test/peers/COVERAGE.md');
const PORTS = path.join(root, 'test/peers');

/** The peers: their repository, which of their files are test files, and where their ports live. */
export const PEERS = {
  loopy: { repo: 'inducer/loopy', files: /^test\/test_[^/]*\.py$/, folder: '' },
  reikna: { repo: 'fjarri/reikna', files: /^tests\/(?:.*\/)?test_[^/]*\.py$/, folder: 'reikna' },
  flaggems: { repo: 'FlagOpen/FlagGems', files: /^tests\/(?:test_[^/]*|ks_tests)\.py$/, folder: 'flaggems' },
};
const PEER_NAMES = { loopy: 'loopy', reikna: 'Reikna', flaggems: 'FlagGems' };

// ---------------------------------------------------------------------------------------------
// The snapshot: the test functions of the peers' test files

/** The test functions pytest collects from one Python file, in the order they are defined. */
export function pythonTestNames(source) {
  const names = [];
  let inTestClass = false;
  for (const line of source.split('\n')) {
    const top = /^(?:async\s+)?def\s+(test\w*)\s*\(/.exec(line);
    if (top) names.push(top[1]);
    if (/^\S/.test(line) && !line.startsWith('#') && !line.startsWith('@') && !line.startsWith(')')) {
      inTestClass = /^class\s+Test\w*\s*[(:]/.test(line);
      continue;
    }
    const method = inTestClass && /^ {4}(?:async\s+)?def\s+(test\w*)\s*\(/.exec(line);
    if (method) names.push(method[1]);
  }
  return [...new Set(names)]; // a redefinition replaces the earlier test (pytest collects one)
}

function git(gitDir, ...args) {
  return execFileSync('git', [`--git-dir=${gitDir}`, ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
}

/** Reads every peer's test names at the HEAD of its git directory. */
export function takeSnapshot(gitDirs) {
  const peers = {};
  for (const [peer, { repo, files }] of Object.entries(PEERS)) {
    const gitDir = gitDirs[peer];
    const commit = git(gitDir, 'rev-parse', 'HEAD').trim();
    const tests = {};
    const paths = git(gitDir, 'ls-tree', '-r', '--name-only', 'HEAD')
      .split('\n')
      .filter((p) => files.test(p))
      .sort();
    for (const p of paths) tests[p] = pythonTestNames(git(gitDir, 'show', `${commit}:${p}`));
    peers[peer] = { repo, commit, files: tests };
  }
  return { peers };
}

export function loadSnapshot(file = SNAPSHOT) {
  return JSON.parse(readFileSync(file, 'utf8'));
}

// ---------------------------------------------------------------------------------------------
// The ports: the titles of the test(...) calls under test/peers

/**
 * The strings of a TypeScript source that may name a port: the title of each `test(...)` call (its
 * first argument, as written, `${...}` included), and each string literal that is one test's name
 * and nothing else (`'test_x'` or `'test_f.py::test_x'`: ports build titles from lists of names,
 * `for (const name of ['test_a', 'test_b']) test(`${device.name}: ${name}`, ...)`). Comments are
 * skipped.
 */
export function testTitles(source) {
  const titles = [];
  let code = ''; // the code since the last string literal
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '/' && source[i + 1] === '/') {
      const eol = source.indexOf('\n', i);
      i = eol < 0 ? source.length : eol - 1;
    } else if (c === '/' && source[i + 1] === '*') {
      const close = source.indexOf('*/', i + 2);
      i = close < 0 ? source.length : close + 1;
    } else if (c === '/' && /(?:^|[(,=:[!&|?{};]|\breturn)\s*$/.test(code)) {
      i = endOfRegExp(source, i) - 1;
      code += ' /re/ ';
    } else if (c === "'" || c === '"' || c === '`') {
      const end = endOfString(source, i);
      const text = source.slice(i + 1, end - 1);
      if (/(?<![\w.$])test\s*\(\s*$/.test(code) || /^(?:[\w.]+\.py::)?test_\w+$/.test(text)) titles.push(text);
      code = '';
      i = end - 1;
    } else code = (code + c).slice(-40);
  }
  return titles;
}

/** The index just past the regular expression literal that starts at `i` (ending the line at most). */
function endOfRegExp(s, i) {
  let inClass = false;
  for (let j = i + 1; j < s.length; j++) {
    const c = s[j];
    if (c === '\\') j++;
    else if (c === '\n') return j;
    else if (c === '[') inClass = true;
    else if (c === ']') inClass = false;
    else if (c === '/' && !inClass) return j + 1;
  }
  return s.length;
}

/** The index just past the string or template literal that starts at `i`. */
function endOfString(s, i) {
  const quote = s[i];
  for (let j = i + 1; j < s.length; j++) {
    const c = s[j];
    if (c === '\\') j++;
    else if (c === quote) return j + 1;
    else if (quote === '`' && c === '$' && s[j + 1] === '{') j = endOfExpression(s, j + 2) - 1;
    else if (quote !== '`' && c === '\n') return j;
  }
  return s.length;
}

/** The index just past the `}` that closes a `${` whose expression starts at `i`. */
function endOfExpression(s, i) {
  let depth = 1;
  for (let j = i; j < s.length; j++) {
    const c = s[j];
    if (c === "'" || c === '"' || c === '`') j = endOfString(s, j) - 1;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return j + 1;
  }
  return s.length;
}

function filesUnder(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)],
  );
}

/** Every port file's titles, by peer: `{ file, rel, titles }`, `rel` its path in the peer's folder. */
export function readPorts(dir = PORTS) {
  const byPeer = Object.fromEntries(Object.keys(PEERS).map((p) => [p, []]));
  const folders = Object.entries(PEERS).filter(([, v]) => v.folder);
  for (const file of filesUnder(dir)
    .filter((f) => f.endsWith('.test.ts'))
    .sort()) {
    const rel = path.relative(dir, file).split(path.sep).join('/');
    const [peer, { folder }] = folders.find(([, v]) => rel.startsWith(`${v.folder}/`)) ?? ['loopy', PEERS.loopy];
    byPeer[peer].push({
      file: path.relative(root, file).split(path.sep).join('/'),
      rel: folder ? rel.slice(folder.length + 1) : rel,
      titles: testTitles(readFileSync(file, 'utf8')),
    });
  }
  return byPeer;
}

const escapeRegExp = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Where `name` of the peer file `peerFile` is ported: `[{ file, title }]`, empty if nowhere.
 * `unique`: no other test file of the peer has a test of that name.
 */
export function portsOf(ports, peerFile, name, unique) {
  const base = path.posix.basename(peerFile); // test_loopy.py
  const stem = base.replace(/\.py$/, '');
  const occurrence = new RegExp(`(?<![\\w])((?:[\\w.]+\\.py)::)?${escapeRegExp(name)}(?!\\w)`, 'g');
  const found = [];
  for (const { file, rel, titles } of ports) {
    const fileIsPeerFile = rel.startsWith(`${base}.`) || rel.startsWith(`${stem}/`);
    for (const title of titles) {
      for (const m of title.matchAll(occurrence)) {
        const qualifier = m[1] && path.posix.basename(m[1].slice(0, -2));
        if (qualifier ? qualifier === base : fileIsPeerFile || unique) {
          found.push({ file, title });
          break;
        }
      }
    }
  }
  return found;
}

// ---------------------------------------------------------------------------------------------
// NOT-PORTED.md

/**
 * The entries of NOT-PORTED.md: `{ peer, file, name }` (`name` null for a whole file), each with
 * `line`, the line of its bullet. Only the backticked run right after the peer's name is read.
 */
export function parseNotPorted(text) {
  const entries = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const bullet = /^- (loopy|Reikna|FlagGems)\s+(.*)$/i.exec(lines[i]);
    if (!bullet) continue;
    const peer = bullet[1].toLowerCase();
    let body = bullet[2];
    for (let j = i + 1; j < lines.length && /^\s+\S/.test(lines[j]); j++) body += ` ${lines[j].trim()}`;
    let file = null;
    const item = /^\s*(?:,|and\b)?\s*`([^`]+)`/;
    for (let m = item.exec(body); m; m = item.exec(body)) {
      body = body.slice(m[0].length);
      const [p, name] = m[1].split('::');
      if (p.endsWith('.py')) file = p;
      if (name === undefined && !p.endsWith('.py')) entries.push({ peer, file, name: p, line: i + 1 });
      else entries.push({ peer, file: p, name: name ?? null, line: i + 1 });
    }
  }
  return entries;
}

// ---------------------------------------------------------------------------------------------
// The coverage

/**
 * Each peer test's status: `ported` (with `where`), `listed` (in NOT-PORTED.md) or `missing`; the
 * entries of NOT-PORTED.md that name no test of the snapshot (`stale`), and the tests that are both
 * ported and listed (`listedAndPorted`).
 */
export function coverage(snapshot, ports = readPorts(), notPorted = parseNotPorted(readFileSync(NOT_PORTED, 'utf8'))) {
  const stale = [];
  const listed = new Set();
  for (const e of notPorted) {
    const files = snapshot.peers[e.peer]?.files ?? {};
    const names = files[e.file];
    if (!names || (e.name !== null && !names.includes(e.name))) stale.push(e);
    else for (const n of e.name === null ? names : [e.name]) listed.add(`${e.peer} ${e.file} ${n}`);
  }
  const peers = {};
  const listedAndPorted = [];
  for (const [peer, { repo, commit, files }] of Object.entries(snapshot.peers)) {
    const out = {};
    const definedIn = new Map();
    for (const names of Object.values(files)) for (const n of names) definedIn.set(n, (definedIn.get(n) ?? 0) + 1);
    for (const [file, names] of Object.entries(files)) {
      out[file] = names.map((name) => {
        const where = portsOf(ports[peer], file, name, definedIn.get(name) === 1);
        const isListed = listed.has(`${peer} ${file} ${name}`);
        if (where.length > 0 && isListed) listedAndPorted.push({ peer, file, name, where });
        return { name, status: where.length > 0 ? 'ported' : isListed ? 'listed' : 'missing', where };
      });
    }
    peers[peer] = { repo, commit, files: out };
  }
  return { peers, stale, listedAndPorted };
}

const count = (tests, status) => tests.filter((t) => t.status === status).length;

/** `{ ported, listed, missing }` over one peer's files, or over every peer's. */
export function totals(cov, peer) {
  const all = Object.entries(cov.peers)
    .filter(([p]) => peer === undefined || p === peer)
    .flatMap(([, v]) => Object.values(v.files).flat());
  return { ported: count(all, 'ported'), listed: count(all, 'listed'), missing: count(all, 'missing') };
}

/** COVERAGE.md's text. */
export function renderReport(cov) {
  const out = [
    '# Peer test coverage',
    '',
    "Generated by `node scripts/peer-tests.mjs --report` from test/peers/peer-tests.json (the peers'",
    'test functions, read by `node scripts/peer-tests.mjs --snapshot ...`), the titles of the ports in',
    'test/peers/ and test/peers/NOT-PORTED.md; the matching rule is at the top of scripts/peer-tests.mjs.',
    'test/peer-tests.test.ts fails when more tests are missing than the total below: port one, or list it',
    'in NOT-PORTED.md with its reason, then regenerate this file.',
    '',
  ];
  const all = totals(cov);
  out.push(
    `Total: ${all.ported} ported, ${all.listed} not ported (listed), ${all.missing} missing.`,
    '',
    '| peer | commit | ported | listed | missing |',
    '| --- | --- | ---: | ---: | ---: |',
  );
  for (const [peer, { repo, commit }] of Object.entries(cov.peers)) {
    const t = totals(cov, peer);
    out.push(`| ${PEER_NAMES[peer]} (${repo}) | ${commit.slice(0, 12)} | ${t.ported} | ${t.listed} | ${t.missing} |`);
  }
  for (const [peer, { repo, commit, files }] of Object.entries(cov.peers)) {
    out.push('', `## ${PEER_NAMES[peer]}`, '', `${repo} at ${commit}.`, '');
    out.push('| file | tests | ported | listed | missing |', '| --- | ---: | ---: | ---: | ---: |');
    for (const [file, tests] of Object.entries(files)) {
      const cells = [tests.length, count(tests, 'ported'), count(tests, 'listed'), count(tests, 'missing')];
      out.push(`| ${file} | ${cells.join(' | ')} |`);
    }
    const missing = Object.entries(files).filter(([, tests]) => count(tests, 'missing') > 0);
    if (missing.length > 0) out.push('', 'Missing:');
    for (const [file, tests] of missing) {
      const names = tests.filter((t) => t.status === 'missing').map((t) => `\`${t.name}\``);
      out.push('', `- ${file} (${names.length}): ${names.join(', ')}`);
    }
  }
  if (cov.listedAndPorted.length > 0) {
    out.push('', '## Both ported and listed in NOT-PORTED.md', '');
    for (const { peer, file, name, where } of cov.listedAndPorted)
      out.push(`- ${PEER_NAMES[peer]} ${file}::${name}: ${[...new Set(where.map((w) => w.file))].join(', ')}`);
  }
  if (cov.stale.length > 0) {
    out.push('', '## Entries of NOT-PORTED.md that name no test of the peers', '');
    for (const e of cov.stale)
      out.push(`- line ${e.line}: ${PEER_NAMES[e.peer]} ${e.file}${e.name ? `::${e.name}` : ''}`);
  }
  return `${out.join('\n')}\n`;
}

/** The total of missing tests COVERAGE.md records (`Total: ... N missing.`). */
export function recordedMissing(text = readFileSync(COVERAGE, 'utf8')) {
  const m = /^Total: .*?(\d+) missing\.$/m.exec(text);
  if (!m) throw new Error('COVERAGE.md has no "Total: ... N missing." line');
  return Number(m[1]);
}

// ---------------------------------------------------------------------------------------------

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [mode, ...rest] = process.argv.slice(2);
  if (mode === '--snapshot') {
    if (rest.length !== 3) {
      console.error(
        'usage: node scripts/peer-tests.mjs --snapshot <loopy-git-dir> <reikna-git-dir> <flaggems-git-dir>',
      );
      process.exit(2);
    }
    const [loopy, reikna, flaggems] = rest;
    writeFileSync(SNAPSHOT, `${JSON.stringify(takeSnapshot({ loopy, reikna, flaggems }), null, 1)}\n`);
    console.log(`wrote ${path.relative(root, SNAPSHOT)}`);
  } else {
    const cov = coverage(loadSnapshot());
    if (mode === '--report') {
      writeFileSync(COVERAGE, renderReport(cov));
      console.log(`wrote ${path.relative(root, COVERAGE)}`);
    } else if (mode !== undefined) {
      console.error(`peer-tests: unknown option ${mode}`);
      process.exit(2);
    }
    for (const peer of Object.keys(cov.peers)) {
      const t = totals(cov, peer);
      console.log(`${PEER_NAMES[peer]}: ${t.ported} ported, ${t.listed} listed, ${t.missing} missing`);
    }
    for (const e of cov.stale)
      console.log(`stale: NOT-PORTED.md line ${e.line}: ${PEER_NAMES[e.peer]} ${e.file}${e.name ? `::${e.name}` : ''}`);
  }
}
