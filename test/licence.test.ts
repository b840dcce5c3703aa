/**
 * Releases: each package's CHANGELOG.md ships with it and starts at its version.
 * Loom is MIT-licensed: the root LICENSE, and in every package the same file (npm ships a
 * package's LICENSE in its tarball) and `"license": "MIT"` in its package.json. The installed
 * test checks that the published tarballs carry it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const licence = readFileSync(path.join(root, 'LICENSE'), 'utf8');
const packages = readdirSync(path.join(root, 'packages'));

test('the root LICENSE is the MIT licence', () => {
  assert.match(licence, /^MIT License\n/);
  assert.match(licence, 'Permission is hereby granted, free of charge');
  assert.equal(JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).license, 'MIT');
});

for (const name of packages) {
  test(`packages/${name} ships the same LICENSE and says "license": "MIT"`, () => {
    const manifest = JSON.parse(readFileSync(path.join(root, 'packages', name, 'package.json'), 'utf8'));
    assert.is(manifest.license, 'MIT');
    assert.ok(manifest.files.includes('LICENSE'), 'LICENSE is in "files"');
    assert.is(readFileSync(path.join(root, 'packages', name, 'LICENSE'), 'utf8'), licence);
  });
}

for (const name of packages) {
  test(`packages/${name} ships a CHANGELOG.md whose newest entry is its version (changesets writes it)`, () => {
    const manifest = JSON.parse(readFileSync(path.join(root, 'packages', name, 'package.json'), 'utf8'));
    assert.ok(manifest.files.includes('CHANGELOG.md'), 'CHANGELOG.md is in "files"');
    const changelog = readFileSync(path.join(root, 'packages', name, 'CHANGELOG.md'), 'utf8');
    assert.is(/^## (\S+)$/m.exec(changelog)?.[1], manifest.version);
  });
}

test.run();
