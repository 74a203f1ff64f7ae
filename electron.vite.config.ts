import react from '@vitejs/plugin-react';
import { defineConfig, externalizeDepsPlugin } from 'electron-vite';

export default defineConfig({
  main: {
    plugins: [externalizeDepsPlugin()],
    build: {
      outDir: 'out/main',
      rollupOptions: {
        // The engine process and the job worker are their own entries: utilityProcess and worker threads load them by file name.
        input: { index: 'src/main/index.ts', 'engine-process': 'src/main/engine-process.ts', worker: 'src/main/job-worker.ts' },
      },
    },
  },
  preload: {
    plugins: [externalizeDepsPlugin({ exclude: ['zod'] })],
    build: {
      outDir: 'out/preload',
      rollupOptions: { input: { index: 'src/preload/index.ts' }, output: { format: 'cjs', entryFileNames: '[name].cjs' } },
    },
  },
  renderer: {
    root: 'src/renderer',
    plugins: [react()],
    build: { outDir: 'out/renderer', rollupOptions: { input: 'src/renderer/index.html' } },
  },
});
