/**
 * The playground's Vite configuration: `npm run playground` serves it, and
 * test/playground-browser.test.ts builds it. In this repository the @loom packages are their
 * TypeScript sources (the `loom-source` condition of their exports); an app that installed
 * them needs no configuration.
 */
import { defaultClientConditions, defineConfig } from 'vite';

export default defineConfig({
  root: import.meta.dirname,
  resolve: { conditions: ['loom-source', ...defaultClientConditions] },
  build: {
    target: 'es2022',
    // Loom's errors are named after their classes (LoomError, LinearizationError...): minified
    // names would show as 'n: ...'
    rolldownOptions: { output: { keepNames: true } },
  },
});
