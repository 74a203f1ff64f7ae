import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The renderer built for the browser (web host, Playwright). Same sources as Electron's.
export default defineConfig({
  root: 'src/renderer',
  base: './',
  plugins: [react()],
  build: { outDir: '../../out/web', emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 2000 },
});
