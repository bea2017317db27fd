// The console's build (docs/adr/0025-console-build-and-serving.md): Preact through esbuild's JSX
// transform, hashed asset names under dist/assets, and no inline script (the server's CSP forbids it).
import { defineConfig } from 'vite';

export default defineConfig({
  base: '/',
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    target: 'es2022',
  },
});
