/** Builds the settings UI into `dist/`, served by the gateway under `/settings/` (see apps/gateway/src/settings.ts). */
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  base: '/settings/',
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false },
});
