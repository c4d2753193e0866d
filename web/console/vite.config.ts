// Builds the console board's script and stylesheet into dist/console-web (`npm run build:web`, so
// `npm install` does it). Hashed names: the server serves them with year-long caching.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  root: here('.'),
  logLevel: 'warn',
  build: {
    outDir: here('../../dist/console-web'),
    emptyOutDir: true,
    manifest: true,
    target: 'es2020',
    modulePreload: false,
    rollupOptions: { input: { console: here('main.ts') } },
  },
});
