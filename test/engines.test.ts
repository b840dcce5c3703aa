/**
 * The `engines` lines are true: every Node version the repository's package.json admits runs
 * every package it installs (its devDependencies included: the test registry, Vite, ...), and
 * each published package admits no Node version that one of its own dependencies refuses.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import semver from 'semver';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const readJson = (file: string) => JSON.parse(readFileSync(path.join(root, file), 'utf8'));

interface LockEntry {
  readonly engines?: { readonly node?: string } | readonly string[];
  readonly dependencies?: Record<string, string>;
  readonly link?: boolean;
  readonly optional?: boolean;
  /** Set on platform-specific binaries (npm installs only the one matching the machine). */
  readonly cpu?: readonly string[];
  readonly os?: readonly string[];
}
const lock: Record<string, LockEntry> = readJson('package-lock.json').packages;

/** The entries of the lock whose Node range does not admit every version of `admitted`. */
function refusing(admitted: string, names: Iterable<string>): string[] {
  const found: string[] = [];
  for (const name of names) {
    const entry = lock[name];
    // a binary for another platform (and what only it needs) is not installed here, whatever its range
    if ((entry?.cpu && !entry.cpu.includes(process.arch)) || (entry?.os && !entry.os.includes(process.platform)))
      continue;
    if (entry?.optional && !existsSync(path.join(root, name))) continue;
    const engines = entry?.engines;
    const node = engines && !Array.isArray(engines) ? (engines as { node?: string }).node : undefined;
    if (node && !semver.subset(admitted, node))
      found.push(`${name.replace(/^.*node_modules\//, '')} needs node ${node}`);
  }
  return found;
}

test("the repository's engines line admits only Node versions every installed package runs on", () => {
  const admitted = readJson('package.json').engines.node;
  assert.equal(refusing(admitted, Object.keys(lock)), []);
});

/** The lock entries a published package brings, through its dependencies, transitively. */
function installedWith(dir: string): Set<string> {
  const seen = new Set<string>();
  const visit = (from: string, deps: Record<string, string> | undefined) => {
    for (const dep of Object.keys(deps ?? {})) {
      // npm's resolution: the closest node_modules up from the dependent
      let at = from;
      let key = `${at ? `${at}/` : ''}node_modules/${dep}`;
      while (!lock[key] && at) {
        at = at.includes('node_modules/') ? at.slice(0, at.lastIndexOf('/node_modules/')) : '';
        key = `${at ? `${at}/` : ''}node_modules/${dep}`;
      }
      if (!lock[key] || seen.has(key)) continue;
      seen.add(key);
      visit(lock[key].link ? ((lock[key] as { resolved?: string }).resolved ?? key) : key, lock[key].dependencies);
    }
  };
  visit(dir, lock[dir]?.dependencies);
  return seen;
}

for (const name of readdirSync(path.join(root, 'packages'))) {
  test(`@loom/${name}'s engines line admits only Node versions its dependencies run on`, () => {
    const admitted = readJson(`packages/${name}/package.json`).engines.node;
    assert.equal(refusing(admitted, installedWith(`packages/${name}`)), []);
  });
}

test.run();
