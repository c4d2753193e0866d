// Builds the guest page's script and stylesheet into dist/web (`npm run build`, so `npm install`
// does it). Hashed names: the server serves them with year-long caching.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  root: here('.'),
  logLevel: 'warn',
  build: {
    outDir: here('../../dist/web'),
    emptyOutDir: true,
    manifest: true,
    target: 'es2020',
    modulePreload: false,
    rollupOptions: { input: { guest: here('main.ts') } },
  },
});
