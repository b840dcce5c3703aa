/**
 * The API reference builds (`npm run docs`: TypeDoc over every package's public entry, the
 * guides as pages) with no warning, so with no undocumented exported name (typedoc.json turns
 * `validation.notDocumented` on, as an error), and every link inside the site leads somewhere:
 * each href to a local .html names a file of the site, and its #anchor an id in that file.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

/** Every file under `dir`, as paths relative to it. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)));
}

/** The ids (and a elements' names) a page defines, which #anchors may point at. */
function anchorsOf(html: string): Set<string> {
  return new Set([...html.matchAll(/\s(?:id|name)="([^"]*)"/g)].map((m) => decodeEntities(m[1])));
}

const decodeEntities = (text: string) =>
  text.replace(
    /&(amp|lt|gt|quot|#39);/g,
    (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e] ?? '',
  );

test('npm run docs builds the reference with no warning, and every link inside it resolves', () => {
  const out = mkdtempSync(path.join(os.tmpdir(), 'loom-site-'));
  try {
    const started = performance.now();
    const result = spawnSync(process.execPath, ['scripts/docs.mjs', '--out', out], { cwd: root, encoding: 'utf8' });
    const log = `${result.stdout}${result.stderr}`;
    console.log(`  (built in ${((performance.now() - started) / 1000).toFixed(1)} s)`);
    assert.not.match(log, /does not have any documentation/, log);
    assert.not.match(log, /\[warning\]|\[error\]/, log);
    assert.is(result.status, 0, log);

    const files = filesUnder(out);
    const pages = files.filter((file) => file.endsWith('.html'));
    assert.ok(pages.length > 100, `only ${pages.length} pages`);
    // the guides are pages of the site
    const documents = pages.filter((file) => file.startsWith(`documents${path.sep}`));
    assert.ok(documents.length >= 9, `guide pages: ${documents.join(', ')}`);

    const anchors = new Map<string, Set<string>>();
    const anchorsIn = (file: string) => {
      if (!anchors.has(file)) anchors.set(file, anchorsOf(readFileSync(path.join(out, file), 'utf8')));
      return anchors.get(file)!;
    };
    const broken: string[] = [];
    let checked = 0;
    for (const page of pages) {
      const html = readFileSync(path.join(out, page), 'utf8');
      for (const [, raw] of html.matchAll(/\shref="([^"]*)"/g)) {
        const href = decodeEntities(raw);
        if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('//')) continue; // another site
        const [target, anchor] = href.split('#', 2) as [string, string | undefined];
        const file = target === '' ? page : path.normalize(path.join(path.dirname(page), decodeURIComponent(target)));
        if (target !== '' && !file.endsWith('.html')) {
          if (!files.includes(file)) broken.push(`${page}: ${href} (no such file)`);
          continue;
        }
        checked++;
        if (!files.includes(file)) broken.push(`${page}: ${href} (no such page)`);
        else if (anchor && !anchorsIn(file).has(decodeURIComponent(anchor)))
          broken.push(`${page}: ${href} (no id '${anchor}' there)`);
      }
    }
    assert.ok(checked > 1000, `only ${checked} internal links`);
    assert.equal(broken, []);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test.run();
